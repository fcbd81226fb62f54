// Package agent runs mneme's chat loop: it builds the request, streams the
// answer through Ollama, runs tool calls, stores every message, and emits
// typed events. It knows nothing about the terminal UI.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/ollama"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/tools"
)

// ChatClient is the one Ollama call the agent needs; *api.Client has it.
type ChatClient interface {
	Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error
}

// heartbeater is a client that can say whether Ollama is up at all
// (api.Client's Heartbeat, a HEAD /).
type heartbeater interface {
	Heartbeat(ctx context.Context) error
}

// heartbeatWait bounds the check before a prompt is stored: a slow or hung
// Ollama is not waited for here (the stream's timeouts deal with it).
const heartbeatWait = 2 * time.Second

// checkReachable makes sure, before the agent stores a prompt, that
// Ollama is there at all: with nothing listening at its address, the
// prompt is not stored (no turn left with an empty answer) and the run
// fails with ErrNotSent and ErrOllamaUnreachable, so that the prompt goes
// back to the user. Stopped meanwhile, it fails with ErrNotSent alone.
func (a *Agent) checkReachable(ctx context.Context) error {
	hb, ok := a.client.(heartbeater)
	if !ok {
		return nil
	}
	hctx, cancel := context.WithTimeout(ctx, heartbeatWait)
	defer cancel()
	err := hb.Heartbeat(hctx)
	switch {
	case ctx.Err() != nil:
		return fmt.Errorf("%w: stopped before it was sent", ErrNotSent)
	case err == nil || hctx.Err() != nil || !IsUnreachable(err):
		return nil // up, or slow: the model call finds out
	}
	return fmt.Errorf("%w: %w", ErrNotSent, a.explain(err))
}

// Store is where the agent reads history and writes messages.
type Store interface {
	Messages(ctx context.Context, userID, conversationID string) ([]memory.Message, error)
	AppendMessage(ctx context.Context, userID string, m memory.Message) (memory.Message, error)
	// UpdateMessage rewrites an answer saved while it streamed.
	UpdateMessage(ctx context.Context, userID string, m memory.Message) error
}

// ToolRunner lists and runs the tools offered to the model.
type ToolRunner interface {
	Definitions() api.Tools
	Execute(ctx context.Context, s tools.Session, c tools.Call) (tools.Result, error)
}

// DefaultMaxSteps bounds model calls per prompt.
const DefaultMaxSteps = 8

// DefaultSystemPrompt is sent first in every request unless configured.
const DefaultSystemPrompt = "You are mneme, a helpful assistant running in the user's terminal. " +
	"Answer clearly and concisely, using Markdown where it helps."

// Agent runs prompts against one model. It is safe for concurrent use, but
// a conversation should have one run at a time.
type Agent struct {
	client   ChatClient
	store    Store
	tools    ToolRunner
	model    string
	system   string
	maxSteps int
	options  map[string]any
	host     string
	log      *slog.Logger
	now      func() time.Time
	recaller Recaller
	attached AttachedRecaller
	compact  *compactor // nil: no compaction or titles
	// firstToken and idle bound the wait for Ollama's first chunk and
	// between chunks.
	firstToken, idle time.Duration
	// maxAnswer bounds the chunks (about a token each) of one model call.
	maxAnswer int

	// firstNoTools, if set, decides whether the user is told that the
	// model cannot use tools (see WithNoToolsNotice).
	firstNoTools func(model string) bool
	// firstSmall, if set, decides whether the user is told that the
	// context is small for the tools (see WithSmallContextNotice).
	firstSmall func(model string) bool

	mu      sync.Mutex
	toolsOK bool // false once the model said it does not support tools
	told    bool // the user was told that tools are unavailable
	toldCtx bool // the user was told that the context is small for the tools
}

// Option configures an Agent.
type Option func(*Agent)

// WithModel sets the chat model.
func WithModel(name string) Option { return func(a *Agent) { a.model = name } }

// WithSystemPrompt replaces the default system prompt.
func WithSystemPrompt(p string) Option { return func(a *Agent) { a.system = p } }

