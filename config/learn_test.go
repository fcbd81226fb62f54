package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMemoryReviewIsCheckedTheSameEverywhere: memory_review is read from
// --no-learn, MNEME_MEMORY_REVIEW and the file in that order, and a bad
// value is refused naming where it came from.
func TestMemoryReviewIsCheckedTheSameEverywhere(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	load := func(content string, env map[string]string, flags LearnFlags) (Config, error) {
		t.Helper()
		if err := os.WriteFile(file, []byte(content+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		env["HOME"] = dir
		return Load(Flags{configFile: file, Learn: flags}, envMap(env))
	}
	for _, c := range []struct {
		file, env string
		want      string
	}{
		{file: `memory_review = "sometimes"`, want: "memory_review = \"sometimes\""},
		{env: "sometimes", want: "MNEME_MEMORY_REVIEW=sometimes"},
		{file: `memory_review = "Auto"`, want: `memory_review = "Auto": invalid value: want "auto", "inbox" or "off"`},
	} {
		_, err := load(c.file, map[string]string{envMemoryReview: c.env}, LearnFlags{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("file %q env %q: err = %v, want one naming %q", c.file, c.env, err, c.want)
		}
	}
	for _, c := range []struct {
		file, env string
		flags     LearnFlags
		on        bool
		model     string
	}{
		{on: true},
		{file: `memory_review = "inbox"`, on: true},
		{env: "inbox", on: true},
		{file: `memory_review = "off"`},
		{file: `memory_review = "off"`, env: "auto", on: true},
		{file: `memory_review = "auto"` + "\n" + `extract_model = "small"`, on: true, model: "small"},
		{env: "auto", flags: LearnFlags{noLearn: true}},
		// --no-learn wins over the environment.
		{env: "inbox", flags: LearnFlags{noLearn: true}},
	} {
		cfg, err := load(c.file, map[string]string{envMemoryReview: c.env}, c.flags)
		if err != nil || cfg.LearnOn() != c.on || cfg.ExtractModelFor("chat") != first(c.model, "chat") {
			t.Errorf("file %q env %q flags %+v: on %v model %q, %v; want on %v", c.file, c.env, c.flags, cfg.LearnOn(), cfg.ExtractModelFor("chat"), err, c.on)
		}
	}
	// A bad value is said under --no-learn too, as every bad setting is.
	if _, err := load(`memory_review = "bogus"`, map[string]string{}, LearnFlags{noLearn: true}); err == nil || !strings.Contains(err.Error(), `memory_review = "bogus"`) {
		t.Errorf("a bad memory_review under --no-learn: %v", err)
	}
	cfg, err := load(`extract_model = "file"`, map[string]string{envExtractModel: "env"}, LearnFlags{})
	if err != nil || cfg.ExtractModelFor("chat") != "env" {
		t.Errorf("extract_model: env beats file: %q, %v", cfg.ExtractModelFor("chat"), err)
	}
}
