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
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/tools"
)

// ChatClient is the one Ollama call the agent needs; *api.Client has it.
type ChatClient interface {
	Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error
}

// Store is where the agent reads history and writes messages.
type Store interface {
	Messages(ctx context.Context, userID, conversationID string) ([]memory.Message, error)
	AppendMessage(ctx context.Context, userID string, m memory.Message) (memory.Message, error)
}

// ToolRunner lists and runs the tools offered to the model.
type ToolRunner interface {
	Definitions() api.Tools
	Execute(ctx context.Context, s tools.Session, c tools.Call) (string, error)
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
	compact  *compactor // nil: no compaction or titles

	mu      sync.Mutex
	toolsOK bool // false once the model said it does not support tools
	told    bool // the user was told that tools are unavailable
}

// Option configures an Agent.
type Option func(*Agent)

// WithModel sets the chat model.
func WithModel(name string) Option { return func(a *Agent) { a.model = name } }

// WithSystemPrompt replaces the default system prompt.
func WithSystemPrompt(p string) Option { return func(a *Agent) { a.system = p } }

// WithMaxSteps bounds model calls per prompt (values < 1 mean 1).
func WithMaxSteps(n int) Option { return func(a *Agent) { a.maxSteps = max(n, 1) } }

// WithTools sets the tools offered to the model.
func WithTools(t ToolRunner) Option { return func(a *Agent) { a.tools = t } }

// WithRecaller puts the saved notes relevant to each prompt into the
// system prompt (automatic recall).
func WithRecaller(r Recaller) Option { return func(a *Agent) { a.recaller = r } }

// WithToolsSupported says whether the model supports tools, as /api/show
// reports it. With false, tools are never sent and the first run tells the
// user once that memory tools are unavailable. With true (the default) a
// model that refuses tools is still detected on its first answer.
func WithToolsSupported(ok bool) Option { return func(a *Agent) { a.toolsOK = ok } }

// WithModelOptions sets Ollama model options such as num_ctx.
func WithModelOptions(o map[string]any) Option { return func(a *Agent) { a.options = o } }

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
	}
	for _, o := range opts {
		o(a)
	}
	return a
}

// Model is the chat model in use.
func (a *Agent) Model() string { return a.model }

// Request is one user prompt in one conversation.
type Request struct {
	UserID         string
	ConversationID string
	Prompt         string
}

