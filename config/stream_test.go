package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/agent"
)

func TestStreamTimeoutsConfig(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	write := func(text string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	load := func(flags StreamFlags, env map[string]string) (Config, error) {
		env["HOME"] = dir
		return Load(Flags{configFile: file, Stream: flags}, envMap(env))
	}

	write("")
	cfg, err := load(StreamFlags{}, map[string]string{})
	if err != nil || cfg.FirstTokenTimeout != agent.DefaultFirstTokenTimeout || cfg.StreamIdleTimeout != agent.DefaultStreamIdleTimeout {
		t.Fatalf("defaults: %v %v %v", cfg.FirstTokenTimeout, cfg.StreamIdleTimeout, err)
	}

	write("first_token_timeout = \"3m\"\nstream_idle_timeout = \"45\"\n")
	cfg, err = load(StreamFlags{}, map[string]string{})
	if err != nil || cfg.FirstTokenTimeout != 3*time.Minute || cfg.StreamIdleTimeout != 45*time.Second {
		t.Fatalf("file: %v %v %v", cfg.FirstTokenTimeout, cfg.StreamIdleTimeout, err)
	}
	// A bare number of seconds, as the flags and the environment take it
	// (the file refused it: "want text in quotes").
	write("first_token_timeout = 5\nstream_idle_timeout = 7.5\n")
	cfg, err = load(StreamFlags{}, map[string]string{})
	if err != nil || cfg.FirstTokenTimeout != 5*time.Second || cfg.StreamIdleTimeout != 7500*time.Millisecond {
		t.Fatalf("file numbers: %v %v %v", cfg.FirstTokenTimeout, cfg.StreamIdleTimeout, err)
	}
	write("first_token_timeout = 0\nstream_idle_timeout = \"0s\"\n") // 0 is unset
	cfg, err = load(StreamFlags{}, map[string]string{})
	if err != nil || cfg.FirstTokenTimeout != agent.DefaultFirstTokenTimeout || cfg.StreamIdleTimeout != agent.DefaultStreamIdleTimeout {
		t.Fatalf("file zeros: %v %v %v", cfg.FirstTokenTimeout, cfg.StreamIdleTimeout, err)
	}
	write("first_token_timeout = true\n")
	if _, err := load(StreamFlags{}, map[string]string{}); err == nil || !strings.Contains(err.Error(), "first_token_timeout = true") {
		t.Fatalf("file boolean: %v", err)
	}
	write("first_token_timeout = \"3m\"\nstream_idle_timeout = \"45\"\n")
	cfg, err = load(StreamFlags{firstToken: "90s"}, map[string]string{envFirstTokenTimeout: "100s", envStreamIdleTimeout: "20s"})
	if err != nil || cfg.FirstTokenTimeout != 90*time.Second || cfg.StreamIdleTimeout != 20*time.Second {
		t.Fatalf("flag beats env beats file: %v %v %v", cfg.FirstTokenTimeout, cfg.StreamIdleTimeout, err)
	}

	// The same check on every path, naming where the bad value came from.
	for _, c := range []struct {
		name, file string
		flags      StreamFlags
		env        map[string]string
		want       string
	}{
		{"file", "stream_idle_timeout = \"0.5s\"\n", StreamFlags{}, map[string]string{}, "config " + file + ": stream_idle_timeout"},
		{"env", "", StreamFlags{}, map[string]string{envStreamIdleTimeout: "soon"}, envStreamIdleTimeout},
		{"flag", "", StreamFlags{firstToken: "2h"}, map[string]string{}, "--first-token-timeout"},
	} {
		write(c.file)
		if _, err := load(c.flags, c.env); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "such as 90s") {
			t.Errorf("%s: err = %v, want one naming %q", c.name, err, c.want)
		}
	}
}

func TestMaxAnswerTokensConfig(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	load := func(text string, env map[string]string) (Config, error) {
		t.Helper()
		if err := os.WriteFile(file, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		env["HOME"] = dir
		return Load(Flags{configFile: file}, envMap(env))
	}
	if cfg, err := load("", map[string]string{}); err != nil || cfg.MaxAnswerTokens != agent.DefaultMaxAnswerTokens {
		t.Fatalf("default: %d, %v", cfg.MaxAnswerTokens, err)
	}
	if cfg, err := load("max_answer_tokens = 800\n", map[string]string{}); err != nil || cfg.MaxAnswerTokens != 800 {
		t.Fatalf("file: %d, %v", cfg.MaxAnswerTokens, err)
	}
	if cfg, err := load("max_answer_tokens = 800\n", map[string]string{envMaxAnswerTokens: "20000"}); err != nil || cfg.MaxAnswerTokens != 20000 {
		t.Fatalf("env beats file: %d, %v", cfg.MaxAnswerTokens, err)
	}
	for _, c := range []struct {
		file string
		env  map[string]string
		want string
	}{
		{"max_answer_tokens = 3\n", map[string]string{}, "config " + file + ": max_answer_tokens = 3"},
		{"max_answer_tokens = -1\n", map[string]string{}, "max_answer_tokens = -1"},
		{"", map[string]string{envMaxAnswerTokens: "lots"}, envMaxAnswerTokens + "=lots"},
		{"", map[string]string{envMaxAnswerTokens: "99999999"}, envMaxAnswerTokens + "=99999999"},
	} {
		if _, err := load(c.file, c.env); err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrConfigValue) {
			t.Errorf("%q %v: err = %v, want one naming %q", c.file, c.env, err, c.want)
		}
	}
}
