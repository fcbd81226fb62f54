package config

import (
	"fmt"
	"strconv"
	"strings"
)

// docsConfig is how documents are added and recalled (config file keys and
// their environment variables).
type docsConfig struct {
	// MaxDocMB is the largest file `docs add` reads, in megabytes
	// (1-1024, default 50).
	MaxDocMB int `toml:"max_doc_mb"`
	// DocChunkTokens and DocChunkOverlap size the pieces documents are cut
	// into (64-2048, default 512; 0 to a quarter of the size, default 50).
	DocChunkTokens  int  `toml:"doc_chunk_tokens"`
	DocChunkOverlap *int `toml:"doc_chunk_overlap"`
	// DocRecall puts a passage of the user's documents that is highly
	// relevant to a prompt into it, like recalled notes (default true).
	DocRecall *bool `toml:"doc_recall"`
}

// Environment variables of documents.
const (
	envMaxDocMB  = "MNEME_MAX_DOC_MB"
	envDocRecall = "MNEME_DOC_RECALL"
)

// Defaults and bounds of the document keys.
const (
	DefaultMaxDocMB        = 50
	maxMaxDocMB            = 1024
	DefaultDocChunkTokens  = 512
	DefaultDocChunkOverlap = 50
	minDocChunkTokens      = 64
	maxDocChunkTokens      = 2048
)

func (c *docsConfig) resolve(l layers) {
	for _, w := range []whole{
		{key: "max_doc_mb", env: envMaxDocMB, dst: &c.MaxDocMB, lo: 1, hi: maxMaxDocMB, def: DefaultMaxDocMB, unit: "MB"},
		{key: "doc_chunk_tokens", dst: &c.DocChunkTokens, lo: minDocChunkTokens, hi: maxDocChunkTokens, def: DefaultDocChunkTokens, unit: "tokens"},
	} {
		w.resolve(l)
	}
	if c.DocChunkOverlap == nil {
		overlap := min(DefaultDocChunkOverlap, c.DocChunkTokens/4)
		c.DocChunkOverlap = &overlap
	}
	if o := *c.DocChunkOverlap; o < 0 || o > c.DocChunkTokens/4 {
		l.bad(fmt.Errorf("%s: %w: want 0-%d (a quarter of doc_chunk_tokens)", fromFile(l.file, "doc_chunk_overlap", o), ErrConfigValue, c.DocChunkTokens/4))
		overlap := min(DefaultDocChunkOverlap, c.DocChunkTokens/4)
		c.DocChunkOverlap = &overlap
	}
	if v := l.getenv(envDocRecall); v != "" {
		l.over("doc_recall")
		on, err := strconv.ParseBool(strings.TrimSpace(v))
		if err != nil {
			l.bad(fmt.Errorf("%s: %w: want true or false", fromEnv(envDocRecall, v), ErrConfigValue))
			return
		}
		c.DocRecall = &on
	}
}

// MaxDocBytes is the largest file `docs add` reads.
func (c docsConfig) MaxDocBytes() int64 { return int64(c.MaxDocMB) << 20 }

// DocRecallOn says whether recall may put document passages into prompts.
func (c docsConfig) DocRecallOn() bool { return c.DocRecall == nil || *c.DocRecall }