// Run sends the prompt, streams the answer, runs tool calls until the model
// answers without tools (at most the step limit), and stores every message.
// The user message is stored before anything is sent; each assistant message
// when its stream ends, is interrupted, or fails. Events go to emit as they
// happen; the last one is a DoneEvent or an ErrorEvent. Cancelling ctx
// interrupts the run: the partial answer is stored, marked interrupted, and
// Run returns a Result with Interrupted set and no error.
func (a *Agent) Run(ctx context.Context, req Request, emit func(Event)) (res Result, err error) {
	if emit == nil {
		emit = func(Event) {}
	}
	res = Result{ConversationID: req.ConversationID, Model: a.model, ToolCalls: []ToolActivity{}, MemoriesUsed: []Memory{}}
	defer func() {
		a.recordUsage(ctx, req, &res)
		if err != nil {
			a.log.Warn("run failed", "conversation", req.ConversationID, "err", err)
			emit(ErrorEvent{Err: err, Result: res})
			return
		}
		emit(DoneEvent{Result: res})
	}()
	if strings.TrimSpace(req.Prompt) == "" {
		return res, ErrEmptyPrompt
	}
	if a.model == "" {
		return res, fmt.Errorf("%w: pull one with `ollama pull llama3.2` or set --model", ErrNoModel)
	}
	history, err := a.store.Messages(ctx, req.UserID, req.ConversationID)
	if err != nil {
		return res, fmt.Errorf("load history: %w", err)
	}
	userMsg, err := a.store.AppendMessage(ctx, req.UserID, memory.Message{
		ConversationID: req.ConversationID, Role: memory.RoleUser, Content: req.Prompt,
	})
	if err != nil {
		return res, fmt.Errorf("store prompt: %w", err)
	}
	all := append(history, userMsg)
	session := tools.Session{UserID: req.UserID, ConversationID: req.ConversationID}
	if turns := memory.BuildTurns(req.UserID, req.ConversationID, all); len(turns) > 0 {
		session.TurnNumber = turns[len(turns)-1].Number
	}
	// The prompt does not change within a run: one recall serves every model call.
	memories := a.recall(ctx, req)
	if len(memories) > 0 {
		res.MemoriesUsed = memories
		emit(RecallEvent{Memories: memories})
	}
	msgs := a.modelHistory(ctx, req, a.systemMessages(memories), all, &res, emit)
	var answers []string

	for step := 1; ; step++ {
		last := step >= a.maxSteps
		out, streamErr := a.stream(ctx, msgs, !last, emit)
		if out.promptTokens+out.evalTokens > 0 {
			res.ContextTokens = out.promptTokens + out.evalTokens
		}
		if text := strings.TrimSpace(out.content.String()); text != "" {
			answers = append(answers, text)
			res.Answer = strings.Join(answers, "\n\n")
		}
		if streamErr != nil {
			interrupted := ctx.Err() != nil
			if err := a.storePartial(ctx, req, out); err != nil {
				return res, err
			}
			if interrupted {
				res.Interrupted = true
				return res, nil
			}
			return res, a.explain(streamErr)
		}

		calls := fromAPICalls(out.calls)
		assistant, err := a.store.AppendMessage(context.WithoutCancel(ctx), req.UserID, memory.Message{
			ConversationID: req.ConversationID, Role: memory.RoleAssistant,
			Content: out.content.String(), Thinking: out.thinking.String(), ToolCalls: calls,
		})
		if err != nil {
			return res, fmt.Errorf("store answer: %w", err)
		}
		msgs = append(msgs, toAPI([]memory.Message{assistant})...)
		if len(calls) == 0 {
			return res, nil
		}

		for _, c := range calls {
			act := ToolActivity{ID: c.ID, Name: c.Name, Args: string(c.Arguments)}
			emit(ToolCallEvent{Call: act})
			var content string
			if last {
				act.Error = fmt.Sprintf("not run: the step limit (%d) was reached", a.maxSteps)
			} else if a.tools == nil {
				act.Error = fmt.Sprintf("%v %q", tools.ErrUnknownTool, c.Name)
			} else {
				out, err := a.tools.Execute(ctx, session, tools.Call{ID: c.ID, Name: c.Name, Args: c.Arguments})
				act.Result = out
				if err != nil {
					act.Error = err.Error()
				}
			}
			content = act.Result
			if act.Error != "" {
				b, _ := json.Marshal(map[string]string{"error": act.Error})
				content = string(b)
			}
			toolMsg, err := a.store.AppendMessage(context.WithoutCancel(ctx), req.UserID, memory.Message{
				ConversationID: req.ConversationID, Role: memory.RoleTool, Content: content,
				ToolCallID: c.ID, ToolName: c.Name,
			})
			if err != nil {
				return res, fmt.Errorf("store tool result: %w", err)
			}
			msgs = append(msgs, toAPI([]memory.Message{toolMsg})...)
			res.ToolCalls = append(res.ToolCalls, act)
			emit(ToolResultEvent{Call: act})
		}
		if ctx.Err() != nil {
			res.Interrupted = true
			return res, nil
		}
		if last {
			emit(NoticeEvent{Text: fmt.Sprintf("Stopped after %d model calls: the model kept calling tools.", a.maxSteps)})
			return res, nil
		}
	}
}

