package config

import (
	"errors"
	"flag"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// A setting's value comes from its flag, else its environment variable,
// else the config file, else its default; every value is checked the same
// way whichever gave it, and an error names the one that did, as the user
// wrote it: "--num-ctx 10", "MNEME_NUM_CTX=10", or "config FILE:
// num_ctx = 10".

// origin is where a setting's value came from, said in its errors.
type origin string

// plainArg is a value a shell needs no quotes for.
var plainArg = regexp.MustCompile(`^[A-Za-z0-9_.:/+@%,-]+$`)

// asTyped writes v as a shell would need it: bare, or quoted.
func asTyped(v string) string {
	if plainArg.MatchString(v) {
		return v
	}
	return strconv.Quote(v)
}

func fromFlag(name, v string) origin { return origin("--" + name + " " + asTyped(v)) }

// badFlagValue matches the flag package's error for a value its flag refused.
var badFlagValue = regexp.MustCompile(`^invalid (?:boolean )?value ("(?:[^"\\]|\\.)*") for (?:flag )?-(\S+): (.*)$`)

// BadFlagValue words fs.Parse's err about a value a flag refused as a bad
// setting from the environment or the file is worded ("--num-ctx abc:
// invalid value: want a whole number of tokens"); ok is false for another
// error (an unknown flag).
func BadFlagValue(fs *flag.FlagSet, err error) (msg string, ok bool) {
	m := badFlagValue.FindStringSubmatch(err.Error())
	if m == nil {
		return "", false
	}
	v, _ := strconv.Unquote(m[1])
	return fmt.Sprintf("%s: invalid value: %s", fromFlag(m[2], v), wantOf(fs.Lookup(m[2]), m[3])), true
}

// wantOf says what flag f takes when the flag package only said why not
// ("parse error").
func wantOf(f *flag.Flag, why string) string {
	if why != "parse error" || f == nil {
		return why
	}
	switch fmt.Sprintf("%T", f.Value) {
	case "*flag.intValue", "*flag.int64Value", "*flag.uintValue":
		return "want a whole number"
	case "*flag.boolValue":
		return "want true or false"
	case "*flag.durationValue":
		return "want a duration such as 90s"
	}
	return why
}

func fromEnv(name, v string) origin { return origin(name + "=" + asTyped(v)) }

// fromFile writes the key as TOML would: strings quoted, numbers bare.
func fromFile(file, key string, v any) origin {
	if s, ok := v.(string); ok {
		return origin(fmt.Sprintf("config %s: %s = %q", file, key, s))
	}
	return origin(fmt.Sprintf("config %s: %s = %v", file, key, v))
}

// fileOrigin is where a value the config file gave came from (SetBy).
const fileOrigin = "the config file"

// layers are the places below the flags a setting is read from.
type layers struct {
	getenv func(string) string
	file   string
	// problems gathers every bad setting, in the order read; each is left
	// at its default, so that doctor can check the rest.
	problems *[]error
	// above holds the keys a flag or the environment set: the file's
	// value, if any, is overridden.
	above map[string]bool
	// from holds where each key set came from: "--model", "MNEME_MODEL",
	// "the config file" (Config.SetBy).
	from map[string]string
}

// set notes that key's value came from where (nil from: not noted).
func (l layers) set(key, where string) {
	if l.from != nil {
		l.from[key] = where
	}
}

// over notes that a flag or the environment gave key's value.
func (l layers) over(key string) {
	if l.above != nil {
		l.above[key] = true
	}
}

// bad notes a bad setting: whatever err wraps, it is ErrConfigValue too.
func (l layers) bad(err error) { *l.problems = append(*l.problems, badSetting{err}) }

// badSetting is a problem of a setting, said as err says it.
type badSetting struct{ error }

func (b badSetting) Unwrap() []error { return []error{b.error, ErrConfigValue} }

// text sets *dst from the flag value (when not ""), else from the
// environment variable env (when set and env is not ""), keeping the
// file's value otherwise, and says where it came from. flagName "" means
// the setting has no flag.
func (l layers) text(flagName, flagValue, env, key string, dst *string) origin {
	switch {
	case flagName != "" && flagValue != "":
		*dst = flagValue
		l.over(key)
		l.set(key, "--"+flagName)
		return fromFlag(flagName, flagValue)
	case env != "" && l.getenv(env) != "":
		*dst = l.getenv(env)
		l.over(key)
		l.set(key, env)
		return fromEnv(env, *dst)
	case *dst != "":
		if _, set := l.from[key]; !set { // sync.url is read twice: TURSO_DATABASE_URL, then MNEME_SYNC_URL
			l.set(key, fileOrigin)
		}
	}
	return fromFile(l.file, key, *dst)
}

// modelName is text for the name of a model, which must be one Ollama
// could hold: it is printed in commands to run (`ollama pull NAME`), so
// white space and control characters are refused, not dropped.
func (l layers) modelName(flagName, flagValue, env, key string, dst *string) {
	where := l.text(flagName, flagValue, env, key, dst)
	odd := func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) }
	if strings.IndexFunc(*dst, odd) >= 0 {
		*dst = ""
		l.bad(fmt.Errorf("%s: %w: a model name has no spaces or control characters, such as llama3.2 or qwen2.5:7b", where, ErrConfigValue))
	}
}

