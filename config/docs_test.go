package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocumentKeysAreCheckedTheSameEverywhere: max_doc_mb comes from
// MNEME_MAX_DOC_MB, then the file, then 50; the chunk sizes from the
// file; a bad value is refused naming where it came from.
func TestDocumentKeysAreCheckedTheSameEverywhere(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	load := func(content string, env map[string]string) (Config, error) {
		t.Helper()
		if err := os.WriteFile(file, []byte(content+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		env["HOME"] = dir
		return Load(Flags{configFile: file}, envMap(env))
	}
	cfg, err := load("", map[string]string{})
	if err != nil || cfg.MaxDocBytes() != 50<<20 || cfg.DocChunkTokens != 512 || *cfg.DocChunkOverlap != 50 || !cfg.DocRecallOn() {
		t.Fatalf("defaults: %+v, %v", cfg.docsConfig, err)
	}
	cfg, err = load("max_doc_mb = 5\ndoc_chunk_tokens = 128\ndoc_recall = false", map[string]string{envMaxDocMB: "7"})
	if err != nil || cfg.MaxDocMB != 7 || cfg.DocChunkTokens != 128 || *cfg.DocChunkOverlap != 32 || cfg.DocRecallOn() {
		t.Fatalf("env over file: %+v, %v", cfg.docsConfig, err)
	}
	if cfg, err := load("", map[string]string{envMaxDocMB: "0"}); err != nil || cfg.MaxDocMB != DefaultMaxDocMB {
		t.Fatalf("MNEME_MAX_DOC_MB=0 is unset, as in the file: %d, %v", cfg.MaxDocMB, err)
	}
	for _, c := range []struct {
		file string
		env  map[string]string
		want string
	}{
		{file: "max_doc_mb = 2000", want: "max_doc_mb = 2000"},
		{file: "max_doc_mb = -1", want: "max_doc_mb = -1"},
		{env: map[string]string{envMaxDocMB: "lots"}, want: "MNEME_MAX_DOC_MB=lots: invalid value"},
		{env: map[string]string{envMaxDocMB: "-1"}, want: "MNEME_MAX_DOC_MB=-1: invalid value: want 1-1024 MB"},
		{env: map[string]string{envMaxDocMB: "2 GB"}, want: `MNEME_MAX_DOC_MB="2 GB"`},
		{file: "doc_chunk_tokens = 10", want: "doc_chunk_tokens = 10"},
		{file: "doc_chunk_overlap = 300", want: "doc_chunk_overlap = 300"},
		{env: map[string]string{envDocRecall: "maybe"}, want: "MNEME_DOC_RECALL=maybe"},
	} {
		if c.env == nil {
			c.env = map[string]string{}
		}
		if _, err := load(c.file, c.env); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("file %q env %v: err = %v, want one naming %q", c.file, c.env, err, c.want)
		}
	}
}
