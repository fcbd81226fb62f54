package cli

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/printer"
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
			agent.WithAttachedPassages(attachedPassages{ix}))
	}
	if ix != nil && s.cfg.RecallOn() {
		opts = append(opts, agent.WithRecaller(noteRecaller{ix: ix, q: s.cfg.RecallQuery(), passages: s.cfg.DocRecallOn(), log: s.log}))
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

// noteRecaller recalls notes from the index for the agent and, with
// passages (doc_recall), a passage of the user's documents that is
// clearly about the prompt.
type noteRecaller struct {
	ix       *index.Index
	q        index.RecallQuery
	passages bool
	log      *slog.Logger
}

func (r noteRecaller) Recall(ctx context.Context, userID, text string) ([]agent.Memory, error) {
	q := r.q
	q.UserID, q.Text = userID, text
	found, err := r.ix.Recall(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]agent.Memory, len(found), len(found)+1)
	for i, n := range found {
		out[i] = agent.Memory{NoteID: n.ID, Text: n.Content}
	}
	if r.passages {
		h, ok, err := r.ix.RecallPassage(ctx, index.PassageQuery{UserID: userID, Text: text})
		if err != nil {
			// A passage is an extra: the notes still go in.
			r.log.Warn("no passage recalled", "err", err)
		}
		if ok {
			out = append(out, passageMemory(h))
		}
	}
	return out, nil
}

// passageMemory is a passage as it goes before the model, and under the
// answer as a source.
func passageMemory(h index.DocHit) agent.Memory {
	source := strings.Join(append([]string{filepath.Base(h.Path)}, printer.Place(h.Page, h.Heading)...), " · ")
	return agent.Memory{Text: h.Passage, Source: source, Citation: &agent.Citation{
		DocumentID: h.DocumentID, Path: h.Path, Title: h.Title, Heading: h.Heading, Page: h.Page, Chunk: h.Chunk, Passage: h.Passage,
	}}
}

// attachedPassages reads the documents just attached (/attach) into the
// next prompt, for a model that does not search them itself.
type attachedPassages struct{ ix *index.Index }

func (r attachedPassages) RecallAttached(ctx context.Context, userID, text string, docIDs []string) ([]agent.Memory, error) {
	hits, err := r.ix.AttachedPassages(ctx, index.AttachedQuery{UserID: userID, Text: text, Documents: docIDs})
	out := make([]agent.Memory, len(hits))
	for i, h := range hits {
		out[i] = passageMemory(h)
	}
	return out, err
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
