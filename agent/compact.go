package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/ollama"
	"github.com/mneme-dev/mneme/memory"
)

// Sliding-window compaction.
//
// The full history (every stored message) never changes. The model history
// of a request is computed from the store each time, so that separate
// processes agree on it: the system prompt, the conversation's latest
// summary (one system message starting with SummaryHeading), then every
// message after the range the summary covers. When that would pass the
// window (window_size messages, or compact_at of the context window in
// tokens), the oldest messages are summarised by the model together with
// the previous summary, and the new summary replaces them. If the model
// cannot summarise, they are only left out for this request, and
// summarising is tried again on the next one.

// Compaction defaults.
const (
	DefaultWindowSize    = 30
	DefaultCompactAt     = 0.75
	DefaultSummaryTokens = 500
	// DefaultSummaryTimeout bounds one summary or title request.
	DefaultSummaryTimeout = 2 * time.Minute
)

// SummaryHeading starts the model-history message that carries the summary.
const SummaryHeading = "Summary of the earlier conversation"

// SummaryStore keeps summaries and the size of the last request; *memory.Store has it.
type SummaryStore interface {
	LatestSummary(ctx context.Context, userID, conversationID string) (memory.Summary, error)
	SaveSummary(ctx context.Context, userID string, s memory.Summary) (memory.Summary, error)
	ContextUsage(ctx context.Context, userID, conversationID string) (memory.ContextUsage, error)
	SaveContextUsage(ctx context.Context, userID, conversationID string, u memory.ContextUsage) error
}

// TitleStore keeps conversation titles and where they came from; *memory.Store has it.
type TitleStore interface {
	ConversationTitle(ctx context.Context, userID, conversationID string) (memory.TitleState, error)
	SetModelTitle(ctx context.Context, userID, conversationID, title string, seq int) (bool, error)
}

// ShowClient asks Ollama about a model; *api.Client has it.
type ShowClient interface {
	Show(ctx context.Context, req *api.ShowRequest) (*api.ShowResponse, error)
}

// Compaction configures sliding-window compaction.
type Compaction struct {
	// WindowSize bounds the model history in messages, the summary
	// included and the system prompt not (default 30, at least 4).
	WindowSize int
	// CompactAt is the share of the context window a request may fill
	// before it is compacted (default 0.75).
	CompactAt float64
	// SummaryTokens bounds a summary's length (default 500).
	SummaryTokens int
	// SummaryModel writes summaries and titles (default: the chat model).
	SummaryModel string
	// ContextWindow is the model's context in tokens (num_ctx), sent with
	// every request. When 0 it is the num_ctx model option, else what
	// ChooseContext makes of /api/show's answer (through Show): the
	// model's num_ctx parameter, else its context_length capped by
	// MaxContextWindow.
	ContextWindow int
	// MaxContextWindow caps a context chosen from the model's
	// context_length (num_ctx_max; default DefaultMaxContext).
	MaxContextWindow int
	Show             ShowClient
	// Timeout bounds one summary or title request (default 2 minutes).
	Timeout time.Duration
}

func (c Compaction) withDefaults() Compaction {
	if c.WindowSize <= 0 {
		c.WindowSize = DefaultWindowSize
	}
	c.WindowSize = max(c.WindowSize, 4)
	if c.CompactAt <= 0 || c.CompactAt > 1 {
		c.CompactAt = DefaultCompactAt
	}
	if c.SummaryTokens <= 0 {
		c.SummaryTokens = DefaultSummaryTokens
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultSummaryTimeout
	}
	if c.MaxContextWindow <= 0 {
		c.MaxContextWindow = DefaultMaxContext
	}
	return c
}

// compactor is the agent's compaction and titling state.
type compactor struct {
	cfg       Compaction
	summaries SummaryStore // nil: no compaction
	titles    TitleStore   // nil: titles stay as derived from the first prompt
	gen       GenerateClient

	mu     sync.Mutex
	choice ContextChoice                  // resolved context, zero until known
	basis  map[string]memory.ContextUsage // per conversation: what the run in flight sent
}

func (a *Agent) compactorState() *compactor {
	if a.compact == nil {
		a.compact = &compactor{cfg: Compaction{}.withDefaults(), basis: map[string]memory.ContextUsage{}}
	}
	return a.compact
}

// WithCompaction keeps the model history inside the window: older messages
// are summarised into store (see Compaction).
func WithCompaction(store SummaryStore, cfg Compaction) Option {
	return func(a *Agent) {
		c := a.compactorState()
		c.summaries, c.cfg = store, cfg.withDefaults()
	}
}

