package config

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/agent"
)

// streamConfig bounds how long an answer may wait for Ollama (its keys sit
// at the top level of the config file): first_token_timeout for the first
// chunk of a model call, which covers loading the model and reading the
// prompt, then stream_idle_timeout between chunks. A stream silent for
// longer is cut and its partial answer kept. Values are durations such as
// "90s" or "2m", or a number of seconds. max_answer_tokens bounds how long
// one answer may grow.
type streamConfig struct {
	FirstTokenTimeoutText seconds `toml:"first_token_timeout"`
	StreamIdleTimeoutText seconds `toml:"stream_idle_timeout"`
	// MaxAnswerTokens cuts one model call's answer (thinking included)
	// after about this many tokens (0 or unset: agent.DefaultMaxAnswerTokens).
	MaxAnswerTokens int `toml:"max_answer_tokens"`

	FirstTokenTimeout time.Duration `toml:"-"`
	StreamIdleTimeout time.Duration `toml:"-"`
}

// Environment variables of the stream timeouts.
const (
	envFirstTokenTimeout = "MNEME_FIRST_TOKEN_TIMEOUT"
	envStreamIdleTimeout = "MNEME_STREAM_IDLE_TIMEOUT"
	envMaxAnswerTokens   = "MNEME_MAX_ANSWER_TOKENS"
)

// Bounds of the stream timeouts.
const (
	minStreamTimeout = time.Second
	maxStreamTimeout = time.Hour
	minAnswerTokens  = 16
	maxAnswerTokens  = 1 << 20
)

// StreamFlags are the flags of the commands that stream answers.
type StreamFlags struct {
	firstToken, idle string
}

// Register registers the stream flags on fs.
func (f *StreamFlags) Register(fs *flag.FlagSet) {
	fs.StringVar(&f.firstToken, "first-token-timeout", "", fmt.Sprintf(
		"give up when Ollama sends nothing for this `DURATION` at the start of an answer, e.g. 90s or 5m (env %s; default %s)",
		envFirstTokenTimeout, agent.DefaultFirstTokenTimeout))
	fs.StringVar(&f.idle, "stream-idle-timeout", "", fmt.Sprintf(
		"give up when Ollama sends nothing for this `DURATION` mid-answer; the partial answer is kept (env %s; default %s)",
		envStreamIdleTimeout, agent.DefaultStreamIdleTimeout))
}

// resolve applies flags, then the environment, over the file, fills the
// defaults and checks the values.
func (c *streamConfig) resolve(flags StreamFlags, l layers) {
	for _, s := range []struct {
		key, flag, env string
		text           *string
		dst            *time.Duration
		def            time.Duration
	}{
		{"first_token_timeout", flags.firstToken, envFirstTokenTimeout, (*string)(&c.FirstTokenTimeoutText), &c.FirstTokenTimeout, agent.DefaultFirstTokenTimeout},
		{"stream_idle_timeout", flags.idle, envStreamIdleTimeout, (*string)(&c.StreamIdleTimeoutText), &c.StreamIdleTimeout, agent.DefaultStreamIdleTimeout},
	} {
		where := l.text(strings.ReplaceAll(s.key, "_", "-"), s.flag, s.env, s.key, s.text)
		if *s.text == "" {
			*s.dst = s.def
			continue
		}
		d, err := parseSeconds(*s.text)
		if err == nil && d == 0 { // 0 is unset, as for every number with a default
			*s.dst = s.def
			continue
		}
		if err != nil || d < minStreamTimeout || d > maxStreamTimeout {
			l.bad(fmt.Errorf("%s: %w: want a duration from %s to %s, such as 90s or 2m", where, ErrConfigValue, minStreamTimeout, maxStreamTimeout))
			*s.text, d = "", s.def
		}
		*s.dst = d
	}
	whole{key: "max_answer_tokens", env: envMaxAnswerTokens, dst: &c.MaxAnswerTokens,
		lo: minAnswerTokens, hi: maxAnswerTokens, def: agent.DefaultMaxAnswerTokens, unit: "tokens"}.resolve(l)
}

// seconds is a timeout as the file writes it: text ("90s", "2m") or a bare
// number of seconds (90), as the flags and the environment take it.
type seconds string

// UnmarshalTOML takes text or a number.
func (t *seconds) UnmarshalTOML(v any) error {
	switch v := v.(type) {
	case string:
		*t = seconds(v)
	case int64:
		*t = seconds(strconv.FormatInt(v, 10))
	case float64:
		*t = seconds(strconv.FormatFloat(v, 'f', -1, 64))
	default:
		return fmt.Errorf("incompatible types: TOML value has type %T; destination has type string", v)
	}
	return nil
}

// parseSeconds reads a Go duration ("90s", "2m") or a number of seconds.
func parseSeconds(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return time.Duration(f * float64(time.Second)), nil
	}
	return time.ParseDuration(s)
}
