// Package config is mneme's configuration: Load resolves flags, then the
// environment, then the XDG TOML file, then defaults, and checks every
// setting the same way whichever gave it; SaveModels and WriteSync change
// the file the way the chat and `mneme sync init` do.
package config

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net"
	"net/url"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode"

	"github.com/BurntSushi/toml"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/ollama"
	"github.com/mneme-dev/mneme/memory/index"
)

// Config is mneme's resolved configuration.
type Config struct {
	DataDir      string `toml:"data_dir"`
	User         string `toml:"user"`
	Model        string `toml:"model"`
	Ollama       string `toml:"ollama"`
	MaxSteps     int    `toml:"max_steps"`
	SystemPrompt string `toml:"system_prompt"`
	LogLevel     string `toml:"log_level"`
	EmbedModel   string `toml:"embed_model"`
	// EmbedModelOneOff says EmbedModel is this command's --embed-model,
	// not the model the environment or the file keeps: search embeds its
	// queries with it, but nothing is embedded again under it (that would
	// replace the vectors of the model kept, one per turn, note and passage).
	EmbedModelOneOff bool `toml:"-"`
	// EmbedModelKept is the embedding model the environment or the file
	// sets ("" for the first installed one).
	EmbedModelKept string `toml:"-"`
	// from: where each setting's value came from (SetBy).
	from map[string]string
	// OllamaRegistry is where Ollama downloads models from: when it cannot
	// be reached, the chat does not offer downloads that cannot work.
	// "off" skips the check.
	OllamaRegistry string `toml:"ollama_registry"`
	// Hybrid search: reciprocal rank fusion constant and ranking weights.
	RRFK          int     `toml:"rrf_k"`
	KeywordWeight float64 `toml:"keyword_weight"`
	VectorWeight  float64 `toml:"vector_weight"`
	// Automatic recall: saved notes relevant to a prompt go into the system
	// prompt. On unless recall = false; at most recall_limit notes (1-20,
	// default 5); a note found only by meaning needs a cosine similarity of
	// at least recall_threshold (0-1, default 0.5).
	Recall          *bool    `toml:"recall"`
	RecallLimit     int      `toml:"recall_limit"`
	RecallThreshold *float64 `toml:"recall_threshold"`
	// RecallHalfLifeDays is how many days unused halve a note's freshness
	// in recall ranking (1-3650, default 90).
	RecallHalfLifeDays int `toml:"recall_half_life_days"`
	// Sync with a libSQL server (Turso) and encryption at rest:
	// [sync] url, token, interval; encryption_key (sync.go).
	syncConfig
	// The model's context: num_ctx, num_ctx_max (context.go).
	contextConfig
	// Sliding-window compaction: window_size, compact_at, summary_tokens,
	// summary_model (compact.go).
	compactionConfig
	// Stream timeouts: first_token_timeout, stream_idle_timeout
	// (stream.go).
	streamConfig
	// Retention of unused memory: archive_notes_unused_days,
	// archive_below_confidence, delete_archived_after_days,
	// archive_conversations_after_days (retention.go).
	retentionConfig
	// Memory that builds itself: memory_review, extract_model (learn.go).
	learnConfig
	// Documents: max_doc_mb, doc_chunk_tokens, doc_chunk_overlap,
	// doc_recall (docs.go).
	docsConfig

	// ConfigFile is where the file layer came from (not a file key).
	ConfigFile      string `toml:"-"`
	ConfigFileFound bool   `toml:"-"`
}

// Environment variables mneme reads.
const (
	envDataDir  = "MNEME_DATA_DIR"
	envUser     = "MNEME_USER"
	envModel    = "MNEME_MODEL"
	envConfig   = "MNEME_CONFIG"
	envMaxSteps = "MNEME_MAX_STEPS"
	envLogLevel = "MNEME_LOG_LEVEL"
	envOllama   = "OLLAMA_HOST"
	envEmbed    = "MNEME_EMBED_MODEL"
	envRegistry = "MNEME_OLLAMA_REGISTRY"
)

const defaultOllama = "http://127.0.0.1:11434"

// defaultRegistry is the Ollama library, where `ollama pull NAME` fetches.
const defaultRegistry = "https://registry.ollama.ai"

