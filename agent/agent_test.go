package agent

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/tools"
)

// harness is one agent wired to a fake Ollama and a real store.
type harness struct {
	t     *testing.T
	srv   *fakeollama.Server
	store *memory.Store
	conv  memory.Conversation
	agent *Agent
}

func newHarness(t *testing.T, srvOpts []fakeollama.Option, opts ...Option) *harness {
	t.Helper()
	srv := fakeollama.New(t, srvOpts...)
	store, err := memory.Open(context.Background(), filepath.Join(t.TempDir(), memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	conv, err := store.CreateConversation(context.Background(), "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(srv.URL)
	// The transport the app uses (app.go).
	client := api.NewClient(u, &http.Client{Transport: ToleratingTransport(nil)})
	opts = append([]Option{WithModel(fakeollama.DefaultChatModel), WithHost(srv.URL)}, opts...)
	return &harness{t: t, srv: srv, store: store, conv: conv, agent: New(client, store, opts...)}
}

// run sends prompt and collects every event.
func (h *harness) run(ctx context.Context, prompt string) (Result, []Event, error) {
	var events []Event
	res, err := h.agent.Run(ctx, Request{UserID: "alice", ConversationID: h.conv.ID, Prompt: prompt}, func(e Event) { events = append(events, e) })
	return res, events, err
}

func (h *harness) messages() []memory.Message {
	h.t.Helper()
	msgs, err := h.store.Messages(context.Background(), "alice", h.conv.ID)
	if err != nil {
		h.t.Fatal(err)
	}
	return msgs
}

func streamed(events []Event) string {
	var b strings.Builder
	for _, e := range events {
		if d, ok := e.(ContentDelta); ok {
			b.WriteString(d.Text)
		}
	}
	return b.String()
}

func roles(msgs []memory.Message) string {
	var r []string
	for _, m := range msgs {
		r = append(r, string(m.Role))
	}
	return strings.Join(r, ",")
}

// upper is a test tool that upper-cases its "text" argument.
type upper struct{}

func (upper) Definition() api.Tool {
	return api.Tool{Type: "function", Function: api.ToolFunction{Name: "shout", Description: "Upper-cases text."}}
}
func (upper) Tier() tools.Tier       { return tools.ReadOnly }
func (upper) Timeout() time.Duration { return time.Second }
func (upper) Run(_ context.Context, _ tools.Session, args json.RawMessage) (tools.Result, error) {
	var in struct{ Text string }
	if err := json.Unmarshal(args, &in); err != nil || in.Text == "" {
		return tools.Result{}, tools.ErrInvalidArgs
	}
	return tools.Result{Content: strings.ToUpper(in.Text)}, nil
}

func TestStreamsTokensAndStoresBothMessages(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Script(fakeollama.Reply{Content: []string{"Hello", " there", ", friend."}, PromptEvalCount: 30, EvalCount: 4})
	res, events, err := h.run(context.Background(), "hi")
	if err != nil {
		t.Fatal(err)
	}
	var deltas int
	for _, e := range events {
		if _, ok := e.(ContentDelta); ok {
			deltas++
		}
	}
	if deltas != 3 || streamed(events) != "Hello there, friend." {
		t.Fatalf("streamed %d deltas %q", deltas, streamed(events))
	}
	if _, ok := events[len(events)-1].(DoneEvent); !ok {
		t.Fatalf("last event = %T, want DoneEvent", events[len(events)-1])
	}
	if res.Answer != "Hello there, friend." || res.ContextTokens != 34 || res.Model != fakeollama.DefaultChatModel {
		t.Fatalf("result = %+v", res)
	}
	msgs := h.messages()
	if roles(msgs) != "user,assistant" || msgs[1].Content != "Hello there, friend." || msgs[1].Status != memory.StatusComplete {
		t.Fatalf("stored %+v", msgs)
	}
	req := h.srv.LastRequest()
	if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[1].Content != "hi" {
		t.Fatalf("request messages = %+v", req.Messages)
	}
}

func TestHistoryIsSentOnTheNextPrompt(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Script(fakeollama.Say("first answer"), fakeollama.Say("second answer"))
	if _, _, err := h.run(context.Background(), "one"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := h.run(context.Background(), "two"); err != nil {
		t.Fatal(err)
	}
	req := h.srv.LastRequest()
	var got []string
	for _, m := range req.Messages[1:] {
		got = append(got, m.Role+":"+m.Content)
	}
	if want := "user:one|assistant:first answer|user:two"; strings.Join(got, "|") != want {
		t.Fatalf("history = %q, want %q", strings.Join(got, "|"), want)
	}
}

func TestToolCallRoundTrip(t *testing.T) {
	h := newHarness(t, nil, WithTools(tools.NewRegistry(nil, upper{})))
	h.srv.Script(
		fakeollama.Reply{ToolCalls: []api.ToolCall{fakeollama.ToolCall("shout", map[string]any{"text": "hi"})}},
		fakeollama.Say("It says HI."),
	)
	res, events, err := h.run(context.Background(), "shout hi")
	if err != nil {
		t.Fatal(err)
	}
	var call, result *ToolActivity
	for _, e := range events {
		switch e := e.(type) {
		case ToolCallEvent:
			call = &e.Call
		case ToolResultEvent:
			result = &e.Call
		}
	}
	if call == nil || call.Name != "shout" || result == nil || result.Result != "HI" || result.Error != "" {
		t.Fatalf("tool events: call %+v result %+v", call, result)
	}
	if res.Answer != "It says HI." || len(res.ToolCalls) != 1 {
		t.Fatalf("result = %+v", res)
	}
	msgs := h.messages()
	if roles(msgs) != "user,assistant,tool,assistant" {
		t.Fatalf("stored roles = %s", roles(msgs))
	}
	if msgs[1].ToolCalls[0].ID == "" || msgs[2].ToolCallID != msgs[1].ToolCalls[0].ID || msgs[2].Content != "HI" {
		t.Fatalf("tool pairing: call %+v result %+v", msgs[1].ToolCalls, msgs[2])
	}
	second := h.srv.LastRequest()
	if len(second.Tools) != 1 || second.Tools[0].Function.Name != "shout" {
		t.Fatalf("tools offered = %+v", second.Tools)
	}
	last := second.Messages[len(second.Messages)-1]
	if last.Role != "tool" || last.Content != "HI" || last.ToolCallID != msgs[1].ToolCalls[0].ID {
		t.Fatalf("tool result sent back = %+v", last)
	}
}

func TestUnknownToolAndBadArgsGoBackAsErrors(t *testing.T) {
	h := newHarness(t, nil, WithTools(tools.NewRegistry(nil, upper{})))
	h.srv.Script(
		fakeollama.Reply{ToolCalls: []api.ToolCall{
			fakeollama.ToolCall("rm_rf", map[string]any{"path": "/"}),
			fakeollama.ToolCall("shout", map[string]any{"wrong": 1}),
		}},
		fakeollama.Say("Sorry."),
	)
	res, _, err := h.run(context.Background(), "do things")
	if err != nil {
		t.Fatalf("run failed: %v", err)
	}
	if len(res.ToolCalls) != 2 || !strings.Contains(res.ToolCalls[0].Error, "unknown tool") ||
		!strings.Contains(res.ToolCalls[1].Error, "invalid arguments") {
		t.Fatalf("tool results = %+v", res.ToolCalls)
	}
	sent := h.srv.LastRequest().Messages
	toolMsgs := sent[len(sent)-2:]
	if !strings.Contains(toolMsgs[0].Content, `"error"`) || !strings.Contains(toolMsgs[0].Content, "unknown tool") {
		t.Fatalf("unknown tool result sent = %q", toolMsgs[0].Content)
	}
	if res.Answer != "Sorry." {
		t.Fatalf("answer = %q", res.Answer)
	}
}

func TestStepLimit(t *testing.T) {
	h := newHarness(t, nil, WithTools(tools.NewRegistry(nil, upper{})), WithMaxSteps(3))
	h.srv.SetDefault(func(api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{ToolCalls: []api.ToolCall{fakeollama.ToolCall("shout", map[string]any{"text": "again"})}}
	})
	res, events, err := h.run(context.Background(), "loop forever")
	if err != nil {
		t.Fatal(err)
	}
	reqs := h.srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("model called %d times, want 3", len(reqs))
	}
	if len(reqs[2].Tools) != 0 {
		t.Fatal("the last allowed call still offered tools")
	}
	var notice bool
	for _, e := range events {
		if n, ok := e.(NoticeEvent); ok && strings.Contains(n.Text, "3") {
			notice = true
		}
	}
	if !notice {
		t.Fatal("no notice about the step limit")
	}
	lastCall := res.ToolCalls[len(res.ToolCalls)-1]
	if !strings.Contains(lastCall.Error, "step limit") {
		t.Fatalf("last call = %+v", lastCall)
	}
	// Every stored tool call still has its result.
	msgs := h.messages()
	if got := roles(msgs); got != "user,assistant,tool,assistant,tool,assistant,tool" {
		t.Fatalf("stored roles = %s", got)
	}
}

func TestMidStreamDropKeepsPartialAnswer(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Script(fakeollama.Reply{Content: []string{"Once", " upon", " a", " time"}, DropAfter: 2})
	_, events, err := h.run(context.Background(), "story")
	if !errors.Is(err, ErrStreamBroken) || !strings.Contains(err.Error(), h.srv.URL) {
		t.Fatalf("err = %v, want ErrStreamBroken naming the server", err)
	}
	if _, ok := events[len(events)-1].(ErrorEvent); !ok {
		t.Fatalf("last event = %T", events[len(events)-1])
	}
	msgs := h.messages()
	if roles(msgs) != "user,assistant" || msgs[1].Content != "Once upon" || msgs[1].Status != memory.StatusInterrupted {
		t.Fatalf("stored %+v", msgs)
	}
}

func TestMidStreamErrorLine(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Script(fakeollama.Reply{Content: []string{"Partial"}, StreamError: "llama runner process has terminated"})
	_, _, err := h.run(context.Background(), "x")
	if err == nil || !strings.Contains(err.Error(), "runner process has terminated") {
		t.Fatalf("err = %v", err)
	}
	if msgs := h.messages(); len(msgs) != 2 || msgs[1].Content != "Partial" || msgs[1].Status != memory.StatusInterrupted {
		t.Fatalf("stored %+v", msgs)
	}
}

func TestCancelInterruptsAndKeepsPartial(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Script(fakeollama.Reply{Content: []string{"The answer", " is"}, Hold: true})
	ctx, cancel := context.WithCancel(context.Background())
	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	seen := make(chan struct{})
	go func() {
		var text strings.Builder
		res, err := h.agent.Run(ctx, Request{UserID: "alice", ConversationID: h.conv.ID, Prompt: "long question"}, func(e Event) {
			if d, ok := e.(ContentDelta); ok {
				text.WriteString(d.Text)
				if text.String() == "The answer is" {
					close(seen) // the user has seen the partial answer; now press Esc
				}
			}
		})
		done <- outcome{res, err}
	}()
	<-seen
	cancel()
	out := <-done
	if out.err != nil || !out.res.Interrupted {
		t.Fatalf("result %+v err %v", out.res, out.err)
	}
	<-h.srv.Cancelled()
	msgs := h.messages()
	if len(msgs) != 2 || msgs[1].Status != memory.StatusInterrupted || msgs[1].Content != "The answer is" {
		t.Fatalf("stored %+v", msgs)
	}
}

func TestModelWithoutToolsFallsBackOnce(t *testing.T) {
	h := newHarness(t, []fakeollama.Option{fakeollama.WithModels(fakeollama.Model{Name: "plain"})},
		WithModel("plain"), WithTools(tools.NewRegistry(nil, upper{})))
	h.srv.Script(fakeollama.Say("one"), fakeollama.Say("two"))
	var notices int
	for _, p := range []string{"a", "b"} {
		res, events, err := h.run(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if res.Answer == "" {
			t.Fatal("no answer without tools")
		}
		for _, e := range events {
			if _, ok := e.(NoticeEvent); ok {
				notices++
			}
		}
	}
	if notices != 1 {
		t.Fatalf("told the user %d times, want once", notices)
	}
	if h.agent.ToolsSupported() || len(h.srv.LastRequest().Tools) != 0 {
		t.Fatal("tools still offered after the model refused them")
	}
}

func TestModelNotFound(t *testing.T) {
	h := newHarness(t, nil, WithModel("nosuch"))
	_, _, err := h.run(context.Background(), "hi")
	if !errors.Is(err, ErrModelNotFound) || !strings.Contains(err.Error(), "ollama pull nosuch") {
		t.Fatalf("err = %v", err)
	}
	// The prompt is kept, and the failed turn ends with an empty answer
	// marked interrupted.
	if msgs := h.messages(); roles(msgs) != "user,assistant" || msgs[0].Content != "hi" || msgs[1].Status != memory.StatusInterrupted {
		t.Fatalf("the prompt was not kept, or the turn not marked: %+v", msgs)
	}
}

// With nothing listening at Ollama's address, the prompt is not stored
// (ErrNotSent: the chat puts it back in the input), so that no turn is
// left with an empty answer, and the error names the address.
func TestUnreachableOllamaNamesTheAddress(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := "http://" + l.Addr().String()
	l.Close()
	store, _ := memory.Open(context.Background(), filepath.Join(t.TempDir(), memory.DBFileName))
	defer store.Close()
	conv, _ := store.CreateConversation(context.Background(), "alice", "")
	u, _ := url.Parse(addr)
	a := New(api.NewClient(u, http.DefaultClient), store, WithModel("m"), WithHost(addr))
	_, err = a.Run(context.Background(), Request{UserID: "alice", ConversationID: conv.ID, Prompt: "hi"}, nil)
	if !errors.Is(err, ErrOllamaUnreachable) || !errors.Is(err, ErrNotSent) || !strings.Contains(err.Error(), addr) || !strings.Contains(err.Error(), "ollama serve") {
		t.Fatalf("err = %v", err)
	}
	if msgs, err := store.Messages(context.Background(), "alice", conv.ID); err != nil || len(msgs) != 0 {
		t.Fatalf("stored with Ollama down: %+v %v", msgs, err)
	}
}

func TestEmptyPromptIsRefused(t *testing.T) {
	h := newHarness(t, nil)
	if _, _, err := h.run(context.Background(), "  \n "); !errors.Is(err, ErrEmptyPrompt) {
		t.Fatalf("err = %v", err)
	}
	if len(h.srv.Requests()) != 0 || len(h.messages()) != 0 {
		t.Fatal("an empty prompt was sent or stored")
	}
}

// An answer stopped before its first word is stored empty, marked
// interrupted, so the turn shows it was interrupted after a reload too;
// the model is never sent the empty answer.
func TestCancelBeforeFirstWordMarksTheTurnInterrupted(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Script(fakeollama.Reply{Hold: true})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	var res Result
	go func() {
		var err error
		res, err = h.agent.Run(ctx, Request{UserID: "alice", ConversationID: h.conv.ID, Prompt: "long question"}, func(Event) {})
		done <- err
	}()
	<-h.srv.Started()
	cancel()
	if err := <-done; err != nil || !res.Interrupted {
		t.Fatalf("result %+v err %v", res, err)
	}
	msgs := h.messages()
	if roles(msgs) != "user,assistant" || msgs[1].Content != "" || msgs[1].Status != memory.StatusInterrupted {
		t.Fatalf("stored %+v", msgs)
	}
	if _, _, err := h.run(context.Background(), "next question"); err != nil {
		t.Fatal(err)
	}
	for _, m := range h.srv.LastRequest().Messages {
		if m.Role == "assistant" && m.Content == "" && len(m.ToolCalls) == 0 {
			t.Fatalf("the model was sent the empty interrupted answer: %+v", h.srv.LastRequest().Messages)
		}
	}
}

// Stopped while a tool runs: the turn ends with an empty answer marked
// interrupted, as the chat shows it, and no further model call is made.
func TestCancelDuringToolCallMarksTheTurnInterrupted(t *testing.T) {
	h := newHarness(t, nil, WithTools(tools.NewRegistry(nil, upper{})))
	h.srv.Script(
		fakeollama.Reply{ToolCalls: []api.ToolCall{fakeollama.ToolCall("shout", map[string]any{"text": "hi"})}},
		fakeollama.Say("never asked for"),
	)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res, err := h.agent.Run(ctx, Request{UserID: "alice", ConversationID: h.conv.ID, Prompt: "shout hi"}, func(e Event) {
		if _, ok := e.(ToolCallEvent); ok {
			cancel() // Esc while the tool runs
		}
	})
	if err != nil || !res.Interrupted {
		t.Fatalf("result %+v err %v", res, err)
	}
	msgs := h.messages()
	last := msgs[len(msgs)-1]
	if roles(msgs) != "user,assistant,tool,assistant" || last.Content != "" || last.Status != memory.StatusInterrupted {
		t.Fatalf("stored %s: %+v", roles(msgs), msgs)
	}
	if h.srv.Remaining() != 1 {
		t.Fatal("the model was asked again after the interruption")
	}
}

// Ollama failing before the first word leaves the turn marked as an
// empty interrupted answer, as a stop by the user does: the stored
// conversation never holds two prompts in a row.
func TestFailureBeforeFirstWordMarksTheTurnInterrupted(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Script(fakeollama.Reply{DropAfter: 1})
	_, err := h.agent.Run(context.Background(), Request{UserID: "alice", ConversationID: h.conv.ID, Prompt: "question"}, func(Event) {})
	if err == nil {
		t.Fatal("a stream cut before its first word is not an error")
	}
	msgs := h.messages()
	if roles(msgs) != "user,assistant" || msgs[1].Content != "" || msgs[1].Status != memory.StatusInterrupted {
		t.Fatalf("stored %+v", msgs)
	}
}

// TestAttachedDocumentsAreNamedForOneRun: the documents attached before a
// prompt are named in that run's system prompt, with the tool to search
// them; the next run does not repeat them.
func TestAttachedDocumentsAreNamedForOneRun(t *testing.T) {
	var runs atomic.Int64
	h := newHarness(t, nil, WithTools(tools.NewRegistry(nil, counter{&runs})))
	h.srv.Script(fakeollama.Say("I will look."), fakeollama.Say("Hello."))
	req := Request{UserID: "alice", ConversationID: h.conv.ID, Prompt: "what does the manual say?",
		Attached: []string{"Boiler manual", "/home/alice/notes.md"}}
	if _, err := h.agent.Run(context.Background(), req, nil); err != nil {
		t.Fatal(err)
	}
	sys := h.srv.LastRequest().Messages[0]
	want := `The user attached these documents; search them with file_search and cite the passages you use as [1], [2]: "Boiler manual", "/home/alice/notes.md".`
	if sys.Role != "system" || !strings.Contains(sys.Content, want) {
		t.Fatalf("system prompt lacks the attached documents:\n%s", sys.Content)
	}
	if _, _, err := h.run(context.Background(), "thanks"); err != nil {
		t.Fatal(err)
	}
	if sys := h.srv.LastRequest().Messages[0].Content; strings.Contains(sys, "attached") {
		t.Fatalf("the next run names the documents again:\n%s", sys)
	}
}

// passagesOf is an AttachedRecaller with one passage per document.
type passagesOf map[string]string

func (p passagesOf) RecallAttached(_ context.Context, _, _ string, ids []string) ([]Memory, error) {
	var out []Memory
	for _, id := range ids {
		out = append(out, Memory{Text: p[id], Source: id + ".txt", Citation: &Citation{DocumentID: id, Path: "/docs/" + id + ".txt"}})
	}
	return out, nil
}

// TestAttachedDocumentsAreReadIntoTheRun: the passages of the documents
// attached before a prompt go into that run's system prompt, fenced, and
// are shown as recalled, for a model without tools too (the model was
// told to search them with a tool it did not have, and never saw them);
// the next run does not carry them.
func TestAttachedDocumentsAreReadIntoTheRun(t *testing.T) {
	h := newHarness(t, nil)
	h.agent = New(h.agent.client, h.store, WithModel(fakeollama.DefaultChatModel), WithToolsSupported(false),
		WithAttachedPassages(passagesOf{"garden": "The gate code is 4711."}))
	h.srv.Script(fakeollama.Say("It is 4711."), fakeollama.Say("Hello."))
	var recalled []RecallEvent
	req := Request{UserID: "alice", ConversationID: h.conv.ID, Prompt: "what is the code in the file?",
		Attached: []string{"garden (/docs/garden.txt)"}, AttachedDocs: []string{"garden"}}
	if _, err := h.agent.Run(context.Background(), req, func(e Event) {
		if r, ok := e.(RecallEvent); ok {
			recalled = append(recalled, r)
		}
	}); err != nil {
		t.Fatal(err)
	}
	sys := h.srv.LastRequest().Messages[0].Content
	if !strings.Contains(sys, "The user attached these documents: \"garden (/docs/garden.txt)\".") ||
		!strings.Contains(sys, "<document_passages>\n- [garden.txt] The gate code is 4711.\n</document_passages>") || strings.Contains(sys, "file_search") {
		t.Fatalf("system prompt:\n%s", sys)
	}
	if len(recalled) != 1 || !strings.Contains(recalled[0].Summary(), "garden.txt") {
		t.Fatalf("recall events %+v", recalled)
	}
	if _, _, err := h.run(context.Background(), "thanks"); err != nil {
		t.Fatal(err)
	}
	if sys := h.srv.LastRequest().Messages[0].Content; strings.Contains(sys, "4711") {
		t.Fatalf("the next run carries the passages again:\n%s", sys)
	}
}

// TestUnreadableLinesAreSaidInWords: a line of the answer that is not JSON,
// or one of 10 MB, ends the answer with an error that says so (the first
// was quoted raw as the error, the second taken for Ollama stopping), and
// the partial answer is kept, marked interrupted.
func TestUnreadableLinesAreSaidInWords(t *testing.T) {
	for _, tc := range []struct{ name, line, want string }{
		{"not JSON", `{"model": "x", "message": {not json at all`, `sent a reply mneme could not read (a line that is not JSON: "{\"model\": \"x\"`},
		{"10 MB", `{"message":{"role":"assistant","content":"` + strings.Repeat("a", 10<<20) + `"}}`, "sent a reply mneme could not read (a line longer than 8 MB)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, nil)
			h.srv.Script(fakeollama.Reply{Content: []string{"Hello", " partial"}, RawLine: tc.line})
			_, _, err := h.run(context.Background(), "story")
			if !errors.Is(err, ErrUnreadableReply) || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), h.srv.URL) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			msgs := h.messages()
			if roles(msgs) != "user,assistant" || msgs[1].Content != "Hello partial" || msgs[1].Status != memory.StatusInterrupted ||
				!strings.HasSuffix(err.Error(), "the partial answer was kept") {
				t.Fatalf("stored %+v, err %v", msgs, err)
			}
		})
	}
	// As the first line, it leaves no partial answer to speak of.
	h := newHarness(t, nil)
	h.srv.Script(fakeollama.Reply{RawLine: "garbage"})
	if _, _, err := h.run(context.Background(), "story"); !errors.Is(err, ErrUnreadableReply) || strings.Contains(err.Error(), "partial") {
		t.Fatalf("err = %v", err)
	}
}
