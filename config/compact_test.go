package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCompactionConfig(t *testing.T) {
	home := t.TempDir()
	env := map[string]string{"HOME": home}
	cfg, err := Load(Flags{}, envMap(env))
	if err != nil {
		t.Fatal(err)
	}
	if c := cfg.compactionConfig; c.WindowSize != 30 || c.CompactAt != 0.75 || c.SummaryTokens != 500 || c.SummaryModel != "" {
		t.Fatalf("defaults %+v", c)
	}

	file := filepath.Join(home, "config.toml")
	if err := os.WriteFile(file, []byte("window_size = 12\ncompact_at = 0.5\nsummary_tokens = 200\nsummary_model = \"small\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env["MNEME_CONFIG"] = file
	if cfg, err = Load(Flags{}, envMap(env)); err != nil {
		t.Fatal(err)
	}
	if c := cfg.compactionConfig; c.WindowSize != 12 || c.CompactAt != 0.5 || c.SummaryTokens != 200 || c.SummaryModel != "small" {
		t.Fatalf("from the file %+v", c)
	}
	env["MNEME_WINDOW_SIZE"], env["MNEME_COMPACT_AT"], env["MNEME_SUMMARY_MODEL"] = "8", "0.9", "tiny"
	if cfg, err = Load(Flags{}, envMap(env)); err != nil {
		t.Fatal(err)
	}
	if c := cfg.compactionConfig; c.WindowSize != 8 || c.CompactAt != 0.9 || c.SummaryTokens != 200 || c.SummaryModel != "tiny" {
		t.Fatalf("env over the file %+v", c)
	}

	for name, bad := range map[string]map[string]string{
		"window too small":   {"MNEME_WINDOW_SIZE": "2"},
		"window not a count": {"MNEME_WINDOW_SIZE": "many"},
		"share above 1":      {"MNEME_COMPACT_AT": "1.5"},
		"share not a number": {"MNEME_COMPACT_AT": "most"},
		"summary too short":  {"MNEME_SUMMARY_TOKENS": "3"},
	} {
		e := map[string]string{"HOME": t.TempDir()}
		for k, v := range bad {
			e[k] = v
		}
		_, err := Load(Flags{}, envMap(e))
		if err == nil {
			t.Errorf("%s: accepted", name)
			continue
		}
		// The error names the variable and its value, not a config file
		// that holds neither.
		for k, v := range bad {
			if !strings.Contains(err.Error(), k+"="+v+": invalid value") || strings.Contains(err.Error(), "config ") {
				t.Errorf("%s: error %q does not name %s=%s", name, err, k, v)
			}
		}
	}
}