// Flags are the flags every command takes.
type Flags struct {
	configFile, dataDir, user, ollama, embedModel string
	// Model is --model as given ("" when not).
	Model string
	contextFlags
	// Stream is registered by the commands that stream answers (ask, chat).
	Stream StreamFlags
	// Learn is registered by the commands that learn from turns (ask, chat).
	Learn LearnFlags
}

// Register registers the flags every command takes on fs.
func (c *Flags) Register(fs *flag.FlagSet) {
	// Given empty (a script's unset $DIR), these would fall back to the
	// default: the user's main memory, written without a word.
	fs.Var((*given)(&c.configFile), "config", "config `FILE` (default $XDG_CONFIG_HOME/mneme/config.toml)")
	fs.Var((*given)(&c.dataDir), "data-dir", "the folder `DIR` where mneme keeps its database and logs (env "+envDataDir+")")
	fs.Var((*given)(&c.user), "user", "the `NAME` of the user whose memory to use (env "+envUser+"; default: OS user)")
	fs.Var((*given)(&c.Model), "model", "chat model `NAME` (env "+envModel+"; default: first installed model with tools)")
	fs.Var((*given)(&c.ollama), "ollama", "Ollama's address: a `URL`, or host:port (env "+envOllama+"; default "+defaultOllama+")")
	fs.Var((*given)(&c.embedModel), "embed-model", "embedding model `NAME` (env "+envEmbed+"; default: first installed embedding model)")
	c.contextFlags.register(fs)
}

// given is a flag that, when given, must not be empty.
type given string

func (g *given) String() string { return string(*g) }

func (g *given) Set(s string) error {
	if strings.TrimSpace(s) == "" {
		return errors.New("empty: give a value, or leave the flag out")
	}
	*g = given(s)
	return nil
}

// Load resolves flags, then env, then the config file, then defaults,
// and fails on the first bad setting.
func Load(flags Flags, getenv func(string) string) (Config, error) {
	cfg, problems := Check(flags, getenv)
	for _, p := range problems {
		if !errors.As(p, new(Overridden)) {
			return cfg, p
		}
	}
	return cfg, nil
}

// Check is Load for doctor: it names every bad setting, in the order read,
// and resolves the rest, each bad one as if it were unset (a config file
// that cannot be read as a whole is left out).
//
// Every value a layer gives is checked, not only the one that wins: a bad
// value that a flag or the environment overrides (the file's, the
// environment's) comes after the others, as Overridden. A command is not
// stopped by it (the flag is there to get past it), but doctor names it:
// the next command without the flag would meet it.
func Check(flags Flags, getenv func(string) string) (Config, []error) {
	var file Config
	var problems []error
	typed := map[string]error{} // the file's values of the wrong type, by key
	var typedKeys []string
	l := layers{getenv: getenv, problems: &problems, above: map[string]bool{}, from: map[string]string{}}
	file.ConfigFile = first(flags.configFile, getenv(envConfig))
	explicitFile := file.ConfigFile != ""
	if !explicitFile {
		file.ConfigFile = filepath.Join(xdgDir(getenv, "XDG_CONFIG_HOME", ".config"), "mneme", "config.toml")
	}
	l.file = file.ConfigFile
	meta, err := decodeFile(file.ConfigFile, &file, func(key string, err error) {
		typed[key] = err
		typedKeys = append(typedKeys, key)
	})
	switch {
	case err == nil:
		file.ConfigFileFound = true
		if undecoded := meta.Undecoded(); len(undecoded) > 0 {
			keys := make([]string, len(undecoded))
			for i, k := range undecoded {
				keys[i] = k.String()
			}
			sort.Strings(keys)
			for i, k := range keys {
				if near := nearestKey(k); near != "" {
					keys[i] += " (did you mean " + near + "?)"
				}
			}
			l.bad(fmt.Errorf("config %s: unknown keys: %s", file.ConfigFile, strings.Join(keys, ", ")))
		}
	case errors.Is(err, os.ErrNotExist) && !explicitFile:
	default:
		l.bad(fmt.Errorf("%w %s: %w", ErrConfigFile, file.ConfigFile, err))
		file = Config{ConfigFile: file.ConfigFile}
	}
	var overridden, typedProblems []error
	cfg := resolve(file, flags, getenv, l)
	cfg.from = l.from
	// A value refused is read as unset: it did not set the setting.
	for key, by := range l.from {
		said := by + "=" // MNEME_NUM_CTX=10: …
		switch {
		case by == fileOrigin:
			said = "config " + l.file + ": " + key + " ="
		case strings.HasPrefix(by, "--"):
			said = by + " "
		}
		if slices.ContainsFunc(problems, func(p error) bool { return strings.HasPrefix(p.Error(), said) }) {
			delete(l.from, key)
		}
	}
	for _, key := range typedKeys {
		if l.above[key] {
			overridden = append(overridden, typed[key])
		} else {
			typedProblems = append(typedProblems, badSetting{typed[key]})
		}
	}
	problems = append(typedProblems, problems...) // in the order read: the file's types first
	// The layers below the flags, then the file alone: what they find that
	// the whole did not is a value overridden.
	noEnv := func(string) string { return "" }
	for _, lower := range []layers{{getenv: getenv, file: l.file}, {getenv: noEnv, file: l.file}} {
		var found []error
		lower.problems, lower.above = &found, map[string]bool{}
		resolve(file, Flags{configFile: flags.configFile}, getenv, lower)
		overridden = append(overridden, found...)
	}
	said := map[string]bool{}
	for _, p := range problems {
		said[p.Error()] = true
	}
	for _, o := range overridden {
		if !said[o.Error()] {
			said[o.Error()] = true
			problems = append(problems, Overridden{o})
		}
	}
	return cfg, problems
}