// WithTitles lets the model title conversations through gen: from the
// first exchange, and again from a summary when the topic has clearly
// changed. A title the user set is never replaced.
func WithTitles(store TitleStore, gen GenerateClient) Option {
	return func(a *Agent) {
		c := a.compactorState()
		c.titles, c.gen = store, gen
	}
}

// ContextWindow is the context, in tokens, the agent budgets requests for.
func (a *Agent) ContextWindow(ctx context.Context) int {
	if a.compact == nil {
		return 0
	}
	return a.contextWindow(ctx)
}

func (a *Agent) contextWindow(ctx context.Context) int {
	return a.contextChoice(ctx).Tokens
}

// contextChoice resolves the context once (see Compaction.ContextWindow).
// When /api/show fails the cap is used for this request and the server is
// asked again on the next one.
func (a *Agent) contextChoice(ctx context.Context) ContextChoice {
	c := a.compact
	c.mu.Lock()
	choice := c.choice
	c.mu.Unlock()
	if choice.Tokens > 0 {
		return choice
	}
	configured := c.cfg.ContextWindow
	if configured <= 0 {
		configured = ollama.Number(a.options["num_ctx"])
	}
	// Asked even with num_ctx set: the model's num_predict is read there too.
	known := configured > 0 || c.cfg.Show == nil
	var show *api.ShowResponse
	if c.cfg.Show != nil {
		sctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		resp, err := c.cfg.Show.Show(sctx, &api.ShowRequest{Model: a.model})
		cancel()
		switch {
		case err == nil:
			show, known = resp, true
		case !known:
			a.log.Info("model context unknown; using num_ctx_max", "model", a.model, "max", c.cfg.MaxContextWindow, "err", err)
		}
	}
	choice = ChooseContext(configured, c.cfg.MaxContextWindow, show)
	if known {
		c.mu.Lock()
		c.choice = choice
		c.mu.Unlock()
		a.log.Debug("context chosen", "model", a.model, "context", choice.String())
	}
	return choice
}

// requestOptions are the model options of a chat request: those set with
// WithModelOptions; num_ctx, the context the agent budgets for; and
// num_predict, max_answer_tokens, unless the options set one (or the
// model's Modelfile a lower one). The stream
// is cut at max_answer_tokens too, but Ollama v0.6 sends the reply to a
// request that offers tools only when it is whole: a model caught in a
// loop ran until the first-token timeout, with nothing to count.
func (a *Agent) requestOptions(ctx context.Context) map[string]any {
	opts := make(map[string]any, len(a.options)+2)
	for k, v := range a.options {
		opts[k] = v
	}
	numPredict := a.maxAnswer
	if a.compact != nil {
		choice := a.contextChoice(ctx)
		opts["num_ctx"] = choice.Tokens
		if n := choice.NumPredict; n > 0 && n < numPredict {
			numPredict = n // the Modelfile's, which a request's option would override
		}
	}
	if _, set := opts["num_predict"]; !set {
		opts["num_predict"] = numPredict
	}
	return opts
}

// Token estimates. Ollama's counts are used where known; text not yet
// counted is estimated conservatively (three characters a token, plus a
// little per message for the chat template).
const (
	charsPerToken   = 3
	tokensPerMsg    = 4
	minKeepMessages = 1
)

func estimateText(s string) int {
	return (utf8.RuneCountInString(s) + charsPerToken - 1) / charsPerToken
}

// fixedTokens estimates what every request holds besides the history: the
// system messages and the tool definitions (when tools are sent).
func (a *Agent) fixedTokens(sys []api.Message) int {
	return estimateMessages(sys) + a.toolTokens(true)
}

// toolTokens estimates the tool definitions a request holds when it
// offers tools (withTools) and the model takes them.
func (a *Agent) toolTokens(withTools bool) int {
	if !withTools || a.tools == nil || !a.toolsSupported() {
		return 0
	}
	b, err := json.Marshal(a.tools.Definitions())
	if err != nil {
		return 0
	}
	return estimateText(string(b))
}

func estimateMessages(msgs []api.Message) int {
	n := 0
	for _, m := range msgs {
		n += tokensPerMsg + estimateText(m.Content)
		for _, c := range m.ToolCalls {
			n += estimateText(c.Function.Name) + estimateText(c.Function.Arguments.String())
		}
	}
	return n
}

