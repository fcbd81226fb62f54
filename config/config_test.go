package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/memory/syncer"
)

func envMap(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestConfigPrecedence(t *testing.T) {
	dir := t.TempDir()
	cfgDir := filepath.Join(dir, "cfg", "mneme")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	file := `model = "file-model"
user = "file-user"
data_dir = "/file/data"
ollama = "file-host:1"
max_steps = 3
`
	if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(file), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{
		"XDG_CONFIG_HOME": filepath.Join(dir, "cfg"),
		"HOME":            dir,
		"MNEME_USER":      "env-user",
		"OLLAMA_HOST":     "env-host:2",
	}
	cfg, err := Load(Flags{Model: "flag-model"}, envMap(env))
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.ConfigFileFound {
		t.Fatal("config file not found")
	}
	checks := []struct{ name, got, want string }{
		{"model (flag beats env and file)", cfg.Model, "flag-model"},
		{"user (env beats file)", cfg.User, "env-user"},
		{"ollama (env beats file)", cfg.Ollama, "env-host:2"},
		{"data dir (file beats default)", cfg.DataDir, "/file/data"},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %q, want %q", c.name, c.got, c.want)
		}
	}
	if cfg.MaxSteps != 3 {
		t.Errorf("max_steps = %d, want 3", cfg.MaxSteps)
	}
}

func TestConfigDefaults(t *testing.T) {
	home := t.TempDir()
	cfg, err := Load(Flags{}, envMap(map[string]string{"HOME": home}))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ConfigFileFound {
		t.Fatal("found a config file in an empty home")
	}
	if want := filepath.Join(home, ".local/share/mneme"); cfg.DataDir != want {
		t.Errorf("data dir = %q, want %q", cfg.DataDir, want)
	}
	if cfg.Ollama != defaultOllama || cfg.User == "" {
		t.Errorf("defaults: ollama %q user %q", cfg.Ollama, cfg.User)
	}
	cfg, _ = Load(Flags{}, envMap(map[string]string{"HOME": home, "XDG_DATA_HOME": "/xdg/data", "MNEME_DATA_DIR": ""}))
	if cfg.DataDir != "/xdg/data/mneme" {
		t.Errorf("XDG data dir = %q", cfg.DataDir)
	}
}

func TestConfigErrorsNameTheProblem(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("modle = \"typo\"\n"), 0o600)
	if _, err := Load(Flags{configFile: bad}, envMap(nil)); err == nil || !strings.Contains(err.Error(), "modle") {
		t.Errorf("unknown key: %v", err)
	}
	broken := filepath.Join(dir, "broken.toml")
	os.WriteFile(broken, []byte("model = \n"), 0o600)
	if _, err := Load(Flags{configFile: broken}, envMap(nil)); err == nil || !strings.Contains(err.Error(), broken) {
		t.Errorf("malformed file: %v", err)
	}
	if _, err := Load(Flags{configFile: filepath.Join(dir, "missing.toml")}, envMap(nil)); err == nil {
		t.Error("an explicitly named missing config file must be an error")
	}
	if _, err := Load(Flags{}, envMap(map[string]string{"HOME": dir, "MNEME_MAX_STEPS": "many"})); err == nil {
		t.Error("non-numeric MNEME_MAX_STEPS accepted")
	}
	// /dev/null as the config file is none (as git's
	// GIT_CONFIG_GLOBAL=/dev/null), and is never written to or replaced.
	if _, err := Load(Flags{configFile: os.DevNull}, envMap(map[string]string{"HOME": dir})); err != nil {
		t.Errorf("--config /dev/null: %v", err)
	}
	if err := SaveModels(os.DevNull, "llama3.2", ""); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("saving models to /dev/null: %v", err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is no longer a device: %v %v", fi, err)
	}
	// A named pipe in the file's place that nobody writes to reads as empty
	// at once: it held every command, waiting for a writer.
	fifo := filepath.Join(dir, "mneme", "config.toml")
	if err := os.Mkdir(filepath.Dir(fifo), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := Load(Flags{}, envMap(map[string]string{"XDG_CONFIG_HOME": dir, "HOME": dir}))
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("a named pipe nobody writes to as the config file: %v", err)
		}
	case <-time.After(10 * time.Second): // a bound on a hang, not a wait for an event
		t.Fatal("reading a named pipe as the config file hangs")
	}
	// A pipe that is written to is read (--config <(…)); a device that never
	// ends is refused.
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	io.WriteString(w, "model = \"from-a-pipe\"\n")
	w.Close()
	if cfg, err := Load(Flags{configFile: fmt.Sprintf("/dev/fd/%d", r.Fd())}, envMap(map[string]string{"HOME": dir})); err != nil || cfg.Model != "from-a-pipe" {
		t.Errorf("--config <(…): model %q, %v", cfg.Model, err)
	}
	if _, err := Load(Flags{configFile: "/dev/zero"}, envMap(map[string]string{"HOME": dir})); err == nil || !strings.Contains(err.Error(), "larger than 1 MiB") {
		t.Errorf("--config /dev/zero: %v", err)
	}
}