// Overridden is a bad value that a flag or the environment overrides:
// said by doctor, not a reason to stop a command.
type Overridden struct{ error }

func (o Overridden) Error() string {
	return o.error.Error() + "; a flag or the environment overrides it"
}

func (o Overridden) Unwrap() error { return o.error }

// resolve puts the flags and the layers l reads (the environment, through
// l.getenv) over cfg, read from the file, checks every value and fills the
// defaults. getenv gives what is not a setting: the home and XDG folders.
func resolve(cfg Config, flags Flags, getenv func(string) string, l layers) Config {
	if where := l.text("data-dir", flags.dataDir, envDataDir, "data_dir", &cfg.DataDir); cfg.DataDir != "" {
		dir, err := dataDirPath(cfg.DataDir, getenv, strings.HasPrefix(string(where), "config "))
		if err != nil {
			l.bad(fmt.Errorf("%s: %w: %w", where, ErrDataDir, err))
		}
		cfg.DataDir = dir
	}
	if where := l.text("user", flags.user, envUser, "user", &cfg.User); cfg.User != "" {
		// A stray space would be another user, whose memory is empty.
		cfg.User = strings.TrimSpace(cfg.User)
		if cfg.User == "" || strings.IndexFunc(cfg.User, func(r rune) bool { return unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }) >= 0 {
			l.bad(fmt.Errorf("%s: %w: want a name, without control characters", where, ErrConfigValue))
			cfg.User = ""
		}
	}
	l.modelName("model", flags.Model, envModel, "model", &cfg.Model)
	where := l.text("ollama", flags.ollama, envOllama, "ollama", &cfg.Ollama)
	cfg.Ollama = first(cfg.Ollama, defaultOllama)
	if _, err := OllamaURL(cfg.Ollama); err != nil {
		l.bad(fmt.Errorf("%s: %w: %w", withoutUserInfo(string(where)), ErrConfigValue, err))
		cfg.Ollama = defaultOllama
	}
	kept := first(l.getenv(envEmbed), cfg.EmbedModel) // what the next command will use too
	l.modelName("embed-model", flags.embedModel, envEmbed, "embed_model", &cfg.EmbedModel)
	cfg.EmbedModelOneOff, cfg.EmbedModelKept = flags.embedModel != "" && cfg.EmbedModel != kept, kept
	where = l.text("", "", envLogLevel, "log_level", &cfg.LogLevel)
	cfg.LogLevel = first(cfg.LogLevel, "info")
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		l.bad(fmt.Errorf("%s: %w: want debug, info, warn or error", where, ErrConfigValue))
		cfg.LogLevel = "info"
	}
	where = l.text("", "", envRegistry, "ollama_registry", &cfg.OllamaRegistry)
	cfg.OllamaRegistry = first(cfg.OllamaRegistry, defaultRegistry)
	if err := ollama.CheckRegistryURL(cfg.OllamaRegistry); err != nil {
		l.bad(fmt.Errorf("%s: %w: %w", where, ErrConfigValue, err))
		cfg.OllamaRegistry = defaultRegistry
	}
	for _, w := range []whole{
		{key: "max_steps", env: envMaxSteps, dst: &cfg.MaxSteps, lo: 1, hi: agent.MaxStepsLimit, def: agent.DefaultMaxSteps},
		{key: "recall_limit", dst: &cfg.RecallLimit, lo: 1, hi: maxRecallLimit, def: index.DefaultRecallLimit, unit: "notes"},
		{key: "recall_half_life_days", dst: &cfg.RecallHalfLifeDays, lo: 1, hi: maxHalfLifeDays, def: int(index.DefaultRecallHalfLife.Hours() / 24), unit: "days"},
	} {
		w.resolve(l)
	}
	if cfg.RRFK < 0 {
		l.bad(fmt.Errorf("%s: %w: want 0 or more (0: the default)", fromFile(l.file, "rrf_k", cfg.RRFK), ErrConfigValue))
		cfg.RRFK = 0
	}
	for _, w := range []struct {
		key string
		v   *float64
	}{{"keyword_weight", &cfg.KeywordWeight}, {"vector_weight", &cfg.VectorWeight}} {
		if *w.v < 0 || math.IsNaN(*w.v) || math.IsInf(*w.v, 0) {
			l.bad(fmt.Errorf("%s: %w: want 0 or more (0: the default)", fromFile(l.file, w.key, *w.v), ErrConfigValue))
			*w.v = 0
		}
	}
	if t := cfg.RecallThreshold; t != nil && !(*t >= 0 && *t <= 1) {
		l.bad(fmt.Errorf("%s: %w: want 0-1", fromFile(l.file, "recall_threshold", *t), ErrConfigValue))
		cfg.RecallThreshold = nil
	}
	cfg.contextConfig.resolve(flags.contextFlags, l)
	cfg.compactionConfig.resolve(l)
	cfg.streamConfig.resolve(flags.Stream, l)
	cfg.retentionConfig.resolve(l)
	cfg.learnConfig.resolve(flags.Learn, l)
	cfg.docsConfig.resolve(l)
	cfg.syncConfig.resolve(l)
	if cfg.DataDir == "" {
		cfg.DataDir = filepath.Join(xdgDir(getenv, "XDG_DATA_HOME", ".local/share"), "mneme")
	}
	if cfg.User == "" {
		cfg.User = osUserName(getenv)
	}
	return cfg
}