// whole is a whole-number setting. Zero is "unset": it becomes def.
type whole struct {
	key, env string
	flagName string   // "": no flag
	flag     *intFlag // nil: no flag
	dst      *int
	lo, hi   int    // the bounds of a set value
	def      int    // what 0 becomes
	unit     string // "tokens", "messages", …, said in the bounds
}

// resolve reads the setting through the layers and checks it.
func (w whole) resolve(l layers) {
	file := *w.dst
	if err := w.read(l); err != nil {
		l.bad(err)
		// Read as unset: the layer below it, else the default.
		*w.dst = file
		if file == 0 || file < w.lo || file > w.hi {
			*w.dst = w.def
		}
	}
}

func (w whole) read(l layers) error {
	where := fromFile(l.file, w.key, *w.dst)
	v := strings.TrimSpace(envOf(l, w.env))
	switch {
	case w.flag != nil && w.flag.set:
		l.over(w.key)
		l.set(w.key, "--"+w.flagName)
	case v != "":
		l.over(w.key)
		l.set(w.key, w.env)
	case *w.dst != 0:
		l.set(w.key, fileOrigin)
	}
	switch {
	case w.flag != nil && w.flag.set:
		*w.dst, where = w.flag.n, fromFlag(w.flagName, strconv.Itoa(w.flag.n))
	case v != "":
		n, err := strconv.Atoi(v)
		if errors.Is(err, strconv.ErrRange) { // a whole number, far out of range
			return fmt.Errorf("%s: %w: want %d-%d%s (%s)", fromEnv(w.env, l.getenv(w.env)), ErrConfigValue, w.lo, w.hi, w.of(), w.unsetMeans())
		}
		if err != nil {
			return fmt.Errorf("%s: %w: want a whole number%s", fromEnv(w.env, l.getenv(w.env)), ErrConfigValue, strings.Replace(w.of(), " ", " of ", 1))
		}
		*w.dst, where = n, fromEnv(w.env, v)
	}
	if *w.dst == 0 {
		*w.dst = w.def
		return nil
	}
	if *w.dst < w.lo || *w.dst > w.hi {
		return fmt.Errorf("%s: %w: want %d-%d%s (%s)", where, ErrConfigValue, w.lo, w.hi, w.of(), w.unsetMeans())
	}
	return nil
}

func (w whole) unsetMeans() string {
	if w.def == 0 {
		return "0 leaves it unset"
	}
	return fmt.Sprintf("0 or unset: %d", w.def)
}

// of is the unit, spaced: " tokens", or "".
func (w whole) of() string {
	if w.unit == "" {
		return ""
	}
	return " " + w.unit
}

func envOf(l layers, env string) string {
	if env == "" {
		return ""
	}
	return l.getenv(env)
}
