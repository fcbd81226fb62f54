package main

import (
	"context"
	"fmt"
	"strconv"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
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

// compactOptions give an agent sliding-window compaction and model titles.
// The context window, sent as num_ctx with every request, is num_ctx when
// configured, else chosen from what Ollama's /api/show says about the
// model, capped by num_ctx_max (see contextConfig).
func (s *session) compactOptions() []agent.Option {
	c := s.cfg.compactionConfig
	return []agent.Option{
		agent.WithCompaction(s.store, agent.Compaction{
			WindowSize: c.WindowSize, CompactAt: c.CompactAt, SummaryTokens: c.SummaryTokens,
			SummaryModel: c.SummaryModel, Show: s.client,
			ContextWindow: s.cfg.NumCtx, MaxContextWindow: s.cfg.NumCtxMax,
		}),
		agent.WithTitles(s.store, s.client),
	}
}

// pendingTitleLimit is how many of the latest conversations the chat
// checks for a missing model title when it starts.
const pendingTitleLimit = 20

// titlePending lets the model title the latest conversations that have an
// answer but were never titled by it: those `mneme ask` made, which exits
// without waiting for a title. The chat runs it in the background once
// Ollama is found; conversations already titled, or named by the user,
// cost one read each. Failures are logged: a conversation keeps the title
// derived from its first prompt.
func (s *session) titlePending(ctx context.Context, ag *agent.Agent) {
	list, err := s.store.ListConversations(ctx, s.cfg.User, memory.ListOptions{Limit: pendingTitleLimit})
	if err != nil {
		s.log.Warn("pending titles", "err", err)
		return
	}
	for _, c := range list {
		if ctx.Err() != nil {
			return
		}
		if _, err := ag.Retitle(ctx, s.cfg.User, c.ID); err != nil {
			s.log.Warn("title", "conversation", c.ID, "err", err)
		}
	}
}

// Retitle titles the conversation from its first exchange (tui.Titler).
func (r indexingRunner) Retitle(ctx context.Context, userID, conversationID string) (bool, error) {
	return r.agent.Retitle(ctx, userID, conversationID)
}

// Compact forces compaction of the conversation (tui.Compactor); the new
// summary is indexed for search.
func (r indexingRunner) Compact(ctx context.Context, userID, conversationID string, emit func(agent.Event)) (agent.Result, error) {
	res, err := r.agent.Compact(ctx, userID, conversationID, emit)
	r.index.Notify(memory.ConversationRef{UserID: userID, ConversationID: conversationID})
	return res, err
}

// findConversations ranks the user's conversations for a description
// (tui.Config.Find, conversations --find).
func findConversations(ix *index.Index) func(ctx context.Context, userID, description string) ([]index.ConversationMatch, error) {
	return func(ctx context.Context, userID, description string) ([]index.ConversationMatch, error) {
		return ix.FindConversations(ctx, index.FindQuery{UserID: userID, Text: description})
	}
}