func TestOllamaURL(t *testing.T) {
	cases := map[string]string{
		"":                         "http://127.0.0.1:11434",
		"0.0.0.0":                  "http://0.0.0.0:11434",
		"127.0.0.1:9999":           "http://127.0.0.1:9999",
		":9999":                    "http://127.0.0.1:9999",
		"http://example.com":       "http://example.com:11434",
		"https://example.com":      "https://example.com:443",
		"http://[::1]:8080/ollama": "http://[::1]:8080/ollama",
		"[::1]":                    "http://[::1]:11434",
	}
	for in, want := range cases {
		u, err := OllamaURL(in)
		if err != nil || u.String() != want {
			t.Errorf("OllamaURL(%q) = %v, %v; want %s", in, u, err, want)
		}
	}
	// A user and password are refused, and the password never said.
	if _, err := OllamaURL("http://bob:s3cret@127.0.0.1:1"); err == nil || strings.Contains(err.Error(), "s3cret") || !strings.Contains(err.Error(), "not supported") {
		t.Errorf("OllamaURL with a password: %v", err)
	}
	if _, err := Load(Flags{}, envMap(map[string]string{"HOME": t.TempDir(), "OLLAMA_HOST": "http://bob:s3cret@127.0.0.1:1"})); err == nil || strings.Contains(err.Error(), "s3cret") {
		t.Errorf("OLLAMA_HOST with a password: %v", err)
	}
	for _, bad := range []string{"ftp://x", "host:99999", "host:abc", "garbage:://x", "http://[::1", "[::1", "::1]:80"} {
		// The error names the address as typed, not what was left of it.
		if _, err := OllamaURL(bad); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", bad)) {
			t.Errorf("OllamaURL(%q): %v", bad, err)
		}
	}
}

