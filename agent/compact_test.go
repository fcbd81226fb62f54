package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/internal/ollama"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tools"
)

// compactHarness is an agent with compaction and titles, a fake Ollama
// whose summary requests are answered apart from chat requests, and a
// real store.
type compactHarness struct {
	*harness
	client *api.Client
}

func newCompactHarness(t *testing.T, cfg Compaction, opts ...Option) *compactHarness {
	t.Helper()
	srv := fakeollama.New(t)
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
	client := api.NewClient(u, http.DefaultClient)
	opts = append([]Option{WithModel(fakeollama.DefaultChatModel), WithHost(srv.URL),
		WithCompaction(store, cfg), WithTitles(store, client)}, opts...)
	h := &compactHarness{harness: &harness{t: t, srv: srv, store: store, conv: conv, agent: New(client, store, opts...)}, client: client}
	h.answerSummaries(func(req api.ChatRequest) fakeollama.Reply { return fakeollama.Say(ledger(req)) })
	return h
}

// isSummaryRequest tells the agent's summary requests from chat requests.
func isSummaryRequest(req api.ChatRequest) bool {
	return len(req.Messages) > 0 && strings.HasPrefix(req.Messages[0].Content, "You keep a running summary")
}

var questionRe = regexp.MustCompile(`question \d+`)

// ledger is the fake summariser: it lists every "question N" it was shown,
// in the previous summary and in the new messages, so a summary says
// exactly what it covers.
func ledger(req api.ChatRequest) string {
	seen := map[string]bool{}
	var qs []string
	for _, q := range questionRe.FindAllString(req.Messages[len(req.Messages)-1].Content, -1) {
		if !seen[q] {
			seen[q] = true
			qs = append(qs, q)
		}
	}
	return "Ledger of the conversation: the user asked " + strings.Join(qs, ", ") + "."
}

// answerSummaries answers summary requests with fn and chat requests by echo.
func (h *compactHarness) answerSummaries(fn func(api.ChatRequest) fakeollama.Reply) {
	h.srv.SetDefault(func(req api.ChatRequest) fakeollama.Reply {
		if isSummaryRequest(req) {
			return fn(req)
		}
		last := req.Messages[len(req.Messages)-1]
		return fakeollama.Say("You said: " + last.Content)
	})
}

func (h *compactHarness) mustRun(prompt string) (Result, []Event) {
	h.t.Helper()
	res, events, err := h.run(context.Background(), prompt)
	if err != nil {
		h.t.Fatalf("run %q: %v", prompt, err)
	}
	return res, events
}

// chatRequests are the chat (not summary) requests received, in order.
func (h *compactHarness) chatRequests() []api.ChatRequest {
	var out []api.ChatRequest
	for _, r := range h.srv.Requests() {
		if !isSummaryRequest(r) {
			out = append(out, r)
		}
	}
	return out
}

func (h *compactHarness) summaryRequests() []api.ChatRequest {
	var out []api.ChatRequest
	for _, r := range h.srv.Requests() {
		if isSummaryRequest(r) {
			out = append(out, r)
		}
	}
	return out
}

func (h *compactHarness) latestSummary() memory.Summary {
	h.t.Helper()
	s, err := h.store.LatestSummary(context.Background(), "alice", h.conv.ID)
	if err != nil {
		h.t.Fatalf("latest summary: %v", err)
	}
	return s
}

// summaryMessages counts the summary messages of a request.
func summaryMessages(req api.ChatRequest) []api.Message {
	var out []api.Message
	for _, m := range req.Messages {
		if m.Role == "system" && strings.HasPrefix(m.Content, SummaryHeading) {
			out = append(out, m)
		}
	}
	return out
}

// withoutSystemPrompt drops the first message (the system prompt).
func withoutSystemPrompt(t *testing.T, req api.ChatRequest) []api.Message {
	t.Helper()
	if len(req.Messages) == 0 || req.Messages[0].Role != "system" || strings.HasPrefix(req.Messages[0].Content, SummaryHeading) {
		t.Fatalf("request does not start with the system prompt: %+v", req.Messages)
	}
	return req.Messages[1:]
}