// SetBy says where the value of the config file's key (such as "model" or
// "num_ctx") came from: its flag ("--model"), its environment variable
// ("MNEME_MODEL") or "the config file"; "" when it is the default.
func (c Config) SetBy(key string) string { return c.from[key] }

// dataDirPath is the data dir a setting names: "~/" is the home folder;
// a relative path is taken from the working folder when typed (a flag, the
// environment), and refused in the config file, where it would name
// another memory in every folder mneme is run from ("" when refused).
func dataDirPath(dir string, getenv func(string) string, inFile bool) (string, error) {
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	var path string
	switch {
	case dir == "~" || strings.HasPrefix(dir, "~/"):
		if home == "" {
			return "", errors.New("no home folder to put for ~")
		}
		path = filepath.Join(home, strings.TrimPrefix(dir, "~"))
	case filepath.IsAbs(dir):
		path = filepath.Clean(dir)
	case inFile:
		return "", errors.New("want an absolute path, or one from ~/")
	default:
		var err error
		if path, err = filepath.Abs(dir); err != nil {
			return "", err
		}
	}
	if home != "" && path == filepath.Clean(home) {
		// The home folder itself: mneme would make it owner-only, and
		// doctor would list every file in it.
		return "", errors.New("want a folder of its own, such as ~/mneme, not the home folder")
	}
	return path, nil
}

// xdgDir returns $name, or ~/fallback when it is unset or relative.
func xdgDir(getenv func(string) string, name, fallback string) string {
	if d := getenv(name); filepath.IsAbs(d) {
		return d
	}
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, fallback)
}

func osUserName(getenv func(string) string) string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return first(getenv("USER"), getenv("USERNAME"), "default")
}

