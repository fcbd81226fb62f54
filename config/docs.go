package config

import (
	"fmt"
	"strconv"
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

func (c *docsConfig) resolve(getenv func(string) string, file string) error {
	where := "config " + file + ": max_doc_mb"
	if v := getenv(envMaxDocMB); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s = %q: %w: want a whole number of megabytes", envMaxDocMB, v, ErrConfigValue)
		}
		if n < 1 {
			return fmt.Errorf("%s = %d: %w: want 1-%d", envMaxDocMB, n, ErrConfigValue, maxMaxDocMB)
		}
		c.MaxDocMB, where = n, envMaxDocMB
	}
	switch {
	case c.MaxDocMB == 0:
		c.MaxDocMB = DefaultMaxDocMB
	case c.MaxDocMB < 1 || c.MaxDocMB > maxMaxDocMB:
		return fmt.Errorf("%s = %d: %w: want 1-%d", where, c.MaxDocMB, ErrConfigValue, maxMaxDocMB)
	}
	switch {
	case c.DocChunkTokens == 0:
		c.DocChunkTokens = DefaultDocChunkTokens
	case c.DocChunkTokens < minDocChunkTokens || c.DocChunkTokens > maxDocChunkTokens:
		return fmt.Errorf("config %s: doc_chunk_tokens = %d: %w: want %d-%d", file, c.DocChunkTokens, ErrConfigValue, minDocChunkTokens, maxDocChunkTokens)
	}
	if c.DocChunkOverlap == nil {
		overlap := min(DefaultDocChunkOverlap, c.DocChunkTokens/4)
		c.DocChunkOverlap = &overlap
	}
	if o := *c.DocChunkOverlap; o < 0 || o > c.DocChunkTokens/4 {
		return fmt.Errorf("config %s: doc_chunk_overlap = %d: %w: want 0-%d (a quarter of doc_chunk_tokens)", file, o, ErrConfigValue, c.DocChunkTokens/4)
	}
	if v := getenv(envDocRecall); v != "" {
		on, err := strconv.ParseBool(v)
		if err != nil {
			return fmt.Errorf("%s = %q: %w: want true or false", envDocRecall, v, ErrConfigValue)
		}
		c.DocRecall = &on
	}
	return nil
}

// MaxDocBytes is the largest file `docs add` reads.
func (c docsConfig) MaxDocBytes() int64 { return int64(c.MaxDocMB) << 20 }

// DocRecallOn says whether recall may put document passages into prompts.
func (c docsConfig) DocRecallOn() bool { return c.DocRecall == nil || *c.DocRecall }