// TestFortyTurnsKeepOneSummaryAndTheWindow: with the default window of 30,
// the 40th request holds the system prompt, one summary and at most 29
// other messages; the summary covers exactly the messages before them;
// every message is still stored; and the summary is searchable.
func TestFortyTurnsKeepOneSummaryAndTheWindow(t *testing.T) {
	h := newCompactHarness(t, Compaction{ContextWindow: 8192})
	compactions := 0
	for i := 1; i <= 40; i++ {
		res, events := h.mustRun(fmt.Sprintf("question %d: tell me about animal number %d", i, i))
		if res.Compacted {
			compactions++
			if !hasEvent[CompactedEvent](events) || !hasEvent[CompactingEvent](events) {
				t.Fatalf("turn %d compacted without events: %+v", i, events)
			}
		}
		if res.ContextWindow != 8192 || res.ContextTokens == 0 {
			t.Fatalf("turn %d: window %d tokens %d", i, res.ContextWindow, res.ContextTokens)
		}
		if n := len(withoutSystemPrompt(t, h.srv.LastRequest())); n > DefaultWindowSize {
			t.Fatalf("turn %d sent %d messages", i, n)
		}
	}
	if compactions < 2 {
		t.Fatalf("compactions = %d, want the window to be compacted more than once", compactions)
	}
	msgs := h.messages()
	if len(msgs) != 80 {
		t.Fatalf("stored messages = %d, want all 80", len(msgs))
	}

	reqs := h.chatRequests()
	last := reqs[len(reqs)-1]
	sent := withoutSystemPrompt(t, last)
	sums := summaryMessages(last)
	if len(sums) != 1 || sent[0].Content != sums[0].Content {
		t.Fatalf("last request: %d summary messages, first message %q", len(sums), sent[0].Content)
	}
	if len(sent)-1 > DefaultWindowSize-1 {
		t.Fatalf("last request: %d messages besides the summary", len(sent)-1)
	}
	// The summary covers messages 1..LastSeq, and exactly the messages
	// after it follow, verbatim.
	sum := h.latestSummary()
	if sum.FirstSeq != 1 || !strings.Contains(sums[0].Content, sum.Text) {
		t.Fatalf("summary %+v sent as %q", sum, sums[0].Content)
	}
	after := msgs[sum.LastSeq : len(msgs)-1] // the last answer came after the request
	if len(after) != len(sent)-1 {
		t.Fatalf("summary covers 1-%d: %d messages follow it, %d were sent", sum.LastSeq, len(after), len(sent)-1)
	}
	for i, m := range after {
		if got := sent[i+1]; got.Role != string(m.Role) || got.Content != m.Content {
			t.Fatalf("message %d after the summary: sent %s %q, stored %s %q", i, got.Role, got.Content, m.Role, m.Content)
		}
	}
	// Cumulative: the last summary lists every question it covers, from the first.
	firstKept := questionRe.FindString(after[0].Content)
	var lastCovered int
	fmt.Sscanf(questionRe.FindString(msgs[sum.LastSeq-1].Content), "question %d", &lastCovered)
	for q := 1; q <= lastCovered; q++ {
		if !strings.Contains(sum.Text, fmt.Sprintf("question %d,", q)) && !strings.HasSuffix(sum.Text, fmt.Sprintf("question %d.", q)) {
			t.Fatalf("summary lacks question %d (covers up to %d, %s kept): %s", q, lastCovered, firstKept, sum.Text)
		}
	}
	// Each summary request carried the previous summary.
	sreqs := h.summaryRequests()
	if len(sreqs) != compactions {
		t.Fatalf("%d summary requests for %d compactions", len(sreqs), compactions)
	}
	if got := sreqs[len(sreqs)-1].Messages[1].Content; !strings.Contains(got, "Previous summary:\nLedger of the conversation") {
		t.Fatalf("the last summary request did not carry the previous summary:\n%s", got)
	}

	// The summary is searchable, as a conversation-level result, by words
	// and by meaning.
	ctx := context.Background()
	ix, err := index.OpenIndex(ctx, h.store, t.TempDir(), index.IndexOptions{
		Embed: h.client, Model: index.EmbedModel{Name: fakeollama.DefaultEmbedModel, ContextLength: 2048},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	found, err := ix.FindConversations(ctx, index.FindQuery{UserID: "alice", Text: "ledger"})
	if err != nil || len(found) != 1 || found[0].ID != h.conv.ID || !strings.Contains(found[0].Snippet, "Ledger") ||
		!strings.Contains(strings.Join(found[0].MatchedBy, ","), index.FoundBySummary) {
		t.Fatalf("find by the summary's words: %+v %v", found, err)
	}
	embedded := false
	for _, r := range h.srv.EmbedRequests() {
		if in, ok := r.Input.([]any); ok {
			for _, x := range in {
				embedded = embedded || x == sum.Text
			}
		}
	}
	if !embedded {
		t.Fatal("the summary text was never embedded")
	}
}

func hasEvent[E Event](events []Event) bool {
	for _, e := range events {
		if _, ok := e.(E); ok {
			return true
		}
	}
	return false
}

func notices(events []Event) []string {
	var out []string
	for _, e := range events {
		if n, ok := e.(NoticeEvent); ok {
			out = append(out, n.Text)
		}
	}
	return out
}

// TestFailingSummariserFallsBack: when the summariser fails (an error, an
// empty answer, a timeout), the oldest messages are left out of the
// request, the user is told, every turn still completes and nothing is
// lost; the next turn tries again and, once the model answers, the
// summary covers the conversation from its first message.
func TestFailingSummariserFallsBack(t *testing.T) {
	for name, fail := range map[string]fakeollama.Reply{
		"error":   {Status: http.StatusInternalServerError, Error: "model crashed"},
		"empty":   {},
		"timeout": {Hold: true},
	} {
		t.Run(name, func(t *testing.T) {
			h := newCompactHarness(t, Compaction{ContextWindow: 8192, WindowSize: 8, Timeout: 500 * time.Millisecond})
			h.answerSummaries(func(api.ChatRequest) fakeollama.Reply { return fail })
			told := 0
			for i := 1; i <= 10; i++ {
				prompt := fmt.Sprintf("question %d", i)
				res, events := h.mustRun(prompt)
				if res.Answer != "You said: "+prompt || res.Compacted {
					t.Fatalf("turn %d: %+v", i, res)
				}
				if res.Dropped > 0 {
					told++
					if n := notices(events); len(n) != 1 || !strings.Contains(n[0], "Could not summarise") {
						t.Fatalf("turn %d dropped %d messages with notices %q", i, res.Dropped, n)
					}
				}
				sent := withoutSystemPrompt(t, h.srv.LastRequest())
				if len(sent) > 8 || len(summaryMessages(h.srv.LastRequest())) != 0 || sent[len(sent)-1].Content != prompt {
					t.Fatalf("turn %d sent %+v", i, sent)
				}
			}
			if told == 0 || len(h.messages()) != 20 {
				t.Fatalf("told %d times, %d messages stored", told, len(h.messages()))
			}
			if _, err := h.store.LatestSummary(context.Background(), "alice", h.conv.ID); !errors.Is(err, memory.ErrNotFound) {
				t.Fatalf("a failed summary was stored: %v", err)
			}

			// The summariser is back: the next turn summarises from the start.
			h.answerSummaries(func(req api.ChatRequest) fakeollama.Reply { return fakeollama.Say(ledger(req)) })
			res, _ := h.mustRun("question 11")
			sum := h.latestSummary()
			if !res.Compacted || res.Dropped != 0 || sum.FirstSeq != 1 || !strings.HasPrefix(sum.Text, "Ledger of the conversation: the user asked question 1, question 2,") {
				t.Fatalf("after recovery: %+v, summary %+v", res, sum)
			}
			if len(summaryMessages(h.srv.LastRequest())) != 1 {
				t.Fatal("the request after recovery has no summary")
			}
		})
	}
}

// TestToolPairsSurviveCompaction: whatever the window, no request holds a
// tool result without the call that asked for it, or a call without its
// results, and no summary ends between them.
func TestToolPairsSurviveCompaction(t *testing.T) {
	for window := 4; window <= 9; window++ {
		t.Run(fmt.Sprint("window ", window), func(t *testing.T) {
			h := newCompactHarness(t, Compaction{ContextWindow: 8192, WindowSize: window})
			h.srv.SetDefault(func(req api.ChatRequest) fakeollama.Reply {
				if isSummaryRequest(req) {
					return fakeollama.Say(ledger(req))
				}
				if req.Messages[len(req.Messages)-1].Role == "user" {
					return fakeollama.Reply{ToolCalls: []api.ToolCall{
						fakeollama.ToolCall("lookup", map[string]any{"q": "a"}),
						fakeollama.ToolCall("lookup", map[string]any{"q": "b"}),
					}}
				}
				return fakeollama.Say("Looked it up.")
			})
			for i := 1; i <= 8; i++ {
				h.mustRun(fmt.Sprintf("question %d", i))
			}
			for n, req := range h.chatRequests() {
				checkToolPairs(t, n, req.Messages)
			}
			sums, err := h.store.Summaries(context.Background(), "alice", h.conv.ID)
			if err != nil || len(sums) == 0 {
				t.Fatalf("summaries: %v %v", sums, err)
			}
			msgs := h.messages()
			for _, s := range sums {
				if next := msgs[s.LastSeq]; next.Role == memory.RoleTool {
					t.Fatalf("summary 1-%d ends between a call and its results", s.LastSeq)
				}
			}
		})
	}
}

func checkToolPairs(t *testing.T, n int, msgs []api.Message) {
	t.Helper()
	pending := map[string]bool{}
	for i, m := range msgs {
		switch {
		case m.Role == "tool":
			if !pending[m.ToolCallID] {
				t.Fatalf("request %d: tool result %d (%s) without its call: %+v", n, i, m.ToolCallID, msgs)
			}
			delete(pending, m.ToolCallID)
		case len(pending) > 0:
			t.Fatalf("request %d: message %d comes before the results of %v", n, i, pending)
		}
		for _, c := range m.ToolCalls {
			pending[c.ID] = true
		}
	}
	if len(pending) > 0 {
		t.Fatalf("request %d ends with calls without results: %v", n, pending)
	}
}

// TestCompactionByTokens: a request that would pass compact_at of the
// context window is compacted before the message count is reached, by
// Ollama's count of the last request and by the estimate of new text.
func TestCompactionByTokens(t *testing.T) {
	h := newCompactHarness(t, Compaction{ContextWindow: 1000, SummaryTokens: 50})
	h.mustRun("question 1")
	// Ollama counted the last request as large (a tokenizer that splits
	// finely): the next request is compacted although it has 3 messages.
	h.srv.Script(fakeollama.Reply{Content: []string{"Short answer."}, PromptEvalCount: 700, EvalCount: 100})
	if res, _ := h.mustRun("question 2"); res.Compacted || res.ContextTokens != 800 {
		t.Fatalf("turn 2: %+v", res)
	}
	res, _ := h.mustRun("question 3")
	if !res.Compacted || h.latestSummary().LastSeq < 2 {
		t.Fatalf("turn 3 by the measured count: %+v, summary %+v", res, h.latestSummary())
	}
	// A long prompt is estimated before Ollama ever counts it.
	res, _ = h.mustRun("question 4 " + strings.Repeat("word ", 600))
	if !res.Compacted {
		t.Fatalf("turn 4 by the estimate: %+v", res)
	}
	if n := len(withoutSystemPrompt(t, h.srv.LastRequest())); n != 2 {
		t.Fatalf("turn 4 sent %d messages, want the summary and the prompt", n)
	}
	if len(h.messages()) != 8 {
		t.Fatalf("stored %d messages", len(h.messages()))
	}
}

// TestPromptLargerThanTheContextIsTold: a prompt that alone exceeds the
// context window is still sent, with a notice saying the model sees only
// part of it; a prompt that fits has no notice.
func TestPromptLargerThanTheContextIsTold(t *testing.T) {
	h := newCompactHarness(t, Compaction{ContextWindow: 1000, SummaryTokens: 50})
	notice := func(events []Event) string {
		for _, ev := range events {
			if n, ok := ev.(NoticeEvent); ok && strings.Contains(n.Text, "more than the 1000 the model's context holds") {
				return n.Text
			}
		}
		return ""
	}
	if _, events := h.mustRun("a short question"); notice(events) != "" {
		t.Fatalf("a short prompt was told it does not fit")
	}
	if res, events := h.mustRun(strings.Repeat("a long pasted log line ", 400)); notice(events) == "" || !res.Truncated {
		t.Fatalf("a prompt of ~2,300 tokens in a 1,000-token context had no notice: %v", events)
	}
	// A prompt the estimate took for one that fits, but of shorter tokens
	// (code, CJK) than it reckons: Ollama counts the whole context, having
	// cut the request's start, and that is said too, once.
	h = newCompactHarness(t, Compaction{ContextWindow: 1000, SummaryTokens: 50})
	h.srv.Script(fakeollama.Reply{Content: []string{"ok"}, PromptEvalCount: 1000, EvalCount: 10})
	res, events := h.mustRun("短い質問ですが、トークンは多い")
	var told []string
	for _, n := range notices(events) {
		if strings.Contains(n, "filled the model's whole 1000-token context") {
			told = append(told, n)
		}
	}
	if len(told) != 1 || !res.Truncated {
		t.Fatalf("a request Ollama cut: truncated %v, notices %q", res.Truncated, notices(events))
	}
}

// TestCompactNow: Compact summarises all but the last turn at once.
func TestCompactNow(t *testing.T) {
	h := newCompactHarness(t, Compaction{ContextWindow: 8192})
	var events []Event
	emit := func(e Event) { events = append(events, e) }
	if res, err := h.agent.Compact(context.Background(), "alice", h.conv.ID, emit); err != nil || res.Compacted {
		t.Fatalf("empty conversation: %+v %v", res, err)
	}
	if n := notices(events); len(n) != 1 || !strings.Contains(n[0], "Nothing to compact") {
		t.Fatalf("notices %q", n)
	}
	for i := 1; i <= 3; i++ {
		h.mustRun(fmt.Sprintf("question %d", i))
	}
	events = nil
	res, err := h.agent.Compact(context.Background(), "alice", h.conv.ID, emit)
	if err != nil || !res.Compacted {
		t.Fatalf("compact: %+v %v", res, err)
	}
	var ce CompactedEvent
	for _, e := range events {
		if c, ok := e.(CompactedEvent); ok {
			ce = c
		}
	}
	if ce.FirstSeq != 1 || ce.LastSeq != 4 || ce.AtSeq != 6 || !strings.Contains(ce.Summary, "question 1, question 2") {
		t.Fatalf("compacted event %+v", ce)
	}
	if _, ok := events[len(events)-1].(DoneEvent); !ok {
		t.Fatalf("last event %T", events[len(events)-1])
	}
	// Again at once: nothing is left to compact, and it says why.
	events = nil
	if res, err := h.agent.Compact(context.Background(), "alice", h.conv.ID, emit); err != nil || res.Compacted {
		t.Fatalf("compact again: %+v %v", res, err)
	}
	if n := notices(events); len(n) != 1 || !strings.Contains(n[0], "already compacted up to its last turn") {
		t.Fatalf("compact again: notices %q", n)
	}
	h.mustRun("question 4")
	sent := withoutSystemPrompt(t, h.srv.LastRequest())
	if len(sent) != 4 || !strings.HasPrefix(sent[0].Content, SummaryHeading) || sent[1].Content != "question 3" || sent[3].Content != "question 4" {
		t.Fatalf("after compacting: %+v", sent)
	}
	// Without compaction configured, Compact says so.
	plain := New(h.client, h.store, WithModel(fakeollama.DefaultChatModel))
	if _, err := plain.Compact(context.Background(), "alice", h.conv.ID, nil); !errors.Is(err, ErrNoCompaction) {
		t.Fatalf("unconfigured: %v", err)
	}
}

// TestTitlesFromTheModel: the model titles a conversation from its first
// exchange (cleaned up), once; again from a summary when the topic has
// clearly changed; and never over the user's own title.
func TestTitlesFromTheModel(t *testing.T) {
	ctx := context.Background()
	h := newCompactHarness(t, Compaction{ContextWindow: 8192, WindowSize: 6})
	h.srv.SetGenerate(func(req api.GenerateRequest) fakeollama.Reply {
		if strings.Contains(req.Prompt, "Summary of the earlier part") {
			return fakeollama.Say(`{"title": "Sourdough baking"}`)
		}
		return fakeollama.Say(`{"title": "Title: **Lisbon \u001b[31mtrip planning**."}`)
	})
	h.mustRun("plan a trip to lisbon with me")
	if changed, err := h.agent.Retitle(ctx, "alice", h.conv.ID); err != nil || !changed {
		t.Fatalf("retitle: %v %v", changed, err)
	}
	title := func() string {
		c, err := h.store.Conversation(ctx, "alice", h.conv.ID)
		if err != nil {
			t.Fatal(err)
		}
		return c.Title
	}
	if got := title(); got != "Lisbon trip planning" {
		t.Fatalf("title = %q", got)
	}
	gen := h.srv.GenerateRequests()
	if len(gen) != 1 || !strings.Contains(gen[0].Prompt, "User: plan a trip to lisbon with me") || len(gen[0].Format) == 0 {
		t.Fatalf("title requests %+v", gen)
	}
	// Once only: later runs and calls do not ask again.
	h.mustRun("question 2 about lisbon")
	if changed, _ := h.agent.Retitle(ctx, "alice", h.conv.ID); changed || len(h.srv.GenerateRequests()) != 1 {
		t.Fatalf("asked for a title again: %d requests", len(h.srv.GenerateRequests()))
	}
	// The topic moves on to bread: once the window is compacted and no
	// title word is left in the recent messages, the title follows, when
	// Retitle runs after an answer; no answer waits for a title call.
	for i := 3; i <= 8; i++ {
		h.mustRun(fmt.Sprintf("question %d: how do I feed a sourdough starter?", i))
		if n := len(h.srv.GenerateRequests()); n != 1 {
			t.Fatalf("run %d made a title request before its answer (%d)", i, n)
		}
	}
	if changed, err := h.agent.Retitle(ctx, "alice", h.conv.ID); err != nil || !changed {
		t.Fatalf("retitle after the topic changed: %v %v", changed, err)
	}
	if got := title(); got != "Sourdough baking" {
		t.Fatalf("title after the topic changed = %q (%d title requests)", got, len(h.srv.GenerateRequests()))
	}
	// Once for that summary: asking again makes no request.
	if changed, _ := h.agent.Retitle(ctx, "alice", h.conv.ID); changed || len(h.srv.GenerateRequests()) != 2 {
		t.Fatalf("asked for a title again: %d requests", len(h.srv.GenerateRequests()))
	}
	// The user's title is never replaced.
	if err := h.store.RenameConversation(ctx, "alice", h.conv.ID, "My notes"); err != nil {
		t.Fatal(err)
	}
	h.srv.SetGenerate(func(api.GenerateRequest) fakeollama.Reply { return fakeollama.Say(`{"title": "Something else"}`) })
	for i := 9; i <= 16; i++ {
		h.mustRun(fmt.Sprintf("question %d: tell me about violins", i))
		h.agent.Retitle(ctx, "alice", h.conv.ID)
	}
	if got := title(); got != "My notes" {
		t.Fatalf("title = %q, want the user's", got)
	}
}

// TestRetitleChecksASummaryOnce: a summary on the same topic as the title
// is checked once: the title state records it, and later Retitles (one
// after every answer in the chat) read nothing until a newer summary.
func TestRetitleChecksASummaryOnce(t *testing.T) {
	ctx := context.Background()
	h := newCompactHarness(t, Compaction{ContextWindow: 8192, WindowSize: 4})
	h.srv.SetGenerate(func(api.GenerateRequest) fakeollama.Reply { return fakeollama.Say(`{"title": "Lisbon trip"}`) })
	for i := 1; i <= 5; i++ {
		h.mustRun(fmt.Sprintf("question %d about the lisbon trip", i))
		h.agent.Retitle(ctx, "alice", h.conv.ID)
	}
	sum, err := h.store.LatestSummary(ctx, "alice", h.conv.ID)
	if err != nil {
		t.Fatalf("no summary after 5 turns in a window of 4: %v", err)
	}
	ts, err := h.store.ConversationTitle(ctx, "alice", h.conv.ID)
	if err != nil || ts.Title != "Lisbon trip" || ts.Seq != sum.AtSeq || len(h.srv.GenerateRequests()) != 1 {
		t.Fatalf("title state %+v (%v), summary at %d, %d title requests", ts, err, sum.AtSeq, len(h.srv.GenerateRequests()))
	}
}

// TestTitleFailureKeepsTheTitle: a model that does not answer with a JSON
// title leaves the title derived from the prompt, and is asked once.
func TestTitleFailureKeepsTheTitle(t *testing.T) {
	ctx := context.Background()
	h := newCompactHarness(t, Compaction{ContextWindow: 8192})
	h.mustRun("hello there")
	if changed, err := h.agent.Retitle(ctx, "alice", h.conv.ID); err != nil || changed {
		t.Fatalf("retitle with the echo default: %v %v", changed, err)
	}
	h.mustRun("second")
	c, _ := h.store.Conversation(ctx, "alice", h.conv.ID)
	if c.Title != "hello there" || len(h.srv.GenerateRequests()) != 1 {
		t.Fatalf("title %q after %d requests", c.Title, len(h.srv.GenerateRequests()))
	}
}

func TestCleanTitle(t *testing.T) {
	for in, want := range map[string]string{
		`"Trip to Lisbon"`:              "Trip to Lisbon",
		"Title: Bread\nand more":        "Bread",
		"\n\n  # Planning a **garden**": "Planning a **garden",
		"\x1b]0;x\x07Safe":              "Safe",
		"\x1b]0;PWNED\x07Evil \x1b[31mRed\x1b[0m election title": "Evil Red election title",
		strings.Repeat("long ", 30):                              strings.TrimSpace(strings.Repeat("long ", 12)) + "…",
		"  ":                                                     "",
	} {
		if got := CleanTitle(in); got != want {
			t.Errorf("CleanTitle(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestContextWindowResolution: the context the agent budgets for is the
// configured num_ctx, else the model's context_length as /api/show reports
// it, capped by MaxContextWindow (8192 by default), else the cap.
func TestContextWindowResolution(t *testing.T) {
	ctx := context.Background()
	srv := fakeollama.New(t, fakeollama.WithModels(
		fakeollama.Model{Name: "long", Capabilities: []string{"completion"}, ContextLength: 131072},
		fakeollama.Model{Name: "short", Capabilities: []string{"completion"}, ContextLength: 4096},
	))
	u, _ := url.Parse(srv.URL)
	client := api.NewClient(u, http.DefaultClient)
	down := api.NewClient(&url.URL{Scheme: "http", Host: "127.0.0.1:1"}, http.DefaultClient)
	store, err := memory.Open(ctx, filepath.Join(t.TempDir(), memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	for name, c := range map[string]struct {
		model string
		opts  []Option
		want  int
	}{
		"configured":             {"long", []Option{WithCompaction(store, Compaction{ContextWindow: 512, Show: client})}, 512},
		"num_ctx option":         {"long", []Option{WithModelOptions(map[string]any{"num_ctx": 1024}), WithCompaction(store, Compaction{Show: client})}, 1024},
		"long model, capped":     {"long", []Option{WithCompaction(store, Compaction{Show: client})}, DefaultMaxContext},
		"long model, other cap":  {"long", []Option{WithCompaction(store, Compaction{Show: client, MaxContextWindow: 32768})}, 32768},
		"short model, whole":     {"short", []Option{WithCompaction(store, Compaction{Show: client})}, 4096},
		"server down: the cap":   {"long", []Option{WithCompaction(store, Compaction{Show: down, MaxContextWindow: 16384})}, 16384},
		"nothing known: the cap": {"long", []Option{WithCompaction(store, Compaction{})}, DefaultMaxContext},
		"compaction not enabled": {"long", nil, 0},
	} {
		a := New(client, store, append([]Option{WithModel(c.model)}, c.opts...)...)
		if got := a.ContextWindow(ctx); got != c.want {
			t.Errorf("%s: window %d, want %d", name, got, c.want)
		}
	}
}

// TestChooseContext: one parser of /api/show, whatever Go type the
// context_length was decoded as, and a num_ctx parameter in the Modelfile
// wins over the length.
func TestChooseContext(t *testing.T) {
	info := func(v any) *api.ShowResponse {
		return &api.ShowResponse{ModelInfo: map[string]any{"general.architecture": "llama", "llama.context_length": v}}
	}
	for name, c := range map[string]struct {
		configured, max int
		show            *api.ShowResponse
		want            ContextChoice
	}{
		"float64 from JSON":     {0, 0, info(float64(131072)), ContextChoice{8192, 131072, ContextCapped, 0}},
		"int":                   {0, 0, info(131072), ContextChoice{8192, 131072, ContextCapped, 0}},
		"int64":                 {0, 0, info(int64(2048)), ContextChoice{2048, 2048, ContextModel, 0}},
		"json.Number":           {0, 16384, info(json.Number("131072")), ContextChoice{16384, 131072, ContextCapped, 0}},
		"a string is no number": {0, 0, info("131072"), ContextChoice{8192, 0, ContextUnknown, 0}},
		"no show":               {0, 4096, nil, ContextChoice{4096, 0, ContextUnknown, 0}},
		"configured wins":       {1024, 0, info(131072.0), ContextChoice{1024, 131072, ContextConfigured, 0}},
		"model parameter": {0, 0, &api.ShowResponse{Parameters: "temperature 0\nnum_ctx 256\nstop \"x\"", ModelInfo: info(512.0).ModelInfo},
			ContextChoice{256, 512, ContextParameter, 0}},
		"model num_predict": {4096, 0, &api.ShowResponse{Parameters: "num_predict 48\nnum_ctx 256"}, ContextChoice{4096, 0, ContextConfigured, 48}},
		"no limit":          {4096, 0, &api.ShowResponse{Parameters: "num_predict -1"}, ContextChoice{4096, 0, ContextConfigured, 0}},
	} {
		if got := ChooseContext(c.configured, c.max, c.show); got != c.want {
			t.Errorf("%s: %+v, want %+v", name, got, c.want)
		}
	}
	if got := (ContextChoice{8192, 131072, ContextCapped, 0}).String(); got != "8192 tokens (model 131072, capped by num_ctx_max)" {
		t.Errorf("String() = %q", got)
	}
	for n, ok := range map[int]bool{-1: false, 0: false, 511: false, 512: true, 8192: true, MaxContext: true, MaxContext + 1: false} {
		if err := CheckContext(n); (err == nil) != ok || (err != nil && !errors.Is(err, ErrContextSize)) {
			t.Errorf("CheckContext(%d) = %v", n, err)
		}
	}
}

// TestEveryRequestCarriesTheContext: chat, summary and title requests all
// send options.num_ctx, the context the agent budgets for, so the server
// runs the model with the window compaction assumes.
func TestEveryRequestCarriesTheContext(t *testing.T) {
	h := newCompactHarness(t, Compaction{ContextWindow: 0, WindowSize: 4})
	h.agent.compact.cfg.Show = h.client // the fake chat model: context_length 4096
	for i := 1; i <= 4; i++ {
		h.mustRun(fmt.Sprintf("question %d", i))
		h.agent.Retitle(context.Background(), "alice", h.conv.ID) // as the chat does after each answer
	}
	summaries := 0
	for i, req := range h.srv.Requests() {
		if isSummaryRequest(req) {
			summaries++
		}
		if n := ollama.Number(req.Options["num_ctx"]); n != 4096 {
			t.Errorf("chat request %d: num_ctx %v, want 4096", i, req.Options["num_ctx"])
		}
	}
	if summaries == 0 {
		t.Error("a window of 4 messages never made a summary request")
	}
	gens := h.srv.GenerateRequests()
	if len(gens) == 0 {
		t.Fatal("no title request")
	}
	for i, req := range gens {
		if n := ollama.Number(req.Options["num_ctx"]); n != 4096 {
			t.Errorf("title request %d: num_ctx %v, want 4096", i, req.Options["num_ctx"])
		}
	}
}

// TestToolDefinitionsCountTowardsTheWindow: the tool definitions sent with
// every request take room in the context, so they count when deciding
// whether a request fits.
func TestToolDefinitionsCountTowardsTheWindow(t *testing.T) {
	ctx := context.Background()
	probe := newCompactHarness(t, Compaction{ContextWindow: 100000})
	ix, err := index.OpenIndex(ctx, probe.store, t.TempDir(), index.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	registry := tools.NewRegistry(nil, tools.MemoryTools(ix)...)
	withTools := New(probe.client, probe.store, WithModel(fakeollama.DefaultChatModel), WithTools(registry))
	defs := withTools.fixedTokens(nil)
	if defs < 100 {
		t.Fatalf("tool definitions estimated at %d tokens", defs)
	}
	// A window the history fits in without the definitions, not with them.
	sys := estimateMessages(probe.agent.systemMessages(nil))
	window := int(float64(sys+defs/2+60) / DefaultCompactAt)
	for name, c := range map[string]struct {
		opts []Option
		want bool
	}{
		"with tools":    {[]Option{WithTools(registry)}, true},
		"without tools": {nil, false},
	} {
		h := newCompactHarness(t, Compaction{ContextWindow: window}, c.opts...)
		h.mustRun("question 1")
		res, _ := h.mustRun("question 2")
		if res.Compacted != c.want {
			t.Errorf("%s: compacted = %v at window %d (definitions %d tokens)", name, res.Compacted, window, defs)
		}
	}
}

// TestImportedTitlesAreKept: a conversation imported with the title its
// export gave (ChatGPT's, Claude's) keeps it: the model does not retitle
// it. One imported with an app's placeholder ("New Chat", Open WebUI's) is
// titled as any other.
func TestImportedTitlesAreKept(t *testing.T) {
	ctx := context.Background()
	h := newCompactHarness(t, Compaction{ContextWindow: 8192, WindowSize: 6})
	h.srv.SetGenerate(func(api.GenerateRequest) fakeollama.Reply { return fakeollama.Say(`{"title": "A calm title"}`) })
	lines := []memory.ImportedMessage{
		{Record: memory.Record{Conversation: "gpt-1", Title: "My trip to Lisbon", Role: memory.RoleUser, Content: "plan a trip"}, SourceID: "1"},
		{Record: memory.Record{Conversation: "gpt-1", Title: "My trip to Lisbon", Role: memory.RoleAssistant, Content: "Sure."}, SourceID: "2"},
		{Record: memory.Record{Conversation: "gpt-2", Title: "New Chat", Role: memory.RoleUser, Content: "how do I bake bread"}, SourceID: "1"},
		{Record: memory.Record{Conversation: "gpt-2", Role: memory.RoleAssistant, Content: "With flour."}, SourceID: "2"},
	}
	next := 0
	if _, err := h.store.ImportMessages(ctx, "alice", func() (memory.ImportedMessage, error) {
		if next == len(lines) {
			return memory.ImportedMessage{}, io.EOF
		}
		next++
		return lines[next-1], nil
	}, memory.MessageImportOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err := h.store.ListConversations(ctx, "alice", memory.ListOptions{})
	if err != nil || len(list) != 3 { // with the harness's empty one
		t.Fatalf("imported %+v: %v", list, err)
	}
	for _, c := range list {
		if c.ID == h.conv.ID {
			continue
		}
		if _, err := h.agent.Retitle(ctx, "alice", c.ID); err != nil {
			t.Fatal(err)
		}
		got, err := h.store.Conversation(ctx, "alice", c.ID)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]string{"My trip to Lisbon": "My trip to Lisbon", "New Chat": "A calm title"}[c.Title]
		if got.Title != want {
			t.Errorf("imported as %q, titled %q after Retitle; want %q", c.Title, got.Title, want)
		}
	}
}

// bigTool is a tool whose definition alone takes about 700 tokens.
type bigTool struct{}

func (bigTool) Definition() api.Tool {
	return api.Tool{Type: "function", Function: api.ToolFunction{Name: "big", Description: strings.Repeat("Describes at length. ", 100)}}
}
func (bigTool) Tier() tools.Tier       { return tools.ReadOnly }
func (bigTool) Timeout() time.Duration { return time.Second }
func (bigTool) Run(context.Context, tools.Session, json.RawMessage) (tools.Result, error) {
	return tools.Result{Content: "ok"}, nil
}

// TestASmallContextForTheToolsIsSaid: tool definitions that take more
// than half the model's context are said once, with the context to set:
// compaction then runs every turn or two, each summary a model call, and
// nothing said why (a model run with num_ctx 2048).
func TestASmallContextForTheToolsIsSaid(t *testing.T) {
	for _, c := range []struct {
		numCtx int
		want   bool
	}{{1024, true}, {8192, false}} {
		h := newCompactHarness(t, Compaction{ContextWindow: c.numCtx}, WithTools(tools.NewRegistry(nil, bigTool{})))
		var said []string
		for _, prompt := range []string{"hello", "and again"} {
			h.srv.Script(fakeollama.Say("Hi."))
			if _, err := h.agent.Run(context.Background(), Request{UserID: "alice", ConversationID: h.conv.ID, Prompt: prompt}, func(e Event) {
				if n, ok := e.(NoticeEvent); ok && strings.Contains(n.Text, "context") {
					said = append(said, n.Text)
				}
			}); err != nil {
				t.Fatal(err)
			}
		}
		if c.want && (len(said) != 1 || !strings.Contains(said[0], fmt.Sprintf("a %d-token context", c.numCtx)) || !strings.Contains(said[0], "Set num_ctx to 2048 or more")) ||
			!c.want && len(said) != 0 {
			t.Fatalf("num_ctx %d: said %q", c.numCtx, said)
		}
	}
}

// TestASmallContextKeepsTheLastExchange: with tools taking much of a 4k
// context (as for llama3.2 at num_ctx 4096), Ollama's count, below the
// estimate of three characters a token, is believed: the conversation is
// summarised every few turns, not every turn, and after each summary the
// model still has the last question and answer word for word (it had the
// summary and the new prompt only). /compact keeps the last question with
// its answer.
func TestASmallContextKeepsTheLastExchange(t *testing.T) {
	ctx := context.Background()
	h := newCompactHarness(t, Compaction{ContextWindow: 4096})
	ix, err := index.OpenIndex(ctx, h.store, t.TempDir(), index.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	h.agent = New(h.client, h.store, WithModel(fakeollama.DefaultChatModel), WithHost(h.srv.URL),
		WithCompaction(h.store, Compaction{ContextWindow: 4096}), WithTools(tools.NewRegistry(nil, tools.MemoryTools(ix)...)))
	const turns = 16
	compactions := 0
	for i := 1; i <= turns; i++ {
		res, _ := h.mustRun(fmt.Sprintf("question %d: %s", i, strings.Repeat("tell me more about the harbour and its boats ", 6)))
		if !res.Compacted {
			continue
		}
		compactions++
		sent := withoutSystemPrompt(t, h.srv.LastRequest())
		if len(sent) < 4 || !strings.HasPrefix(sent[0].Content, SummaryHeading) || sent[1].Role != "user" || sent[2].Role != "assistant" {
			t.Fatalf("turn %d sent after its summary: %d messages, %+v", i, len(sent), sent)
		}
	}
	if compactions == 0 || compactions > turns/3 {
		t.Fatalf("compacted %d times in %d turns", compactions, turns)
	}
	h.compactTwiceKeepingTheLastTurn(ctx)
}

// compactTwiceKeepingTheLastTurn runs /compact twice and checks that the
// last question stays out of the summary, with its answer (a second
// /compact kept the answer alone).
func (h *compactHarness) compactTwiceKeepingTheLastTurn(ctx context.Context) {
	h.t.Helper()
	msgs := h.messages()
	last := msgs[len(msgs)-2] // the last question; its answer follows
	for range 2 {
		if _, err := h.agent.Compact(ctx, "alice", h.conv.ID, nil); err != nil {
			h.t.Fatal(err)
		}
		if s := h.latestSummary(); last.Role != memory.RoleUser || s.LastSeq >= last.Seq {
			h.t.Fatalf("/compact summarised up to message %d; the last question is %d (%s)", s.LastSeq, last.Seq, last.Role)
		}
	}
}

// TestASummaryIsBoundedHere: a summary longer than summary_tokens allows (a
// server that does not honour num_predict) is cut before it is stored, so
// that summaries, each holding the last, do not grow until every turn is
// compacted.
func TestASummaryIsBoundedHere(t *testing.T) {
	h := newCompactHarness(t, Compaction{ContextWindow: 8192, WindowSize: 4, SummaryTokens: 100})
	h.answerSummaries(func(api.ChatRequest) fakeollama.Reply {
		return fakeollama.Say(strings.Repeat("a rambling summary ", 2000))
	})
	for i := 1; i <= 4; i++ {
		h.mustRun(fmt.Sprintf("question %d", i))
	}
	if n := utf8.RuneCountInString(h.latestSummary().Text); n == 0 || n > 100*maxSummaryChars {
		t.Fatalf("a summary of %d characters was stored for summary_tokens 100", n)
	}
}

// TestCompactNowKeepsALongLastTurnWhole: /compact keeps the last question
// with its answer even when the two are larger than the history's room (a
// second /compact summarised the question and kept its answer alone).
func TestCompactNowKeepsALongLastTurnWhole(t *testing.T) {
	ctx := context.Background()
	h := newCompactHarness(t, Compaction{ContextWindow: 1000, SummaryTokens: 50})
	for i := 1; i <= 3; i++ {
		h.mustRun(fmt.Sprintf("question %d: %s", i, strings.Repeat("the harbour, its boats and their long history ", 45)))
	}
	h.compactTwiceKeepingTheLastTurn(ctx)
}