// OllamaURL parses an Ollama address the way OLLAMA_HOST is read:
// "host", "host:port", ":port" or a full URL; scheme http and port 11434 by default.
func OllamaURL(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	typed := withoutUserInfo(s) // named whole in errors, a password never
	if strings.Contains(s, "@") {
		return nil, fmt.Errorf("ollama address %q: a user or password in it is not supported", typed)
	}
	scheme := "http"
	if i := strings.Index(s, "://"); i >= 0 {
		scheme, s = s[:i], s[i+3:]
	}
	if scheme != "http" && scheme != "https" {
		return nil, fmt.Errorf("ollama address %q: scheme must be http or https", typed)
	}
	hostport, path, _ := strings.Cut(s, "/")
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		host, port = hostport, ""
		if strings.HasPrefix(host, "[") && strings.HasSuffix(host, "]") { // "[::1]": IPv6 without a port
			host = host[1 : len(host)-1]
		}
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "11434"
		if scheme == "https" {
			port = "443"
		}
	}
	if p, err := strconv.Atoi(port); err != nil || p <= 0 || p > 65535 {
		return nil, fmt.Errorf("ollama address %q: bad port %q", typed, port)
	}
	u := &url.URL{Scheme: scheme, Host: net.JoinHostPort(host, port)}
	if path != "" {
		u.Path = "/" + path
	}
	if _, err := url.Parse(u.String()); err != nil || strings.ContainsAny(host, "[]") { // "http://[::1", a bracket unclosed
		return nil, fmt.Errorf("ollama address %q: bad host %q", typed, host)
	}
	return u, nil
}

// userInfo matches the user and password of an address ("bob:pw@").
var userInfo = regexp.MustCompile(`[^\s/@"=]+@`)

// withoutUserInfo is s with the user and password of an address in it
// left out ("http://…@host").
func withoutUserInfo(s string) string { return userInfo.ReplaceAllString(s, "…@") }

func first(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// maxRecallLimit bounds recall_limit.
const maxRecallLimit = 20

// maxHalfLifeDays bounds recall_half_life_days (ten years).
const maxHalfLifeDays = 3650

// RecallOn reports whether automatic recall is on (the default).
func (c Config) RecallOn() bool { return c.Recall == nil || *c.Recall }

// RecallQuery is the configured recall, without its user and text.
func (c Config) RecallQuery() index.RecallQuery {
	q := index.RecallQuery{Limit: c.RecallLimit, MinSimilarity: index.DefaultRecallSimilarity}
	if q.Limit == 0 {
		q.Limit = index.DefaultRecallLimit
	}
	if c.RecallThreshold != nil {
		q.MinSimilarity = *c.RecallThreshold
	}
	if c.RecallHalfLifeDays > 0 {
		q.HalfLife = time.Duration(c.RecallHalfLifeDays) * 24 * time.Hour
	}
	return q
}

// lastKey finds the key BurntSushi/toml names in a decoding error ("toml:
// line 3 (last key \"max_steps\"): incompatible types: ...").
var lastKey = regexp.MustCompile(`\(last key "([^"]+)"\): (.*)$`)

// decodeFile decodes the config file into cfg. A value of the wrong type
// (max_steps = "eight") is one bad setting, said with bad and read as
// unset, not a file left out whole; what is not TOML at all is the error.
func decodeFile(path string, cfg *Config, bad func(key string, err error)) (toml.MetaData, error) {
	data, err := readConfig(path)
	if err != nil {
		return toml.MetaData{}, err
	}
	base := *cfg
	meta, err := toml.Decode(string(data), cfg)
	if err == nil || lastKey.FindStringSubmatch(err.Error()) == nil {
		return meta, err
	}
	var raw map[string]any
	if _, rerr := toml.Decode(string(data), &raw); rerr != nil {
		return meta, err
	}
	type badValue struct{ key, setting, want string }
	var found []badValue // said in the order of the keys (found in the map's)
	defer func() {
		slices.SortFunc(found, func(a, b badValue) int { return strings.Compare(a.setting, b.setting) })
		for _, f := range found {
			bad(f.key, fmt.Errorf("config %s: %s: %w: %s", path, f.setting, ErrConfigValue, f.want))
		}
	}()
	for range 64 { // each round takes one bad key out
		m := lastKey.FindStringSubmatch(err.Error())
		if m == nil {
			return meta, err
		}
		v, ok := dropKey(raw, strings.Split(m[1], "."))
		if !ok {
			return meta, err
		}
		shown, ok := writtenValue(string(data), m[1])
		if !ok {
			shown = tomlValue(v)
		}
		found = append(found, badValue{m[1], fmt.Sprintf("%s = %s", m[1], shown), wantType(m[2])})
		var buf strings.Builder
		if eerr := toml.NewEncoder(&buf).Encode(raw); eerr != nil {
			return meta, err
		}
		*cfg = base
		if meta, err = toml.Decode(buf.String(), cfg); err == nil || lastKey.FindStringSubmatch(err.Error()) == nil {
			return meta, err
		}
	}
	return meta, err
}

// writtenValue is the value of key ("sync.interval") as the file writes
// it (num_ctx = 1e4, not 10000.0), found in a line of its own; ok is false
// when the file writes it some other way (an inline table).
func writtenValue(data, key string) (string, bool) {
	table := ""
	for _, line := range strings.Split(data, "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") && !strings.HasPrefix(line, "[[") {
			table = strings.Trim(strings.TrimSpace(strings.SplitN(line, "#", 2)[0]), "[] ")
			continue
		}
		k, v, found := strings.Cut(line, "=")
		name := strings.Trim(strings.TrimSpace(k), `"`)
		if table != "" {
			name = table + "." + name
		}
		if !found || name != key {
			continue
		}
		v = strings.TrimSpace(v)
		if !strings.HasPrefix(v, `"`) && !strings.HasPrefix(v, "'") {
			v = strings.TrimSpace(strings.SplitN(v, "#", 2)[0]) // a comment after a bare value
		}
		return v, v != ""
	}
	return "", false
}