// modelHistory returns the messages of the next request: sys, then the
// conversation's summary and the messages after it, compacted first when
// they would not fit. all is the full history, the new prompt last. It
// never fails: without a store, or when the store cannot be read, it
// sends the history as it is (Ollama truncates what does not fit).
func (a *Agent) modelHistory(ctx context.Context, req Request, sys []api.Message, all []memory.Message, res *Result, emit func(Event)) []api.Message {
	if a.compact == nil {
		return append(sys, toAPI(all)...)
	}
	if a.compact.summaries == nil {
		return append(sys, toAPI(all)...)
	}
	res.ContextWindow = a.contextWindow(ctx)
	if n := estimateText(req.Prompt); res.ContextWindow > 0 && n > res.ContextWindow {
		// No compaction helps: the prompt alone does not fit.
		res.Truncated = true
		emit(NoticeEvent{Text: fmt.Sprintf("The prompt is about %d tokens, more than the %d the model's context holds: "+
			"the model sees only part of it. Raise num_ctx if the model allows more, or send less.", n, res.ContextWindow)})
	}
	a.tellSmallContext(res.ContextWindow, emit)
	v, err := a.view(ctx, req, all)
	if err != nil {
		a.log.Warn("model history: summary unreadable; sending the full history", "conversation", req.ConversationID, "err", err)
		return append(sys, toAPI(all)...)
	}
	if a.overflows(ctx, req, sys, v, res.ContextWindow) {
		v = a.compactView(ctx, req, sys, v, false, res, emit)
	}
	a.setBasis(req.ConversationID, v)
	return append(sys, v.messages()...)
}

// tellSmallContext tells the user, once per agent (and per model with
// WithSmallContextNotice), when the tool definitions take more than half
// of the context: compaction then runs every turn or two, and each
// summary costs a model call (a model run with num_ctx 2048 was compacted
// on every turn, without a word).
func (a *Agent) tellSmallContext(window int, emit func(Event)) {
	tools := a.toolTokens(true)
	if window <= 0 || tools <= window/2 {
		return
	}
	a.mu.Lock()
	first := !a.toldCtx
	a.toldCtx = true
	a.mu.Unlock()
	if first && a.firstSmall != nil {
		first = a.firstSmall(a.model)
	}
	if first {
		emit(NoticeEvent{Text: fmt.Sprintf("The model runs with a %d-token context, and mneme's memory tools take about %d tokens of it: "+
			"the conversation is summarised every turn or two. Set num_ctx to %d or more if your machine allows.", window, tools, 2*nextPow2(tools))})
	}
}

// nextPow2 is the least power of two at least n.
func nextPow2(n int) int {
	p := 1
	for p < n {
		p *= 2
	}
	return p
}

// view is a model history: the summary (if any) and the messages after it.
type view struct {
	summary memory.Summary // zero: none
	tail    []memory.Message
}

func (v view) messages() []api.Message {
	var out []api.Message
	if v.summary.ID != "" {
		out = append(out, api.Message{Role: string(memory.RoleSystem), Content: summaryMessage(v.summary)})
	}
	return append(out, toAPI(v.tail)...)
}

func (v view) count() int {
	n := len(v.tail)
	if v.summary.ID != "" {
		n++
	}
	return n
}

func summaryMessage(s memory.Summary) string {
	return fmt.Sprintf("%s (messages %d-%d; the messages after it follow verbatim):\n%s", SummaryHeading, s.FirstSeq, s.LastSeq, s.Text)
}

// view reads the latest summary and cuts the history after it.
func (a *Agent) view(ctx context.Context, req Request, all []memory.Message) (view, error) {
	sum, err := a.compact.summaries.LatestSummary(ctx, req.UserID, req.ConversationID)
	switch {
	case errors.Is(err, memory.ErrNotFound):
		return view{tail: all}, nil
	case err != nil:
		return view{}, err
	}
	v := view{summary: sum}
	for i, m := range all {
		if m.Seq > sum.LastSeq {
			v.tail = all[i:]
			break
		}
	}
	return v, nil
}

// overflows reports whether the next request would pass the window: more
// than window_size messages, or more than compact_at of the context.
func (a *Agent) overflows(ctx context.Context, req Request, sys []api.Message, v view, window int) bool {
	cfg := a.compact.cfg
	if v.count() > cfg.WindowSize {
		return true
	}
	tokens, _ := a.measure(ctx, req, sys, v)
	return tokens > int(cfg.CompactAt*float64(window))
}

// minScale bounds how far below the estimate a measured count may bring
// later estimates: some Ollama versions counted only the part of a prompt
// their cache did not hold, and a count that low would let a history grow
// past the context unsummarised.
const minScale = 0.5