// WithMaxSteps bounds model calls per prompt (values < 1 mean 1; at most MaxStepsLimit).
func WithMaxSteps(n int) Option { return func(a *Agent) { a.maxSteps = min(max(n, 1), MaxStepsLimit) } }

// WithTools sets the tools offered to the model.
func WithTools(t ToolRunner) Option { return func(a *Agent) { a.tools = t } }

// WithRecaller puts the saved notes relevant to each prompt into the
// system prompt (automatic recall).
func WithRecaller(r Recaller) Option { return func(a *Agent) { a.recaller = r } }

// WithAttachedPassages puts the passages of the documents a run's request
// attached (Request.AttachedDocs) that suit its prompt into its system
// prompt, whether or not automatic recall is on.
func WithAttachedPassages(r AttachedRecaller) Option { return func(a *Agent) { a.attached = r } }

// WithToolsSupported says whether the model supports tools, as /api/show
// reports it. With false, tools are never sent and the first run tells the
// user once that memory tools are unavailable. With true (the default) a
// model that refuses tools is still detected on its first answer.
func WithToolsSupported(ok bool) Option { return func(a *Agent) { a.toolsOK = ok } }

// WithNoToolsNotice narrows when the user is told that the model cannot
// use tools: besides once per agent, only when first(model) reports that
// this is the first time for the model. first is called at most once per
// agent; it should record its answer, e.g. so that the user is told once
// per model across processes.
func WithNoToolsNotice(first func(model string) bool) Option {
	return func(a *Agent) { a.firstNoTools = first }
}

// WithSmallContextNotice narrows, as WithNoToolsNotice does, when the
// user is told that the tool definitions take most of the model's context.
func WithSmallContextNotice(first func(model string) bool) Option {
	return func(a *Agent) { a.firstSmall = first }
}

// WithModelOptions sets Ollama model options such as num_ctx.
func WithModelOptions(o map[string]any) Option { return func(a *Agent) { a.options = o } }

// WithStreamTimeouts bounds how long a model call may wait for its first
// chunk (which covers loading the model) and then between chunks. A stream
// silent for longer is cut, its partial answer kept, and Run fails with
// ErrStreamStalled. Values <= 0 keep the defaults.
func WithStreamTimeouts(firstToken, idle time.Duration) Option {
	return func(a *Agent) {
		if firstToken > 0 {
			a.firstToken = firstToken
		}
		if idle > 0 {
			a.idle = idle
		}
	}
}

// WithMaxAnswerTokens bounds one model call's answer to about n tokens
// (Ollama streams one a chunk): the stream is cut there and the answer
// kept, marked interrupted, with a NoticeEvent and Result.Cut. n <= 0
// keeps the default.
func WithMaxAnswerTokens(n int) Option {
	return func(a *Agent) {
		if n > 0 {
			a.maxAnswer = n
		}
	}
}

// WithHost names the Ollama address in error messages.
func WithHost(h string) Option { return func(a *Agent) { a.host = h } }

// WithLogger sets the logger.
func WithLogger(l *slog.Logger) Option { return func(a *Agent) { a.log = l } }

// WithClock sets the clock (tests).
func WithClock(now func() time.Time) Option { return func(a *Agent) { a.now = now } }

// New returns an agent that talks through client and stores in store.
func New(client ChatClient, store Store, opts ...Option) *Agent {
	a := &Agent{
		client: client, store: store, system: DefaultSystemPrompt, maxSteps: DefaultMaxSteps,
		host: "http://127.0.0.1:11434", log: slog.New(slog.DiscardHandler), now: time.Now, toolsOK: true,
		firstToken: DefaultFirstTokenTimeout, idle: DefaultStreamIdleTimeout, maxAnswer: DefaultMaxAnswerTokens,
	}
	for _, o := range opts {
		o(a)
	}
	return a
}

// MaxSteps is the most model calls a prompt may take.
func (a *Agent) MaxSteps() int { return a.maxSteps }

// Model is the chat model in use.
func (a *Agent) Model() string { return a.model }

