package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tools"
)

// counter is a side-effecting test tool that counts its runs.
type counter struct{ runs *atomic.Int64 }

func (counter) Definition() api.Tool {
	return api.Tool{Type: "function", Function: api.ToolFunction{Name: "tally", Description: "Counts."}}
}
func (counter) Tier() tools.Tier       { return tools.SideEffecting }
func (counter) Timeout() time.Duration { return time.Second }
func (c counter) Run(context.Context, tools.Session, json.RawMessage) (tools.Result, error) {
	c.runs.Add(1)
	return tools.Result{Content: "ok"}, nil
}

// TestToolCallsPerReplyAreCapped: a reply with 200 calls runs only the
// first MaxToolCallsPerReply; every other call gets an error result saying
// why, and the turn goes on.
func TestToolCallsPerReplyAreCapped(t *testing.T) {
	var runs atomic.Int64
	h := newHarness(t, nil, WithTools(tools.NewRegistry(nil, counter{&runs})))
	calls := make([]api.ToolCall, 200)
	for i := range calls {
		calls[i] = fakeollama.ToolCall("tally", map[string]any{"n": i})
	}
	h.srv.Script(fakeollama.Reply{ToolCalls: calls}, fakeollama.Say("Done."))
	res, _, err := h.run(context.Background(), "count a lot")
	if err != nil {
		t.Fatal(err)
	}
	if runs.Load() != MaxToolCallsPerReply {
		t.Fatalf("the tool ran %d times, want %d", runs.Load(), MaxToolCallsPerReply)
	}
	if res.Answer != "Done." || len(res.ToolCalls) != 200 {
		t.Fatalf("answer %q, %d tool activities", res.Answer, len(res.ToolCalls))
	}
	sent := h.srv.LastRequest().Messages
	var ok, refused int
	for _, m := range sent {
		switch {
		case m.Role == "tool" && m.Content == "ok":
			ok++
		case m.Role == "tool" && strings.Contains(m.Content, "at most 16 tool calls"):
			refused++
		}
	}
	if ok != 16 || refused != 184 {
		t.Fatalf("results sent back: %d ok, %d refused", ok, refused)
	}
}

// TestHugeToolInputIsBoundedWhereEchoedAndStored: an unknown field name of
// 200,000 characters is not echoed whole into the tool error, and 1 MB of
// arguments is not stored whole; both say what was cut.
func TestHugeToolInputIsBoundedWhereEchoedAndStored(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil)
	ix, err := index.OpenIndex(ctx, h.store, t.TempDir(), index.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	h.agent = New(h.agent.client, h.store, WithModel(fakeollama.DefaultChatModel), WithHost(h.srv.URL),
		WithTools(tools.NewRegistry(nil, tools.MemoryTools(ix)...)))
	longName := strings.Repeat("x", 50_000) // under the size bound: it reaches the tool
	h.srv.Script(
		fakeollama.Reply{ToolCalls: []api.ToolCall{
			fakeollama.ToolCall(tools.MemorySaveName, map[string]any{"content": "fine", longName: 1}),
			fakeollama.ToolCall(tools.MemorySaveName, map[string]any{"content": strings.Repeat("y", 1<<20)}),
		}},
		fakeollama.Say("Sorry."),
	)
	if _, _, err := h.run(ctx, "save"); err != nil {
		t.Fatal(err)
	}
	msgs := h.messages()
	if roles(msgs) != "user,assistant,tool,tool,assistant" {
		t.Fatalf("stored roles = %s", roles(msgs))
	}
	if c := msgs[2].Content; len(c) > 4<<10 || !strings.Contains(c, "unknown field") || !strings.Contains(c, "[cut: ") {
		t.Fatalf("unknown field result: %d bytes, %.200q", len(c), c)
	}
	if !strings.Contains(msgs[3].Content, "1,048,") || !strings.Contains(msgs[3].Content, "not run") {
		t.Fatalf("oversized call result = %.300q", msgs[3].Content)
	}
	big := msgs[1].ToolCalls[1].Arguments
	if len(big) > 4<<10 || !strings.Contains(string(big), "[cut: 1,047,") {
		t.Fatalf("stored arguments: %d bytes, %.200q", len(big), big)
	}
	sent := h.srv.LastRequest().Messages
	for _, m := range sent {
		if len(m.Content) > 4<<10 {
			t.Fatalf("%s message of %d bytes sent back to the model", m.Role, len(m.Content))
		}
	}
	notes, err := h.store.ListNotes(ctx, "alice")
	if err == nil && len(notes) != 0 {
		t.Fatalf("%d notes saved from refused calls", len(notes))
	}
}

