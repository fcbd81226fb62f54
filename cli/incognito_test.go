package cli

import (
	"testing"

	"github.com/mneme-dev/mneme/config"
)

// An incognito session can neither sync, learn nor recall, and keeps its
// data in the throwaway dir, whatever the configuration says.
func TestIncognitoConfigKeepsNothing(t *testing.T) {
	on := true
	cfg := config.Config{DataDir: "/home/u/.local/share/mneme", Recall: &on}
	cfg.Sync.URL, cfg.Sync.Token, cfg.MemoryReview, cfg.EncryptionKey = "libsql://x.turso.io", "tok", config.ReviewAuto, "key"
	got := incognitoConfig(cfg, "/tmp/mneme-incognito-1")
	if got.DataDir != "/tmp/mneme-incognito-1" || got.Sync.URL != "" || got.Sync.Token != "" || got.LearnOn() || got.RecallOn() {
		t.Fatalf("incognito config %+v", got)
	}
	if got.EncryptionKey != "key" {
		t.Fatal("the throwaway database should stay encrypted at rest")
	}
	if !cfg.RecallOn() || cfg.Sync.URL == "" {
		t.Fatal("the configuration was changed in place")
	}
}