// Request is one user prompt in one conversation.
type Request struct {
	UserID         string
	ConversationID string
	Prompt         string
	// PromptID, if set, is the id of the prompt, already stored in the
	// conversation (early, so that it survives an interruption before the
	// run); Run does not store it again and answers it with the history up
	// to it.
	PromptID string
	// Attached are the documents the user attached since the last prompt
	// (their titles or paths): the system prompt of this run tells the
	// model they are there to search with file_search.
	Attached []string
	// AttachedDocs are the ids of those documents: their passages that
	// suit the prompt go into this run's system prompt (WithAttachedPassages),
	// for a model that does not search them itself.
	AttachedDocs []string
}

// maxAttachedNamed bounds the attached documents named in the system prompt.
const maxAttachedNamed = 10

// attachedLine is the system prompt's line about the documents the user
// attached ("" when none); with search, the model is told to search them
// (without, the passages that suit the prompt follow, WithAttachedPassages).
func attachedLine(names []string, search bool) string {
	var clean []string
	for _, n := range names {
		if n = strings.Join(strings.Fields(n), " "); n != "" {
			clean = append(clean, strconv.Quote(n))
		}
	}
	if len(clean) == 0 {
		return ""
	}
	more := ""
	if len(clean) > maxAttachedNamed {
		more = fmt.Sprintf(" and %d more", len(clean)-maxAttachedNamed)
		clean = clean[:maxAttachedNamed]
	}
	if !search {
		return "The user attached these documents: " + strings.Join(clean, ", ") + more + "."
	}
	return "The user attached these documents; search them with " + tools.FileSearchName + " and cite the passages you use as [1], [2]: " +
		strings.Join(clean, ", ") + more + "."
}

// systemMessages is the system prompt with today's date, the documents
// just attached and the remembered notes, if any.
func (a *Agent) systemMessages(memories []Memory, attached ...string) []api.Message {
	var parts []string
	if a.system != "" {
		parts = append(parts, a.system+"\nToday is "+a.now().Format("Monday, 2 January 2006")+".")
	}
	if l := attachedLine(attached, a.tools != nil && a.toolsSupported()); l != "" {
		parts = append(parts, l)
	}
	if len(memories) > 0 {
		parts = append(parts, rememberBlock(memories))
	}
	if len(parts) == 0 {
		return nil
	}
	return []api.Message{{Role: string(memory.RoleSystem), Content: strings.Join(parts, "\n\n")}}
}

type streamOut struct {
	content, thinking        strings.Builder
	calls                    []api.ToolCall
	dropped                  int // calls past maxCallsKept: neither stored nor answered
	done                     bool
	promptTokens, evalTokens int
	// cut: the answer stopped at a length limit, mneme's max_answer_tokens
	// (capped) or the model's own (Ollama's done_reason "length").
	cut, capped bool
	// chunks counts the stream's responses: about a token each.
	chunks int
}

// errAnswerCapped cuts a stream that reached maxAnswer.
var errAnswerCapped = errors.New("the answer reached max_answer_tokens")

