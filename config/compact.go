package config

import (
	"fmt"
	"strconv"

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
func (c *compactionConfig) resolve(getenv func(string) string, file string) error {
	c.SummaryModel = first(getenv(envSummaryModel), c.SummaryModel)
	for _, n := range []struct {
		env string
		dst *int
	}{{envWindowSize, &c.WindowSize}, {envSummaryTokens, &c.SummaryTokens}} {
		if v := getenv(n.env); v != "" {
			i, err := strconv.Atoi(v)
			if err != nil || i < 0 {
				return fmt.Errorf("%s=%q: want a whole number", n.env, v)
			}
			*n.dst = i
		}
	}
	if v := getenv(envCompactAt); v != "" {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return fmt.Errorf("%s=%q: want a number such as 0.75", envCompactAt, v)
		}
		c.CompactAt = f
	}
	if c.WindowSize == 0 {
		c.WindowSize = agent.DefaultWindowSize
	}
	if c.CompactAt == 0 {
		c.CompactAt = agent.DefaultCompactAt
	}
	if c.SummaryTokens == 0 {
		c.SummaryTokens = agent.DefaultSummaryTokens
	}
	switch {
	case c.WindowSize < minWindowSize || c.WindowSize > maxWindowSize:
		return fmt.Errorf("config %s: window_size = %d: want %d-%d messages", file, c.WindowSize, minWindowSize, maxWindowSize)
	case c.CompactAt < minCompactAt || c.CompactAt > 1:
		return fmt.Errorf("config %s: compact_at = %g: want a share of the context window between %g and 1", file, c.CompactAt, minCompactAt)
	case c.SummaryTokens < minSummaryTokens || c.SummaryTokens > maxSummaryTokens:
		return fmt.Errorf("config %s: summary_tokens = %d: want %d-%d", file, c.SummaryTokens, minSummaryTokens, maxSummaryTokens)
	}
	return nil
}
