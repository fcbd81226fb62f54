package cli

import (
	"sync"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/recall"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tools"
)

// newAgent builds the agent for a chat model from the session's config:
// the memory tools over ix (sent only when toolsOK, that is when the model
// supports tools) and, unless switched off, automatic recall from ix.
// Without an index (nil) the agent chats without memory.
func (s *session) newAgent(model string, ix *index.Index, toolsOK bool) *agent.Agent {
	opts := []agent.Option{
		agent.WithModel(model),
		agent.WithHost(s.host),
		agent.WithLogger(s.log),
		agent.WithToolsSupported(toolsOK),
		// "The model cannot use tools" is said once per model, not per run.
		agent.WithNoToolsNotice(s.firstNotice("no-tools")),
		agent.WithSmallContextNotice(s.firstNotice("small-context")),
		agent.WithStreamTimeouts(s.cfg.FirstTokenTimeout, s.cfg.StreamIdleTimeout),
		agent.WithMaxAnswerTokens(s.cfg.MaxAnswerTokens),
	}
	if ix != nil {
		opts = append(opts, agent.WithTools(tools.NewRegistry(s.log, tools.MemoryTools(ix)...).WithGate(s.changeGate())),
			agent.WithAttachedPassages(recall.Attached{Index: ix}))
	}
	if ix != nil && s.cfg.RecallOn() {
		opts = append(opts, agent.WithRecaller(recall.Notes{Index: ix, Query: s.cfg.RecallQuery(), Passages: s.cfg.DocRecallOn(), Log: s.log}))
	}
	if s.cfg.MaxSteps > 0 {
		opts = append(opts, agent.WithMaxSteps(s.cfg.MaxSteps))
	}
	if s.cfg.SystemPrompt != "" {
		opts = append(opts, agent.WithSystemPrompt(s.cfg.SystemPrompt))
	}
	opts = append(opts, s.compactOptions()...)
	return agent.New(s.client, s.store, opts...)
}

// compactOptions give an agent sliding-window compaction and model titles.
// The context window, sent as num_ctx with every request, is num_ctx when
// configured, else chosen from what Ollama's /api/show says about the
// model, capped by num_ctx_max (see config.Config).
func (s *session) compactOptions() []agent.Option {
	c := s.cfg
	return []agent.Option{
		agent.WithCompaction(s.store, agent.Compaction{
			WindowSize: c.WindowSize, CompactAt: c.CompactAt, SummaryTokens: c.SummaryTokens,
			SummaryModel: c.SummaryModel, Show: s.client,
			ContextWindow: c.NumCtx, MaxContextWindow: c.NumCtxMax,
		}),
		agent.WithTitles(s.store, s.client),
	}
}

// lastProbe keeps the latest probe for the chat, whose probes run in
// commands while its runners are built in the UI loop.
type lastProbe struct {
	mu sync.Mutex
	st ollamaState
}

func (p *lastProbe) set(st ollamaState) {
	p.mu.Lock()
	p.st = st
	p.mu.Unlock()
}

// toolsSupported is ollamaState.toolsSupported for model, by the latest probe.
func (p *lastProbe) toolsSupported(model string) bool {
	p.mu.Lock()
	st := p.st
	p.mu.Unlock()
	st.Model = model
	return st.ToolsSupported()
}
