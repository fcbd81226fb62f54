package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSaveModelsKeepsTheRestOfTheFile(t *testing.T) {
	const before = `# mneme settings
user = "alice"   # me
model = "llama3.2" # the chat model
max_steps = 4

[sync]
url = "libsql://db.example.turso.io"
# model = "a comment in a table"
`
	path := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(path, []byte(before), 0o640); err != nil {
		t.Fatal(err)
	}
	if err := SaveModels(path, "qwen2.5:7b", "nomic-embed-text"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := `# mneme settings
user = "alice"   # me
model = "qwen2.5:7b" # the chat model
max_steps = 4
embed_model = "nomic-embed-text"

[sync]
url = "libsql://db.example.turso.io"
# model = "a comment in a table"
`
	if string(got) != want {
		t.Fatalf("config after saving:\n%s\nwant:\n%s", got, want)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want 0640 kept", fi.Mode().Perm())
	}
	// Load reads the models back (no env, no flags).
	cfg, err := Load(Flags{configFile: path}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model != "qwen2.5:7b" || cfg.EmbedModel != "nomic-embed-text" || cfg.User != "alice" || cfg.MaxSteps != 4 {
		t.Fatalf("config read back = model %q embed %q user %q steps %d", cfg.Model, cfg.EmbedModel, cfg.User, cfg.MaxSteps)
	}

	// An empty name leaves its key alone.
	if err := SaveModels(path, "", "mxbai-embed-large"); err != nil {
		t.Fatal(err)
	}
	got, _ = os.ReadFile(path)
	if !strings.Contains(string(got), `model = "qwen2.5:7b" # the chat model`) || !strings.Contains(string(got), `embed_model = "mxbai-embed-large"`) {
		t.Fatalf("after saving only the embedding model:\n%s", got)
	}
}

func TestSaveModelsCreatesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "mneme", "config.toml")
	if err := SaveModels(path, `we"ird\name`, ""); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	if string(got) != "model = \"we\\\"ird\\\\name\"\n" {
		t.Fatalf("new config = %q", got)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	cfg, err := Load(Flags{configFile: path}, func(string) string { return "" })
	if err != nil || cfg.Model != `we"ird\name` {
		t.Fatalf("read back %q, %v", cfg.Model, err)
	}
}

func TestSaveModelsOnlyTablesOrMultilineStrings(t *testing.T) {
	path := filepath.Join(t.TempDir(), "config.toml")
	const before = `system_prompt = """
model = "inside a string"
"""

[sync]
interval = "5m"
`
	if err := os.WriteFile(path, []byte(before), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SaveModels(path, "llama3.2", ""); err != nil {
		t.Fatal(err)
	}
	cfg, err := Load(Flags{configFile: path}, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Model != "llama3.2" || !strings.Contains(cfg.SystemPrompt, `model = "inside a string"`) || cfg.Sync.Interval != "5m" {
		t.Fatalf("model %q prompt %q interval %q", cfg.Model, cfg.SystemPrompt, cfg.Sync.Interval)
	}

	// A file with only a table gets the key above it.
	only := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(only, []byte("[sync]\ninterval = \"off\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := SaveModels(only, "llama3.2", ""); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(only)
	if string(got) != "model = \"llama3.2\"\n\n[sync]\ninterval = \"off\"\n" {
		t.Fatalf("got %q", got)
	}
	if err := SaveModels(only, "bad\nname", ""); err == nil {
		t.Fatal("a name with a newline was written")
	}
}

// TestModelsOverriddenNamesWhatWinsAtTheNextStart: a model chosen in the
// chat is saved, but a flag or the environment wins at the next start:
// the chat says which.
func TestModelsOverriddenNamesWhatWinsAtTheNextStart(t *testing.T) {
	env := map[string]string{"MNEME_MODEL": "nosuch-model"}
	getenv := func(k string) string { return env[k] }
	if got := ModelsOverridden(Flags{}, getenv, "llama3.2", ""); got != "MNEME_MODEL=nosuch-model in the environment" {
		t.Fatalf("chat model: %q", got)
	}
	if got := ModelsOverridden(Flags{Model: "qwen2.5"}, getenv, "llama3.2", ""); got != "--model qwen2.5 on the command line" {
		t.Fatalf("the flag first: %q", got)
	}
	if got := ModelsOverridden(Flags{}, getenv, "", "nomic-embed-text"); got != "" {
		t.Fatalf("an embedding model the environment does not set: %q", got)
	}
}
