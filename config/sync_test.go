package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/syncer"
)

func TestSyncConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.toml")
	file := "model = \"m\"\n\n[sync]\nurl = \"libsql://file-db.turso.io\"\ntoken = \"file-token\"\ninterval = \"2m\"\n"
	if err := os.WriteFile(path, []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"HOME": dir}
	load := func() Config {
		t.Helper()
		cfg, err := Load(Flags{configFile: path}, envMap(env))
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	cfg := load()
	if cfg.Sync.URL != "libsql://file-db.turso.io" || cfg.Sync.Token != "file-token" || cfg.Sync.Every != 2*time.Minute {
		t.Fatalf("file: %+v", cfg.Sync)
	}
	env["TURSO_DATABASE_URL"], env["TURSO_AUTH_TOKEN"] = "libsql://turso-db.turso.io", "turso-token"
	if cfg = load(); cfg.Sync.URL != "libsql://turso-db.turso.io" || cfg.Sync.Token != "turso-token" {
		t.Fatalf("TURSO_*: %+v", cfg.Sync)
	}
	env["MNEME_SYNC_URL"], env["MNEME_SYNC_TOKEN"], env["MNEME_SYNC_INTERVAL"] = "https://mneme-db.example", "mneme-token", "off"
	if cfg = load(); cfg.Sync.URL != "https://mneme-db.example" || cfg.Sync.Token != "mneme-token" || cfg.Sync.Every >= 0 {
		t.Fatalf("MNEME_*: %+v", cfg.Sync)
	}
	// Sync with encryption at rest is a bad setting, for every command: it
	// names both sources, never the key.
	env["MNEME_ENCRYPTION_KEY"] = "secret-key-value"
	_, err := Load(Flags{configFile: path}, envMap(env))
	if !errors.Is(err, memory.ErrEncryptedReplica) || !errors.Is(err, ErrConfigValue) ||
		!strings.Contains(err.Error(), "MNEME_SYNC_URL with MNEME_ENCRYPTION_KEY") || strings.Contains(err.Error(), "secret-key-value") {
		t.Fatalf("sync with an encryption key: %v", err)
	}
	delete(env, "MNEME_ENCRYPTION_KEY")
	delete(env, "MNEME_SYNC_INTERVAL")
	delete(env, "MNEME_SYNC_URL")
	delete(env, "TURSO_DATABASE_URL")
	os.WriteFile(path, []byte("[sync]\nurl = \"ftp://x\"\n"), 0o600)
	if _, err := Load(Flags{configFile: path}, envMap(env)); err == nil || !strings.Contains(err.Error(), "scheme") {
		t.Fatalf("bad URL: %v", err)
	}
	os.WriteFile(path, []byte("[sync]\nurl = \"libsql://x.turso.io\"\ninterval = \"1s\"\n"), 0o600)
	if _, err := Load(Flags{configFile: path}, envMap(env)); err == nil || !strings.Contains(err.Error(), "interval") {
		t.Fatalf("bad interval: %v", err)
	}
	os.WriteFile(path, []byte("[sync]\nurl = \"libsql://x.turso.io\"\n"), 0o600)
	if cfg = load(); cfg.Sync.Every != syncer.DefaultSyncInterval {
		t.Fatalf("default interval %s", cfg.Sync.Every)
	}
}

func TestWriteSyncConfigKeepsTheRest(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mneme", "config.toml")
	os.MkdirAll(filepath.Dir(path), 0o700)
	before := "# my settings\nmodel = \"llama3.2\"\n\n[sync]\nurl = \"libsql://old.turso.io\"\ntoken = \"old\"\n\n[other]\nkey = 1\n"
	if err := os.WriteFile(path, []byte(before), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := WriteSync(path, "libsql://new.turso.io", `to"k\en`, "10m"); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	got := string(data)
	for _, want := range []string{"# my settings", `model = "llama3.2"`, "[other]\nkey = 1", `url = "libsql://new.turso.io"`, `token = "to\"k\\en"`, `interval = "10m"`} {
		if !strings.Contains(got, want) {
			t.Errorf("config lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "old") || strings.Count(got, "[sync]") != 1 {
		t.Errorf("old [sync] table kept:\n%s", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
	// It decodes, token included.
	var cfg struct {
		Sync  SyncSettings   `toml:"sync"`
		Model string         `toml:"model"`
		Other map[string]int `toml:"other"`
	}
	if _, err := decodeTOMLFile(path, &cfg); err != nil || cfg.Sync.Token != `to"k\en` || cfg.Model != "llama3.2" {
		t.Fatalf("decode: %+v %v", cfg, err)
	}
	if err := WriteSync(path, "libsql://x.turso.io", "bad\ntoken", ""); err == nil {
		t.Fatal("a token with a newline was written")
	}
}

func decodeTOMLFile(path string, v any) (toml.MetaData, error) { return toml.DecodeFile(path, v) }

// A sync URL may carry a token or a password: a bad one is named by where
// it came from, and the secrets are never printed.
func TestBadSyncURLNeverShowsItsSecrets(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(file, []byte("[sync]\nurl = \"ftp://user:filepassword@x/?authToken=filetoken\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": dir}, "config " + file + ": sync.url: "},
		{map[string]string{"HOME": dir, "TURSO_DATABASE_URL": "libsql://?authToken=envtoken"}, "TURSO_DATABASE_URL: "},
		{map[string]string{"HOME": dir, "MNEME_SYNC_URL": "ftp://:envpassword@x"}, "MNEME_SYNC_URL: "},
		{map[string]string{"HOME": dir, "MNEME_SYNC_URL": "https://u:envpassword@x:70000/?authToken=envtoken"}, `MNEME_SYNC_URL: sync URL "https://x:70000/": bad port "70000": want 1-65535`},
		{map[string]string{"HOME": dir, "MNEME_SYNC_URL": "libsql://x:0"}, `bad port "0"`},
		{map[string]string{"HOME": dir, "MNEME_SYNC_URL": "libsql://x:"}, `empty port`},
	} {
		_, err := Load(Flags{configFile: file}, envMap(c.env))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want one naming %q", c.env, err, c.want)
			continue
		}
		for _, secret := range []string{"filepassword", "filetoken", "envtoken", "envpassword"} {
			if strings.Contains(err.Error(), secret) {
				t.Errorf("%v: the error shows %q: %v", c.env, secret, err)
			}
		}
	}
}
