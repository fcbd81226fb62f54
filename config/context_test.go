package config

import (
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/agent"
)

// parseCommon parses args as a command's common flags.
func parseCommon(t *testing.T, args ...string) Flags {
	t.Helper()
	var c Flags
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.Register(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatalf("flags %v: %v", args, err)
	}
	return c
}

// TestContextConfig: num_ctx and num_ctx_max come from the flag, else the
// environment, else the file, else the defaults (unset, 8192); every path
// rejects a size below 512 or negative, naming the setting, where it came
// from and the bounds.
func TestContextConfig(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, "config.toml")
	env := map[string]string{"HOME": home, "MNEME_CONFIG": file}
	write := func(s string) {
		if err := os.WriteFile(file, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	load := func(flags Flags) contextConfig {
		t.Helper()
		cfg, err := Load(flags, envMap(env))
		if err != nil {
			t.Fatal(err)
		}
		return cfg.contextConfig
	}

	write("")
	if c := load(Flags{}); c.NumCtx != 0 || c.NumCtxMax != agent.DefaultMaxContext {
		t.Fatalf("defaults %+v, want num_ctx unset and num_ctx_max %d", c, agent.DefaultMaxContext)
	}
	write("num_ctx_max = 16384\nnum_ctx = 4096\n")
	if c := load(Flags{}); c.NumCtx != 4096 || c.NumCtxMax != 16384 {
		t.Fatalf("from the file %+v", c)
	}
	env["MNEME_NUM_CTX_MAX"], env["MNEME_NUM_CTX"] = "32768", "0"
	if c := load(Flags{}); c.NumCtx != 0 || c.NumCtxMax != 32768 {
		t.Fatalf("env over the file %+v (MNEME_NUM_CTX=0 unsets num_ctx)", c)
	}
	if c := load(parseCommon(t, "--num-ctx-max", "65536", "--num-ctx", "2048")); c.NumCtx != 2048 || c.NumCtxMax != 65536 {
		t.Fatalf("flags over env %+v", c)
	}
	delete(env, "MNEME_NUM_CTX_MAX")
	delete(env, "MNEME_NUM_CTX")

	for _, c := range []struct {
		name  string
		file  string
		env   map[string]string
		flags []string
		want  []string // in the error
	}{
		{"file: negative cap", "num_ctx_max = -1\n", nil, nil, []string{file, "num_ctx_max = -1", "512-"}},
		{"file: tiny num_ctx", "num_ctx = 100\n", nil, nil, []string{file, "num_ctx = 100", "512-"}},
		{"env: tiny cap", "", map[string]string{"MNEME_NUM_CTX_MAX": "256"}, nil, []string{"MNEME_NUM_CTX_MAX=256", "512-"}},
		{"env: negative num_ctx", "", map[string]string{"MNEME_NUM_CTX": "-4096"}, nil, []string{"MNEME_NUM_CTX=-4096", "512-"}},
		{"env: not a number", "", map[string]string{"MNEME_NUM_CTX_MAX": "lots"}, nil, []string{"MNEME_NUM_CTX_MAX", "whole number"}},
		{"env: absurdly large", "", map[string]string{"MNEME_NUM_CTX_MAX": "99999999"}, nil, []string{"MNEME_NUM_CTX_MAX=99999999", "512-1048576"}},
		{"flag: negative cap", "", nil, []string{"--num-ctx-max", "-8192"}, []string{"--num-ctx-max -8192", "512-"}},
		{"flag: tiny num_ctx", "num_ctx = 4096\n", nil, []string{"--num-ctx", "10"}, []string{"--num-ctx 10", "512-"}},
		{"flag beats a bad file", "num_ctx_max = 5\n", nil, []string{"--num-ctx-max", "8192"}, nil},
	} {
		write(c.file)
		e := map[string]string{"HOME": home, "MNEME_CONFIG": file}
		for k, v := range c.env {
			e[k] = v
		}
		_, err := Load(parseCommon(t, c.flags...), envMap(e))
		if c.want == nil {
			if err != nil {
				t.Errorf("%s: %v", c.name, err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q lacks %q", c.name, err, w)
			}
		}
		if !errors.Is(err, ErrConfigValue) {
			t.Errorf("%s: error %q is not an ErrConfigValue", c.name, err)
		}
	}
	var c Flags
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.Register(fs)
	if err := fs.Parse([]string{"--num-ctx-max", "big"}); err == nil || !strings.Contains(err.Error(), "num-ctx-max") {
		t.Errorf("--num-ctx-max big: %v", err)
	}
	// Spaces around a number: read as the environment's are ("4096 " was
	// taken from MNEME_NUM_CTX and refused from --num-ctx).
	if err := fs.Parse([]string{"--num-ctx", "4096 "}); err != nil || c.numCtx.n != 4096 {
		t.Errorf("--num-ctx '4096 ': %v, %d", err, c.numCtx.n)
	}
}