// measure is the size of the request for v: Ollama's count of the last
// request when it held the same summary and started at the same message,
// plus an estimate of what was added since; else an estimate of the whole.
// Ollama counts the whole prompt, the part it found in its cache included
// (prompt_eval_count of one request sent twice to v0.6.5 is the same; its
// runners report the prompt's length), so a count below the estimate is
// believed: three characters a token overestimated the tool definitions
// of a real model fourfold, and compacted every turn a request that used
// half its context. scale is the count over the estimate (at least
// minScale), to correct estimates of parts of the request.
func (a *Agent) measure(ctx context.Context, req Request, sys []api.Message, v view) (tokens int, scale float64) {
	est := a.fixedTokens(sys) + estimateMessages(v.messages())
	if len(v.tail) == 0 {
		return est, 1
	}
	u, err := a.compact.summaries.ContextUsage(ctx, req.UserID, req.ConversationID)
	if err != nil || u.Tokens <= 0 || u.SummaryID != v.summary.ID || u.FirstSeq != v.tail[0].Seq {
		return est, 1
	}
	var added []memory.Message
	for _, m := range v.tail {
		if m.Seq > u.LastSeq {
			added = append(added, m)
		}
	}
	measured := u.Tokens + estimateMessages(toAPI(added))
	scale = max(float64(measured)/float64(max(est, 1)), minScale)
	return int(scale * float64(est)), scale
}

// plan chooses where to cut v.tail: the messages before the cut leave the
// model history, the rest stay. The history has the room compact_at leaves
// besides the system messages, tools and summary; it keeps whole turns (it
// starts at a user message, so no answer is kept without its question and
// no tool result without its call) filling at most half that room and
// window_size, so that a long conversation is summarised every few turns
// rather than on every one. The last exchange stays whole when it fits the
// room (a model left with only the new prompt could not follow "and the
// second one?"). With force it keeps the last turn (from the last user
// message on), whatever its size: a second /compact summarised a question
// and kept its answer alone.
func (a *Agent) plan(sys []api.Message, v view, window int, scale float64, force bool) int {
	cfg := a.compact.cfg
	size := func(keep int) int { return int(scale * float64(estimateMessages(toAPI(v.tail[len(v.tail)-keep:])))) }
	// turnsFrom is how many messages the last n turns hold (from the n-th
	// user message from the end on; the whole tail when there are fewer).
	turnsFrom := func(n int) int {
		for i := len(v.tail) - 1; i >= 0; i-- {
			if m := v.tail[i]; m.Role == memory.RoleUser && strings.TrimSpace(m.Content) != "" {
				if n--; n == 0 {
					return len(v.tail) - i
				}
			}
		}
		return len(v.tail)
	}
	if force {
		return len(v.tail) - turnsFrom(1)
	}
	keep, whole := max(minKeepMessages, (cfg.WindowSize-1)/2), turnsFrom(2)
	keep = min(keep, len(v.tail))
	// The summary's share is the longest one summaryCall keeps, as estimated.
	summary := cfg.SummaryTokens * maxSummaryChars / charsPerToken
	fixed := a.fixedTokens(sys) // the tool definitions are marshalled to count them: once
	room := int(cfg.CompactAt*float64(window)) - int(scale*float64(fixed+summary))
	for keep > minKeepMessages && size(keep) > room/2 {
		keep--
	}
	if keep < whole && whole <= len(v.tail) && whole < cfg.WindowSize && size(whole) <= room {
		keep = whole
	}
	for keep > minKeepMessages && v.tail[len(v.tail)-keep].Role != memory.RoleUser {
		keep--
	}
	a.log.Debug("compaction plan", "room", room, "scale", scale, "fixed", fixed, "keep", keep, "whole", whole)
	return len(v.tail) - keep
}