// storePartial keeps whatever streamed before an interruption or failure.
func (a *Agent) storePartial(ctx context.Context, req Request, out *streamOut) error {
	if out.content.Len() == 0 && out.thinking.Len() == 0 {
		return nil
	}
	_, err := a.store.AppendMessage(context.WithoutCancel(ctx), req.UserID, memory.Message{
		ConversationID: req.ConversationID, Role: memory.RoleAssistant,
		Content: out.content.String(), Thinking: out.thinking.String(), Status: memory.StatusInterrupted,
	})
	if err != nil {
		return fmt.Errorf("store partial answer: %w", err)
	}
	return nil
}

// systemMessages is the system prompt with today's date and the
// remembered notes, if any.
func (a *Agent) systemMessages(memories []Memory) []api.Message {
	var parts []string
	if a.system != "" {
		parts = append(parts, a.system+"\nToday is "+a.now().Format("Monday, 2 January 2006")+".")
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
	done                     bool
	promptTokens, evalTokens int
}

// stream makes one model call. A model that refuses tools is asked again
// without them, and the user is told once.
func (a *Agent) stream(ctx context.Context, msgs []api.Message, withTools bool, emit func(Event)) (*streamOut, error) {
	req := &api.ChatRequest{Model: a.model, Messages: msgs, Options: a.requestOptions(ctx)}
	if withTools && a.tools != nil {
		if a.toolsSupported() {
			req.Tools = a.tools.Definitions()
		} else {
			a.tellNoTools(emit)
		}
	}
	out := &streamOut{}
	err := a.client.Chat(ctx, req, func(r api.ChatResponse) error {
		if t := r.Message.Thinking; t != "" {
			out.thinking.WriteString(t)
			emit(ThinkingDelta{Text: t})
		}
		if t := r.Message.Content; t != "" {
			out.content.WriteString(t)
			emit(ContentDelta{Text: t})
		}
		out.calls = append(out.calls, r.Message.ToolCalls...)
		if r.Done {
			out.done = true
			out.promptTokens, out.evalTokens = r.PromptEvalCount, r.EvalCount
		}
		return nil
	})
	if err != nil && len(req.Tools) > 0 && isToolsUnsupported(err) {
		a.mu.Lock()
		a.toolsOK = false
		a.mu.Unlock()
		a.tellNoTools(emit)
		return a.stream(ctx, msgs, false, emit)
	}
	if err == nil && !out.done {
		// The Ollama client returns nil when the body ends early.
		err = ErrStreamBroken
	}
	if err != nil && ctx.Err() != nil {
		err = ctx.Err()
	}
	return out, err
}

// tellNoTools tells the user, once per agent, that the model cannot use tools.
func (a *Agent) tellNoTools(emit func(Event)) {
	a.mu.Lock()
	first := !a.told
	a.told = true
	a.mu.Unlock()
	if first {
		a.log.Info("model does not support tools", "model", a.model)
		emit(NoticeEvent{Text: fmt.Sprintf("Model %s does not support tools: memory tools are unavailable with it (remembered notes are still used).", a.model)})
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

// explain turns a transport error into one a user can act on.
func (a *Agent) explain(err error) error {
	return ExplainError(err, a.host, a.model)
}

// ExplainError turns an Ollama client error into one that names the address
// tried and the command that fixes it.
func ExplainError(err error, host, model string) error {
	var se api.StatusError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se) && se.StatusCode == http.StatusNotFound:
		return fmt.Errorf("%w: %q is not installed in Ollama at %s; run `ollama pull %s`", ErrModelNotFound, model, host, model)
	case errors.As(err, &se):
		return fmt.Errorf("ollama at %s: %s", host, firstNonEmpty(se.ErrorMessage, se.Status))
	case errors.Is(err, ErrStreamBroken):
		return fmt.Errorf("%w: Ollama at %s stopped mid-answer; the partial answer was kept", ErrStreamBroken, host)
	case isUnreachable(err):
		return fmt.Errorf("%w at %s: is it running? Start it with `ollama serve`", ErrOllamaUnreachable, host)
	default:
		return fmt.Errorf("ollama at %s: %w", host, err)
	}
}

func isUnreachable(err error) bool {
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