// stream makes one model call. A model that refuses tools is asked again
// without them, and the user is told once.
// Streamed text goes to live, which saves it as it comes. A stream silent
// for longer than the first-token or idle timeout is cut with a
// stalledError.
func (a *Agent) stream(ctx context.Context, msgs []api.Message, withTools bool, live *liveAnswer, emit func(Event)) (*streamOut, error) {
	req := &api.ChatRequest{Model: a.model, Messages: msgs, Options: a.requestOptions(ctx)}
	if withTools && a.tools != nil {
		if a.toolsSupported() {
			req.Tools = a.tools.Definitions()
		} else {
			a.tellNoTools(emit)
		}
	}
	out := &streamOut{}
	// The watchdog cuts a silent stream. Time spent in this callback
	// (printing, saving) does not count: only Ollama's silence does.
	sctx, cut := context.WithCancelCause(ctx)
	defer cut(nil)
	live.onGone(func() { cut(ErrDeletedMidAnswer) }) // nowhere to keep it: stop paying for it
	var chunks atomic.Int64
	watchdog := time.AfterFunc(a.firstToken, func() {
		if chunks.Load() == 0 {
			cut(stalledError{wait: a.firstToken, first: true})
		} else {
			cut(stalledError{wait: a.idle})
		}
	})
	defer watchdog.Stop()
	err := a.client.Chat(sctx, req, func(r api.ChatResponse) error {
		watchdog.Stop()
		chunks.Add(1)
		defer watchdog.Reset(a.idle)
		if r.Message.Thinking != "" || r.Message.Content != "" || len(r.Message.ToolCalls) > 0 {
			if n := chunks.Load(); n > int64(a.maxAnswer) {
				cut(errAnswerCapped)
				return errAnswerCapped
			}
		}
		live.add(r.Message.Thinking, r.Message.Content)
		if t := r.Message.Thinking; t != "" {
			out.thinking.WriteString(t)
			emit(ThinkingDelta{Text: t})
		}
		if t := r.Message.Content; t != "" {
			out.content.WriteString(t)
			emit(ContentDelta{Text: t})
		}
		for _, c := range r.Message.ToolCalls {
			if len(out.calls) < maxCallsKept {
				out.calls = append(out.calls, c)
			} else {
				out.dropped++
			}
		}
		if r.Done {
			out.done, out.cut = true, r.DoneReason == "length"
			// Stopped by the num_predict of max_answer_tokens (requestOptions).
			out.capped = out.cut && req.Options["num_predict"] == a.maxAnswer && r.EvalCount >= a.maxAnswer
			out.promptTokens, out.evalTokens = r.PromptEvalCount, r.EvalCount
		}
		return nil
	})
	if err != nil && len(req.Tools) > 0 && isToolsUnsupported(err) {
		a.mu.Lock()
		a.toolsOK = false
		a.mu.Unlock()
		a.tellNoTools(emit)
		return a.stream(ctx, msgs, false, live, emit)
	}
	out.chunks = int(chunks.Load())
	if errors.Is(context.Cause(sctx), errAnswerCapped) && ctx.Err() == nil {
		out.done, out.cut, out.capped, err = true, true, true, nil
	}
	if err == nil && !out.done {
		// The Ollama client returns nil when the body ends early.
		err = ErrStreamBroken
	}
	if err != nil {
		err = unreadable(err)
	}
	var stalled stalledError
	switch {
	case err != nil && ctx.Err() != nil:
		err = ctx.Err()
	case err != nil && errors.As(context.Cause(sctx), &stalled):
		err = stalled
	case err != nil && errors.Is(context.Cause(sctx), ErrDeletedMidAnswer):
		err = ErrDeletedMidAnswer
	}
	return out, err
}

// tellNoTools tells the user, once per agent (and, with WithNoToolsNotice,
// once per model), that the model cannot use tools.
func (a *Agent) tellNoTools(emit func(Event)) {
	a.mu.Lock()
	first := !a.told
	a.told = true
	a.mu.Unlock()
	if first {
		a.log.Info("model does not support tools", "model", a.model)
	}
	if first && a.firstNoTools != nil {
		first = a.firstNoTools(a.model)
	}
	if first {
		emit(NoticeEvent{Text: fmt.Sprintf("Model %s does not support tools: memory tools are unavailable with it (remembered notes are still used).", sanitize.Line(a.model))})
	}
}

func (a *Agent) toolsSupported() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.toolsOK
}

// ToolsSupported reports whether the model has not refused tools so far.
func (a *Agent) ToolsSupported() bool { return a.toolsSupported() }

func isToolsUnsupported(err error) bool {
	var se api.StatusError
	return errors.As(err, &se) && se.StatusCode == http.StatusBadRequest &&
		strings.Contains(se.ErrorMessage, "does not support tools")
}