// TestArgumentsThatAreNotAnObjectGetAnErrorResult: calls whose arguments
// are a string, an array or a number on the wire do not end the turn:
// each gets an error result naming what it was, a good call in the same
// reply still runs, and the model answers.
func TestArgumentsThatAreNotAnObjectGetAnErrorResult(t *testing.T) {
	h := newHarness(t, nil, WithTools(tools.NewRegistry(nil, upper{})))
	h.srv.Script(
		fakeollama.Reply{
			ToolCalls: []api.ToolCall{fakeollama.ToolCall("shout", map[string]any{"text": "hi"})},
			RawToolCalls: []json.RawMessage{
				json.RawMessage(`{"function":{"name":"shout","arguments":"{\"text\": \"trunc"}}`),
				json.RawMessage(`{"function":{"name":"shout","arguments":["a","b"]}}`),
				json.RawMessage(`{"function":{"name":"shout","arguments":42}}`),
			},
		},
		fakeollama.Say("Sorry about that."),
	)
	res, _, err := h.run(context.Background(), "shout")
	if err != nil {
		t.Fatalf("the turn failed: %v", err)
	}
	if res.Answer != "Sorry about that." || len(res.ToolCalls) != 4 {
		t.Fatalf("answer %q, tool calls %+v", res.Answer, res.ToolCalls)
	}
	if res.ToolCalls[0].Result != "HI" {
		t.Fatalf("the good call = %+v", res.ToolCalls[0])
	}
	for i, kind := range []string{"a string", "an array", "a number"} {
		if e := res.ToolCalls[i+1].Error; !strings.Contains(e, "must be a JSON object") || !strings.Contains(e, kind) {
			t.Fatalf("call %d error = %q, want one saying it was %s", i+1, e, kind)
		}
	}
	sent := h.srv.LastRequest().Messages
	var results []string
	for _, m := range sent {
		if m.Role == "tool" {
			results = append(results, m.Content)
		}
	}
	if len(results) != 4 || !strings.Contains(results[1], `trunc`) || !strings.Contains(results[2], "an array") {
		t.Fatalf("tool results sent back = %q", results)
	}
	if got := roles(h.messages()); got != "user,assistant,tool,tool,tool,tool,assistant" {
		t.Fatalf("stored roles = %s", got)
	}
}

// TestExplainSaysStuckFromMissing: nothing at the address is "is it
// running?"; something there that does not answer in time is not called
// missing. Both are ErrOllamaUnreachable, so the chat goes offline either way.
func TestExplainSaysStuckFromMissing(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: syscall.ECONNREFUSED}
	for _, c := range []struct {
		err       error
		want, not string
	}{
		{refused, "is it running? Start it with `ollama serve`", "did not answer"},
		{fmt.Errorf("head: %w", context.DeadlineExceeded), "it did not answer in time (busy or stuck?)", "is it running"},
	} {
		got := ExplainError(c.err, "http://127.0.0.1:11434", "m")
		if !errors.Is(got, ErrOllamaUnreachable) || !strings.Contains(got.Error(), c.want) || strings.Contains(got.Error(), c.not) {
			t.Errorf("ExplainError(%v) = %v, want one saying %q", c.err, got, c.want)
		}
	}
}

// callStream serves a first reply streamed as n chunks of one tool call
// each, with no text, then "Done." to every later request.
func callStream(t *testing.T, n int) *api.Client {
	var requests atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/api/chat" {
			return
		}
		w.Header().Set("Content-Type", "application/x-ndjson")
		if requests.Add(1) > 1 {
			fmt.Fprintln(w, `{"message":{"role":"assistant","content":"Done."},"done":true,"done_reason":"stop"}`)
			return
		}
		for i := range n {
			fmt.Fprintf(w, `{"message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"tally","arguments":{"n":%d}}}]},"done":false}`+"\n", i)
		}
		fmt.Fprintln(w, `{"message":{"role":"assistant","content":""},"done":true,"done_reason":"stop"}`)
	}))
	t.Cleanup(srv.Close)
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(u, srv.Client())
}

// TestAReplyOfThousandsOfCallsIsBounded: a reply streamed as 3,000 chunks
// of one tool call each stores and answers at most 256 of them (16 run,
// the rest refused), and the model reads how many it made and that the
// rest were dropped; before, every call was kept and answered with its
// own write (8.5 s after Ctrl+C). Tool calls count toward
// max_answer_tokens like text: at 100 the reply is cut there.
func TestAReplyOfThousandsOfCallsIsBounded(t *testing.T) {
	var runs atomic.Int64
	h := newHarness(t, nil)
	h.agent = New(callStream(t, 3000), h.store, WithModel("m"), WithTools(tools.NewRegistry(nil, counter{&runs})))
	res, _, err := h.run(context.Background(), "count a lot")
	if err != nil {
		t.Fatal(err)
	}
	if runs.Load() != MaxToolCallsPerReply || len(res.ToolCalls) != maxCallsKept || res.Answer != "Done." {
		t.Fatalf("ran %d, %d activities, answer %q", runs.Load(), len(res.ToolCalls), res.Answer)
	}
	last := res.ToolCalls[len(res.ToolCalls)-1]
	if !strings.Contains(last.Error, "this reply made 3000 (the last 2744 were dropped unanswered)") {
		t.Fatalf("the model reads: %q", last.Error)
	}

	h = newHarness(t, nil)
	h.agent = New(callStream(t, 5000), h.store, WithModel("m"), WithMaxAnswerTokens(100), WithTools(tools.NewRegistry(nil, counter{&runs})))
	res, _, err = h.run(context.Background(), "count a lot")
	if err != nil {
		t.Fatal(err)
	}
	if !res.Cut || len(res.ToolCalls) > 100 {
		t.Fatalf("with max_answer_tokens 100: cut %v, %d activities", res.Cut, len(res.ToolCalls))
	}
}