// maxConfigBytes bounds a config file (/dev/zero as one never ends).
const maxConfigBytes = 1 << 20

// readConfig reads the config file at path: a regular file, or a pipe or
// device (--config <(…), /dev/stdin, /dev/null: none, as git takes it).
// A pipe is opened without waiting for a writer, then read to its end: a
// named pipe that nobody writes to held every command; it reads as empty.
func readConfig(path string) ([]byte, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if m := fi.Mode(); !m.IsRegular() && m&(os.ModeNamedPipe|os.ModeCharDevice) == 0 {
		return nil, fmt.Errorf("not a regular file (%s)", fileKind(m))
	}
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := syscall.SetNonblock(int(f.Fd()), false); err != nil { // a writer's data is waited for
		return nil, err
	}
	b, err := io.ReadAll(io.LimitReader(f, maxConfigBytes+1))
	if err == nil && len(b) > maxConfigBytes {
		err = fmt.Errorf("larger than %d MiB", maxConfigBytes>>20)
	}
	return b, err
}

// fileKind names what a path that is not a regular file is.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a named pipe"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// dropKey deletes the key at path from a decoded TOML table and returns
// its value.
func dropKey(table map[string]any, path []string) (any, bool) {
	for len(path) > 1 {
		next, ok := table[path[0]].(map[string]any)
		if !ok {
			return nil, false
		}
		table, path = next, path[1:]
	}
	v, ok := table[path[0]]
	delete(table, path[0])
	return v, ok
}

// tomlValue is v as the file wrote it, more or less: strings quoted.
func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return strconv.Quote(v)
	case float64:
		// As written: num_ctx = 4096.0 read "num_ctx = 4096: want a whole number".
		s := strconv.FormatFloat(v, 'f', -1, 64)
		if math.IsInf(v, 0) || math.IsNaN(v) {
			s = fmt.Sprint(v)
		} else if !strings.Contains(s, ".") {
			s += ".0"
		}
		return s
	}
	return fmt.Sprint(v)
}

// wantType says what a setting takes, from BurntSushi/toml's "incompatible
// types: TOML value has type string; destination has type integer".
func wantType(msg string) string {
	_, dst, _ := strings.Cut(msg, "destination has type ")
	switch {
	case strings.HasPrefix(dst, "int"), strings.HasPrefix(dst, "uint"):
		return "want a whole number"
	case strings.HasPrefix(dst, "float"):
		return "want a number"
	case strings.HasPrefix(dst, "string"):
		return "want text in quotes"
	case strings.HasPrefix(dst, "bool"):
		return "want true or false"
	}
	return strings.TrimPrefix(msg, "incompatible types: ")
}