// compactView summarises the oldest messages of v into a new summary and
// returns the history that follows from it. When the model cannot
// summarise, they are left out of this request only, and the user is told.
func (a *Agent) compactView(ctx context.Context, req Request, sys []api.Message, v view, force bool, res *Result, emit func(Event)) view {
	window := a.contextWindow(ctx)
	_, scale := a.measure(ctx, req, sys, v)
	cut := a.plan(sys, v, window, scale, force)
	if cut == 0 {
		return v
	}
	evicted, kept := v.tail[:cut], v.tail[cut:]
	emit(CompactingEvent{Messages: len(evicted)})
	start := time.Now()
	sum, covered, err := a.summarise(ctx, req, v.summary, evicted, window, v.tail[len(v.tail)-1].Seq)
	if err != nil {
		res.Dropped = len(evicted)
		switch {
		case ctx.Err() != nil:
		case force:
			a.log.Warn("forced summary failed", "conversation", req.ConversationID, "err", err)
			emit(NoticeEvent{Text: fmt.Sprintf("Could not summarise the conversation (%v); nothing was changed.", err)})
		default:
			a.log.Warn("summarising failed; leaving the oldest messages out of this request",
				"conversation", req.ConversationID, "messages", len(evicted), "err", err)
			emit(NoticeEvent{Text: fmt.Sprintf("Could not summarise the %d oldest messages (%v): they are left out of the model's view "+
				"for this answer, stay saved, and summarising will be tried again on the next one.", len(evicted), err)})
		}
		return view{summary: v.summary, tail: kept}
	}
	res.Compacted = true
	a.log.Info("compacted", "conversation", req.ConversationID, "forced", force, "window", window,
		"summarised", covered, "kept", len(kept), "first_seq", sum.FirstSeq, "last_seq", sum.LastSeq,
		"summary_chars", len(sum.Text), "took", time.Since(start).Round(time.Millisecond))
	emit(CompactedEvent{Summary: sum.Text, FirstSeq: sum.FirstSeq, LastSeq: sum.LastSeq, AtSeq: sum.AtSeq})
	if covered < len(evicted) {
		res.Dropped = len(evicted) - covered
	}
	return view{summary: sum, tail: kept}
}

func (a *Agent) setBasis(conversationID string, v view) {
	u := memory.ContextUsage{SummaryID: v.summary.ID}
	if len(v.tail) > 0 {
		u.FirstSeq = v.tail[0].Seq
	}
	a.compact.mu.Lock()
	a.compact.basis[conversationID] = u
	a.compact.mu.Unlock()
}

// recordUsage stores Ollama's count of the run's last request for the
// next run's estimate.
func (a *Agent) recordUsage(ctx context.Context, req Request, res *Result) {
	if a.compact == nil || a.compact.summaries == nil {
		return
	}
	a.compact.mu.Lock()
	u, ok := a.compact.basis[req.ConversationID]
	delete(a.compact.basis, req.ConversationID)
	a.compact.mu.Unlock()
	if !ok || res.ContextTokens <= 0 || res.estimated || res.Truncated {
		return // a request Ollama cut to fit counts as the context, not as itself
	}
	u.Tokens = res.ContextTokens
	if err := a.compact.summaries.SaveContextUsage(context.WithoutCancel(ctx), req.UserID, req.ConversationID, u); err != nil {
		a.log.Warn("context usage not recorded", "conversation", req.ConversationID, "err", err)
	}
}

// Compact forces compaction of a conversation: everything before its last
// turn is summarised. Events go to emit as in Run, ending with a DoneEvent
// (Result.Compacted tells whether a summary was made) or an ErrorEvent.
func (a *Agent) Compact(ctx context.Context, userID, conversationID string, emit func(Event)) (res Result, err error) {
	if emit == nil {
		emit = func(Event) {}
	}
	res = Result{ConversationID: conversationID, Model: a.model, ToolCalls: []ToolActivity{}, MemoriesUsed: []Memory{}}
	defer func() {
		if err != nil {
			emit(ErrorEvent{Err: err, Result: res})
			return
		}
		emit(DoneEvent{Result: res})
	}()
	if a.compact == nil || a.compact.summaries == nil {
		return res, ErrNoCompaction
	}
	if a.model == "" {
		return res, fmt.Errorf("%w: pull one with `ollama pull llama3.2` or set --model", ErrNoModel)
	}
	req := Request{UserID: userID, ConversationID: conversationID}
	all, err := a.store.Messages(ctx, userID, conversationID)
	if err != nil {
		return res, fmt.Errorf("load history: %w", err)
	}
	res.ContextWindow = a.contextWindow(ctx)
	v, err := a.view(ctx, req, all)
	if err != nil {
		return res, fmt.Errorf("load summary: %w", err)
	}
	a.compactView(ctx, req, a.systemMessages(nil), v, true, &res, emit)
	switch {
	case res.Compacted:
	case res.Dropped == 0 && v.summary.ID != "":
		emit(NoticeEvent{Text: "Nothing to compact: the conversation is already compacted up to its last turn."})
	case res.Dropped == 0:
		emit(NoticeEvent{Text: "Nothing to compact yet: the conversation is only its last turn."})
	default:
		res.Dropped = 0 // a forced compaction that failed leaves nothing out of anything
	}
	return res, nil
}
