package config

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mneme-dev/mneme/agent"
)

// compactionConfig is the sliding-window compaction part of Config (its
// keys sit at the top level of the config file).
type compactionConfig struct {
	// WindowSize bounds the model history in messages (default 30).
	WindowSize int `toml:"window_size"`
	// CompactAt is the share of the context window a request may fill
	// before the history is compacted (default 0.75).
	CompactAt float64 `toml:"compact_at"`
	// SummaryTokens bounds a summary (default 500).
	SummaryTokens int `toml:"summary_tokens"`
	// SummaryModel writes summaries and titles (default: the chat model).
	SummaryModel string `toml:"summary_model"`
}

// Environment variables of compaction.
const (
	envWindowSize    = "MNEME_WINDOW_SIZE"
	envCompactAt     = "MNEME_COMPACT_AT"
	envSummaryTokens = "MNEME_SUMMARY_TOKENS"
	envSummaryModel  = "MNEME_SUMMARY_MODEL"
)

// Bounds of the compaction settings.
const (
	minWindowSize    = 4
	maxWindowSize    = 1000
	minCompactAt     = 0.1
	minSummaryTokens = 16
	maxSummaryTokens = 8192
)

// resolve applies the environment over the file, fills defaults and
// checks the values.
func (c *compactionConfig) resolve(l layers) {
	l.modelName("", "", envSummaryModel, "summary_model", &c.SummaryModel)
	for _, w := range []whole{
		{key: "window_size", env: envWindowSize, dst: &c.WindowSize, lo: minWindowSize, hi: maxWindowSize, def: agent.DefaultWindowSize, unit: "messages"},
		{key: "summary_tokens", env: envSummaryTokens, dst: &c.SummaryTokens, lo: minSummaryTokens, hi: maxSummaryTokens, def: agent.DefaultSummaryTokens, unit: "tokens"},
	} {
		w.resolve(l)
	}
	where := fromFile(l.file, "compact_at", c.CompactAt)
	if v := strings.TrimSpace(l.getenv(envCompactAt)); v != "" {
		l.over("compact_at")
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			l.bad(fmt.Errorf("%s: %w: want a number such as 0.75", fromEnv(envCompactAt, v), ErrConfigValue))
			f = agent.DefaultCompactAt
		}
		c.CompactAt, where = f, fromEnv(envCompactAt, v)
	}
	if c.CompactAt == 0 {
		c.CompactAt = agent.DefaultCompactAt
	}
	if !(c.CompactAt >= minCompactAt && c.CompactAt <= 1) {
		l.bad(fmt.Errorf("%s: %w: want a share of the context window between %g and 1 (0 or unset: %g)", where, ErrConfigValue, minCompactAt, agent.DefaultCompactAt))
		c.CompactAt = agent.DefaultCompactAt
	}
}