// TestConfigRangesAreCheckedTheSameEverywhere: a negative or too large
// max_steps, and a negative rrf_k or weight, are refused from the config
// file as they are from the environment, naming where the value came from.
func TestConfigRangesAreCheckedTheSameEverywhere(t *testing.T) {
	for _, c := range []struct {
		file, env, want string
	}{
		{file: "max_steps = -1", want: "max_steps = -1"},
		{file: "max_steps = 51", want: "max_steps = 51"},
		{env: "-1", want: "MNEME_MAX_STEPS=-1"},
		{env: "1000", want: "MNEME_MAX_STEPS=1000"},
		// A whole number too large for an int is out of range, not "not a
		// whole number".
		{env: "99999999999999999999", want: "MNEME_MAX_STEPS=99999999999999999999: invalid value: want 1-50"},
		{file: "rrf_k = -5", want: "rrf_k = -5"},
		{file: "keyword_weight = -0.5", want: "keyword_weight = -0.5"},
		{file: "vector_weight = -1.0", want: "vector_weight = -1"},
		{file: "num_ctx = -4096", want: "num_ctx = -4096"},
		{file: "recall_half_life_days = -1", want: "recall_half_life_days = -1"},
		{file: "archive_notes_unused_days = -3", want: "archive_notes_unused_days = -3"},
		{file: "delete_archived_after_days = 40000", want: "delete_archived_after_days = 40000"},
		{file: "archive_below_confidence = 1.5", want: "archive_below_confidence = 1.5"},
		{file: "recall_half_life_days = 4000", want: "recall_half_life_days = 4000"},
		{file: `log_level = "loud"`, want: `log_level = "loud": invalid value: want debug, info, warn or error`},
	} {
		dir := t.TempDir()
		file := filepath.Join(dir, "config.toml")
		if err := os.WriteFile(file, []byte(c.file+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Load(Flags{configFile: file}, envMap(map[string]string{"HOME": dir, "MNEME_MAX_STEPS": c.env}))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("file %q env %q: err = %v, want one naming %q", c.file, c.env, err, c.want)
		}
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(file, []byte("max_steps = 50\nrrf_k = 0\nkeyword_weight = 0.3\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if cfg, err := Load(Flags{configFile: file}, envMap(map[string]string{"HOME": dir})); err != nil || cfg.MaxSteps != 50 {
		t.Fatalf("in-range values: %+v %v", cfg.MaxSteps, err)
	}
	_, err := Load(Flags{configFile: file}, envMap(map[string]string{"HOME": dir, "MNEME_LOG_LEVEL": "loud"}))
	if err == nil || !strings.Contains(err.Error(), "MNEME_LOG_LEVEL=loud") {
		t.Errorf("MNEME_LOG_LEVEL=loud: %v", err)
	}
	if cfg, err := Load(Flags{configFile: file}, envMap(map[string]string{"HOME": dir, "MNEME_LOG_LEVEL": "debug"})); err != nil || cfg.LogLevel != "debug" {
		t.Errorf("MNEME_LOG_LEVEL=debug: %v", err)
	}
}

// A model name is printed in commands to run (`ollama pull NAME`): one
// with escapes or spaces is refused, named as typed, on every path.
func TestOddModelNamesAreRefused(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		flags Flags
		env   map[string]string
		want  string
	}{
		{Flags{Model: "bad\x1b[31mname"}, nil, `--model "bad\x1b[31mname": invalid value`},
		{Flags{}, map[string]string{"MNEME_EMBED_MODEL": "nomic embed"}, `MNEME_EMBED_MODEL="nomic embed": invalid value`},
		{Flags{}, map[string]string{"MNEME_EXTRACT_MODEL": "qwen\u202e"}, `MNEME_EXTRACT_MODEL="qwen\u202e": invalid value`},
		{Flags{}, map[string]string{"MNEME_SUMMARY_MODEL": "a\tb"}, `MNEME_SUMMARY_MODEL="a\tb": invalid value`},
	} {
		env := map[string]string{"HOME": dir}
		for k, v := range c.env {
			env[k] = v
		}
		if _, err := Load(c.flags, envMap(env)); err == nil || !strings.Contains(err.Error(), c.want) || !errors.Is(err, ErrConfigValue) {
			t.Errorf("%+v %v: err = %v, want one naming %s", c.flags, c.env, err, c.want)
		}
	}
	if cfg, err := Load(Flags{Model: "hf.co/org/model:Q4_K_M"}, envMap(map[string]string{"HOME": dir})); err != nil || cfg.Model != "hf.co/org/model:Q4_K_M" {
		t.Fatalf("a usual name: %q %v", cfg.Model, err)
	}
}

// TestOllamaRegistryConfig: ollama_registry is checked the same from the
// file and from MNEME_OLLAMA_REGISTRY; the environment wins; "off" is
// accepted.
func TestOllamaRegistryConfig(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	load := func(fileValue, env string) (Config, error) {
		t.Helper()
		body := ""
		if fileValue != "" {
			body = "ollama_registry = " + strconv.Quote(fileValue) + "\n"
		}
		if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return Load(Flags{configFile: file}, envMap(map[string]string{"HOME": dir, envRegistry: env}))
	}
	if cfg, err := load("", ""); err != nil || cfg.OllamaRegistry != defaultRegistry {
		t.Fatalf("default: %q %v", cfg.OllamaRegistry, err)
	}
	if cfg, err := load("https://mirror.example", "off"); err != nil || cfg.OllamaRegistry != "off" {
		t.Fatalf("the environment does not win: %q %v", cfg.OllamaRegistry, err)
	}
	for _, bad := range []string{"ftp://x", "registry.ollama.ai", "http://"} {
		if _, err := load(bad, ""); !errors.Is(err, ErrConfigValue) || !strings.Contains(err.Error(), bad) {
			t.Errorf("file %q: err = %v", bad, err)
		}
		if _, err := load("", bad); !errors.Is(err, ErrConfigValue) || !strings.Contains(err.Error(), bad) {
			t.Errorf("env %q: err = %v", bad, err)
		}
	}
}

// Check names every bad setting, from every layer, in the order read, and
// reads each as unset; Load stops at the first of them.
func TestCheckNamesEveryBadSettingAndReadsItAsUnset(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(file, []byte("recall_limit = 99\nwindow_size = 12\ncompact_at = 7.0\nmax_steps = 6\n[sync]\ninterval = \"1s\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := envMap(map[string]string{"HOME": dir, "MNEME_MAX_STEPS": "0x", "OLLAMA_HOST": "h:99999"})
	cfg, problems := Check(Flags{configFile: file}, env)
	var got []string
	for _, p := range problems {
		if !errors.Is(p, ErrConfigValue) {
			t.Errorf("%v is not ErrConfigValue", p)
		}
		got = append(got, p.Error())
	}
	want := []string{"OLLAMA_HOST=h:99999", "MNEME_MAX_STEPS=0x", "recall_limit = 99", "compact_at = 7", "sync.interval"}
	if len(got) != len(want) {
		t.Fatalf("problems = %q, want %d", got, len(want))
	}
	for i, w := range want {
		if !strings.Contains(got[i], w) {
			t.Errorf("problem %d = %q, want one naming %q", i, got[i], w)
		}
	}
	// Bad settings read as unset (a bad environment variable: the file's
	// value); good ones are kept.
	if cfg.Ollama != defaultOllama || cfg.MaxSteps != 6 || cfg.RecallLimit != index.DefaultRecallLimit ||
		cfg.CompactAt != agent.DefaultCompactAt || cfg.Sync.Every != syncer.DefaultSyncInterval || cfg.WindowSize != 12 {
		t.Errorf("cfg = ollama %q, steps %d, recall %d, compact %g, sync %s, window %d", cfg.Ollama, cfg.MaxSteps, cfg.RecallLimit, cfg.CompactAt, cfg.Sync.Every, cfg.WindowSize)
	}
	if _, err := Load(Flags{configFile: file}, env); err == nil || err.Error() != got[0] {
		t.Errorf("Load: %v, want the first problem", err)
	}
}

// TestValueOfTheWrongTypeIsOneBadSetting: max_steps = "eight" is one bad
// setting, named and read as unset; the rest of the file is read (it left
// the whole file out).
func TestValueOfTheWrongTypeIsOneBadSetting(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	if err := os.WriteFile(file, []byte("model = \"llama3.2\"\nmax_steps = \"eight\"\nwindow_size = 12\n[sync]\ninterval = 5\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, problems := Check(Flags{configFile: file}, envMap(map[string]string{"HOME": dir}))
	if len(problems) != 2 || !strings.Contains(problems[0].Error(), `max_steps = "eight": invalid value: want a whole number`) ||
		!strings.Contains(problems[1].Error(), "sync.interval = 5: invalid value: want text in quotes") ||
		!errors.Is(problems[0], ErrConfigValue) || errors.Is(problems[0], ErrConfigFile) {
		t.Fatalf("problems = %v", problems)
	}
	if !cfg.ConfigFileFound || cfg.Model != "llama3.2" || cfg.WindowSize != 12 || (cfg.MaxSteps != 0 && cfg.MaxSteps != agent.DefaultMaxSteps) {
		t.Fatalf("cfg = found %v, model %q, window %d, steps %d", cfg.ConfigFileFound, cfg.Model, cfg.WindowSize, cfg.MaxSteps)
	}
	// What is not TOML at all is still the file left out.
	if err := os.WriteFile(file, []byte("model = \"unterminated\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, problems := Check(Flags{configFile: file}, envMap(map[string]string{"HOME": dir})); len(problems) != 1 || !errors.Is(problems[0], ErrConfigFile) {
		t.Fatalf("not TOML: %v", problems)
	}
}

// data_dir: "~/" is the home folder wherever it is written; a relative
// path is the working folder's when typed, and refused in the file (it
// would be another memory in every folder).
func TestDataDirTildeAndRelative(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, "config.toml")
	env := map[string]string{"HOME": home}
	load := func(flags Flags) (Config, error) { return Load(flags, envMap(env)) }
	os.WriteFile(file, []byte("data_dir = \"~/mem\"\n"), 0o600)
	if cfg, err := load(Flags{configFile: file}); err != nil || cfg.DataDir != filepath.Join(home, "mem") {
		t.Fatalf("~/ in the file: %q, %v", cfg.DataDir, err)
	}
	os.WriteFile(file, []byte("data_dir = \"rel/mem\"\n"), 0o600)
	if _, err := load(Flags{configFile: file}); err == nil || !strings.Contains(err.Error(), `data_dir = "rel/mem": invalid value: want an absolute path, or one from ~/`) {
		t.Fatalf("relative in the file: %v", err)
	}
	wd, _ := os.Getwd()
	env["MNEME_DATA_DIR"] = "rel/mem"
	if cfg, err := load(Flags{configFile: file}); err != nil || cfg.DataDir != filepath.Join(wd, "rel/mem") {
		t.Fatalf("relative in the environment: %q, %v", cfg.DataDir, err)
	}
	for _, bare := range []string{"~", "~/", "~/.", home, home + "/"} {
		if _, err := load(Flags{configFile: file, dataDir: bare}); err == nil || !strings.Contains(err.Error(), "not the home folder") {
			t.Fatalf("%q as a flag: %v", bare, err)
		}
	}
}

// A user name is trimmed (" tester " is tester, whose memory it is), and
// one that is blank or holds control characters is refused.
func TestUserNameIsTrimmedAndChecked(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ env, want, err string }{
		{" tester ", "tester", ""},
		{"   ", "", `MNEME_USER="   ": invalid value: want a name`},
		{"ev\x1bil", "", `MNEME_USER="ev\x1bil": invalid value`},
	} {
		cfg, err := Load(Flags{}, envMap(map[string]string{"HOME": dir, "MNEME_USER": c.env}))
		switch {
		case c.err == "" && (err != nil || cfg.User != c.want):
			t.Errorf("MNEME_USER=%q: user %q, %v", c.env, cfg.User, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("MNEME_USER=%q: %v, want %q", c.env, err, c.err)
		}
	}
}

// TestFlagsGivenEmptyAreRefused: --data-dir "" (a script's unset $DIR)
// is an error, not the default data dir: the user's main memory was
// written without a word. Likewise --user and --config.
func TestFlagsGivenEmptyAreRefused(t *testing.T) {
	for _, name := range []string{"data-dir", "user", "config"} {
		var c Flags
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c.Register(fs)
		if err := fs.Parse([]string{"--" + name, " "}); err == nil || !strings.Contains(err.Error(), "empty: give a value, or leave the flag out") {
			t.Errorf("--%s ' ': %v", name, err)
		}
		if err := fs.Parse([]string{"--" + name, "x"}); err != nil {
			t.Errorf("--%s x: %v", name, err)
		}
	}
}

// A bad value that a flag or the environment overrides does not stop a
// command, whatever is wrong with it (its type, its range, its text), and
// doctor (Check) names it, once, as overridden; one nothing overrides
// still stops the command.
func TestOverriddenBadValues(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, "config.toml")
	for _, c := range []struct {
		name, file string
		env        map[string]string
		flags      []string
		said       string // in the overridden problem
		check      func(Config) bool
	}{
		{"file type, env", "max_steps = \"eight\"\n", map[string]string{"MNEME_MAX_STEPS": "8"}, nil, `max_steps = "eight"`,
			func(c Config) bool { return c.MaxSteps == 8 }},
		{"file range, env", "max_steps = 99\n", map[string]string{"MNEME_MAX_STEPS": "8"}, nil, "max_steps = 99",
			func(c Config) bool { return c.MaxSteps == 8 }},
		{"file type, env bool", "doc_recall = \"yes\"\n", map[string]string{"MNEME_DOC_RECALL": "false"}, nil, `doc_recall = "yes"`,
			func(c Config) bool { return c.DocRecall != nil && !*c.DocRecall }},
		{"file text, flag", "ollama = \"ftp://x\"\n", nil, []string{"--ollama", "127.0.0.1:9"}, `ollama = "ftp://x"`,
			func(c Config) bool { return strings.Contains(c.Ollama, "127.0.0.1:9") }},
		{"env range, flag", "", map[string]string{"MNEME_NUM_CTX": "10"}, []string{"--num-ctx", "4096"}, "MNEME_NUM_CTX=10",
			func(c Config) bool { return c.NumCtx == 4096 }},
		{"file float, env", "num_ctx = 4096.0\n", map[string]string{"MNEME_NUM_CTX": "4096"}, nil, "num_ctx = 4096.0: invalid value: want a whole number",
			func(c Config) bool { return c.NumCtx == 4096 }},
		{"file float as written, env", "num_ctx = 1e4 # ten thousand\n", map[string]string{"MNEME_NUM_CTX": "4096"}, nil, "num_ctx = 1e4: invalid value: want a whole number",
			func(c Config) bool { return c.NumCtx == 4096 }},
		{"file date, env", "[sync]\ninterval = 2026-01-01\n", map[string]string{"MNEME_SYNC_INTERVAL": "5m"}, nil, "sync.interval = 2026-01-01: invalid value",
			func(c Config) bool { return c.Sync.Interval == "5m" }},
		{"file type, env text", "log_level = 3\n", map[string]string{"MNEME_LOG_LEVEL": "debug"}, nil, "log_level = 3",
			func(c Config) bool { return c.LogLevel == "debug" }},
	} {
		if err := os.WriteFile(file, []byte(c.file), 0o600); err != nil {
			t.Fatal(err)
		}
		e := map[string]string{"HOME": home, "MNEME_CONFIG": file}
		for k, v := range c.env {
			e[k] = v
		}
		cfg, err := Load(parseCommon(t, c.flags...), envMap(e))
		if err != nil || !c.check(cfg) {
			t.Errorf("%s: the override was not taken: %v", c.name, err)
		}
		_, problems := Check(parseCommon(t, c.flags...), envMap(e))
		if len(problems) != 1 || !errors.As(problems[0], new(Overridden)) || !errors.Is(problems[0], ErrConfigValue) ||
			!strings.Contains(problems[0].Error(), c.said) || !strings.HasSuffix(problems[0].Error(), "; a flag or the environment overrides it") {
			t.Errorf("%s: doctor was told %v", c.name, problems)
		}
		delete(e, "MNEME_MAX_STEPS")
		delete(e, "MNEME_DOC_RECALL")
		delete(e, "MNEME_LOG_LEVEL")
		delete(e, "MNEME_NUM_CTX")
		delete(e, "MNEME_SYNC_INTERVAL")
		if c.flags == nil {
			if _, err := Load(Flags{}, envMap(e)); err == nil || !strings.Contains(err.Error(), c.said) {
				t.Errorf("%s: without the override: %v", c.name, err)
			}
		}
	}
}

// An unknown key in the file that is a typo of one it takes says which:
// `modle` is refused with "did you mean model?"; a key like no other is
// only refused.
func TestUnknownKeyNamesTheNearestOne(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, "config.toml")
	os.WriteFile(file, []byte("modle = \"llama3.2\"\nmax_setps = 8\nbogus_key = 1\n[sync]\nintervall = \"5m\"\n"), 0o600)
	_, err := Load(Flags{configFile: file}, envMap(map[string]string{"HOME": home}))
	want := "unknown keys: bogus_key, max_setps (did you mean max_steps?), modle (did you mean model?), sync.intervall (did you mean sync.interval?)"
	if err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Fatalf("got %v\nwant …%s", err, want)
	}
}

// SetBy names where a setting came from, for doctor: its flag, its
// environment variable, the file, or nothing for a default.
func TestSetByNamesTheLayer(t *testing.T) {
	home := t.TempDir()
	file := filepath.Join(home, "config.toml")
	os.WriteFile(file, []byte("model = \"llama3.2\"\nmax_steps = 6\nnum_ctx = 4096\nuser = \"ann\"\n"), 0o600)
	env := map[string]string{"HOME": home, "MNEME_CONFIG": file, "MNEME_NUM_CTX": "2048", "OLLAMA_HOST": "127.0.0.1:9"}
	cfg, err := Load(parseCommon(t, "--user", "bob"), envMap(env))
	if err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]string{"model": "the config file", "max_steps": "the config file", "num_ctx": "MNEME_NUM_CTX",
		"ollama": "OLLAMA_HOST", "user": "--user", "embed_model": "", "window_size": ""} {
		if got := cfg.SetBy(key); got != want {
			t.Errorf("SetBy(%q) = %q, want %q", key, got, want)
		}
	}
	// A value refused did not set its setting: doctor pointed at the layer
	// to change, and it was the wrong one.
	env["MNEME_NUM_CTX"], env["OLLAMA_HOST"] = "10", "ftp://x"
	cfg, _ = Check(Flags{}, envMap(env))
	for _, key := range []string{"num_ctx", "ollama"} {
		if got := cfg.SetBy(key); got != "" {
			t.Errorf("SetBy(%q) = %q for a refused value", key, got)
		}
	}
}