// explainStream explains why a stream ended early, saying what was kept.
func (a *Agent) explainStream(err error, out *streamOut) error {
	began := out.content.Len() > 0 || out.thinking.Len() > 0
	var stalled stalledError
	switch {
	case errors.Is(err, ErrUnreadableReply) && began:
		return fmt.Errorf("%w; the partial answer was kept", a.explain(err))
	case errors.Is(err, ErrStreamBroken) && !began: // "the partial answer was kept" of none
		return fmt.Errorf("%w: Ollama at %s stopped before it answered", ErrStreamBroken, a.host)
	case !errors.As(err, &stalled):
		return a.explain(err)
	}
	kept := "your prompt is saved"
	if began {
		kept = "the partial answer is saved, marked interrupted"
	}
	if stalled.first {
		return fmt.Errorf("%w: Ollama at %s sent no answer within %s (loading %s may take longer: raise first_token_timeout); %s",
			ErrStreamStalled, a.host, seconds(stalled.wait), a.model, kept)
	}
	return fmt.Errorf("%w: Ollama at %s sent nothing for %s mid-answer (stream_idle_timeout); %s", ErrStreamStalled, a.host, seconds(stalled.wait), kept)
}

// stalledError says which wait ran out; Run explains it.
type stalledError struct {
	wait  time.Duration
	first bool
}

func (e stalledError) Error() string {
	return fmt.Sprintf("no data from Ollama for %s", seconds(e.wait))
}

// seconds writes a duration the way a person says it: "30 s", "2.5 s".
func seconds(d time.Duration) string {
	return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + " s"
}
func (e stalledError) Unwrap() error { return ErrStreamStalled }

// explain turns a transport error into one a user can act on.
func (a *Agent) explain(err error) error {
	return ExplainError(err, a.host, a.model)
}

// ExplainError turns an Ollama client error into one that names the address
// tried and the command that fixes it. What the server said, and the model
// name, are made safe to print (sanitize.Line): errors end up on terminals.
func ExplainError(err error, host, model string) error {
	model = sanitize.Line(model)
	var se api.StatusError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se) && se.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%w: %q is not installed in Ollama at %s; run `ollama pull %s`", ErrModelNotFound, model, host, model)
	case errors.As(err, &se):
		return fmt.Errorf("ollama at %s: %s", host, sanitize.Line(firstNonEmpty(se.ErrorMessage, se.Status)))
	case errors.As(err, new(*json.SyntaxError)) || errors.As(err, new(*json.UnmarshalTypeError)):
		// A web page or a proxy's error page where Ollama's JSON should be.
		return fmt.Errorf("%w at %s: it answered with something that is not Ollama's JSON (is OLLAMA_HOST right?)", ollama.ErrNotOllama, host)
	case errors.Is(err, ErrUnreadableReply):
		return fmt.Errorf("ollama at %s sent %w (%s)", host, ErrUnreadableReply,
			sanitize.Line(strings.TrimPrefix(err.Error(), ErrUnreadableReply.Error()+": ")))
	case errors.Is(err, ErrStreamBroken):
		return fmt.Errorf("%w: Ollama at %s stopped mid-answer; the partial answer was kept", ErrStreamBroken, host)
	case isTimeout(err):
		// Something holds the address but does not answer: a stopped or
		// overloaded server, not a missing one.
		return fmt.Errorf("%w at %s: it did not answer in time (busy or stuck?); if it stays so, restart it (`ollama serve`)", ErrOllamaUnreachable, host)
	case IsUnreachable(err):
		return fmt.Errorf("%w at %s: is it running? Start it with `ollama serve`", ErrOllamaUnreachable, host)
	default:
		return fmt.Errorf("ollama at %s: %w", host, safeError{err})
	}
}

// isTimeout reports whether err is a wait for Ollama that ran out.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, context.DeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// IsUnreachable reports whether err means nothing answered at Ollama's
// address (refused, reset, no route, no name, no answer in time).
func IsUnreachable(err error) bool {
	var op *net.OpError
	var dns *net.DNSError
	return errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) ||
		errors.As(err, &op) || errors.As(err, &dns) || errors.Is(err, context.DeadlineExceeded)
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}

// safeError is an error whose message is made safe to print; errors.Is and
// errors.As still see the error it wraps.
type safeError struct{ err error }

func (e safeError) Error() string { return sanitize.Line(e.err.Error()) }
func (e safeError) Unwrap() error { return e.err }
