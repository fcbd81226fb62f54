package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/internal/realollama"
	"github.com/mneme-dev/mneme/memory"
)

// compactAskOut is the compaction part of `ask --json`.
type compactAskOut struct {
	ConversationID string `json:"conversation_id"`
	Answer         string `json:"answer"`
	Compacted      *bool  `json:"compacted"`
	ContextTokens  *int   `json:"context_tokens"`
	ContextWindow  int    `json:"context_window"`
	Dropped        int    `json:"dropped_messages"`
}

func (d *device) askCompact(args ...string) (compactAskOut, result) {
	d.t.Helper()
	r := d.mustOK("", append([]string{"ask", "--json"}, args...)...)
	var out compactAskOut
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		d.t.Fatalf("ask --json: %v\n%s", err, r.stdout)
	}
	if out.Compacted == nil || out.ContextTokens == nil {
		d.t.Fatalf("ask --json lacks compacted or context_tokens:\n%s", r.stdout)
	}
	return out, r
}

// isSummaryRequest tells mneme's summary requests from chat requests.
func isSummaryRequest(req api.ChatRequest) bool {
	return len(req.Messages) > 0 && strings.HasPrefix(req.Messages[0].Content, "You keep a running summary")
}

var askedRe = regexp.MustCompile(`question \d+`)

// ledgerSummariser answers summary requests with the questions they saw
// (plus extra words) and chat requests by echo.
func ledgerSummariser(extra string) func(api.ChatRequest) fakeollama.Reply {
	return func(req api.ChatRequest) fakeollama.Reply {
		last := req.Messages[len(req.Messages)-1].Content
		if !isSummaryRequest(req) {
			return fakeollama.Say("You said: " + last)
		}
		seen := map[string]bool{}
		var qs []string
		for _, q := range askedRe.FindAllString(last, -1) {
			if !seen[q] {
				seen[q] = true
				qs = append(qs, q)
			}
		}
		return fakeollama.Say("Ledger: the user asked " + strings.Join(qs, ", ") + "." + extra)
	}
}

func lastChatRequest(t *testing.T, srv *fakeollama.Server) api.ChatRequest {
	t.Helper()
	reqs := srv.Requests()
	for i := len(reqs) - 1; i >= 0; i-- {
		if !isSummaryRequest(reqs[i]) {
			return reqs[i]
		}
	}
	t.Fatal("no chat request")
	return api.ChatRequest{}
}

// exportCount is how many messages `export --format jsonl` returns for the conversation.
func (d *device) exportCount(convID string) int {
	d.t.Helper()
	out := d.mustOK("", "export", "--conversation", convID, "--format", "jsonl").stdout
	n := 0
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			d.t.Fatalf("export line %q: %v", l, err)
		}
		n++
	}
	return n
}

// TestAsk35TurnsStayInTheWindow is the acceptance run: 35 × `ask
// --continue` in one conversation. The last request holds one summary and
// at most 30 messages besides the system prompt, and export still returns
// all 70 messages.
func TestAsk35TurnsStayInTheWindow(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.SetDefault(ledgerSummariser(""))
	d := newDevice(t, srv.Host())
	var conv string
	compactions := 0
	for i := 1; i <= 35; i++ {
		out, r := d.askCompact("--continue", fmt.Sprintf("question %d: what about item %d?", i, i))
		if conv == "" {
			conv = out.ConversationID
		}
		if out.ConversationID != conv || out.Answer == "" || *out.ContextTokens <= 0 {
			t.Fatalf("turn %d: %+v", i, out)
		}
		if *out.Compacted {
			compactions++
			if !strings.Contains(r.stderr, "⋯ compacted: messages 1–") {
				t.Fatalf("turn %d compacted silently; stderr:\n%s", i, r.stderr)
			}
		}
	}
	if compactions == 0 {
		t.Fatal("35 turns never compacted")
	}
	last := lastChatRequest(t, srv)
	sent := last.Messages[1:] // the system prompt excluded
	summaries := 0
	for _, m := range sent {
		if strings.HasPrefix(m.Content, agent.SummaryHeading) {
			summaries++
		}
	}
	if summaries != 1 || len(sent) > 30 || !strings.HasPrefix(sent[0].Content, agent.SummaryHeading) {
		t.Fatalf("last request: %d summaries in %d messages", summaries, len(sent))
	}
	if got := sent[len(sent)-1].Content; got != "question 35: what about item 35?" {
		t.Fatalf("last message sent %q", got)
	}
	if n := d.exportCount(conv); n != 70 {
		t.Fatalf("export returned %d messages, want 70", n)
	}
	if list := d.conversations(); len(list) != 1 || list[0].MessageCount != 70 {
		t.Fatalf("conversations %+v", list)
	}
}

// TestAsk35TurnsWithAFailingSummariser: the summariser always fails; every
// turn still completes, the user is told, the requests stay in the window
// and nothing is lost.
func TestAsk35TurnsWithAFailingSummariser(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.SetDefault(func(req api.ChatRequest) fakeollama.Reply {
		if isSummaryRequest(req) {
			return fakeollama.Reply{Status: http.StatusInternalServerError, Error: "summariser crashed"}
		}
		return fakeollama.Say("You said: " + req.Messages[len(req.Messages)-1].Content)
	})
	d := newDevice(t, srv.Host())
	var conv string
	dropped := 0
	for i := 1; i <= 35; i++ {
		out, r := d.askCompact("--continue", fmt.Sprintf("question %d", i))
		conv = out.ConversationID
		if out.Answer != fmt.Sprintf("You said: question %d", i) || *out.Compacted {
			t.Fatalf("turn %d: %+v", i, out)
		}
		if out.Dropped > 0 {
			dropped++
			if !strings.Contains(r.stderr, "mneme: could not summarise") || !strings.Contains(r.stderr, "summariser crashed") {
				t.Fatalf("turn %d left messages out without a notice; stderr:\n%s", i, r.stderr)
			}
		}
		if n := len(lastChatRequest(t, srv).Messages) - 1; n > 30 {
			t.Fatalf("turn %d sent %d messages", i, n)
		}
	}
	if dropped == 0 {
		t.Fatal("the fallback never ran")
	}
	if n := d.exportCount(conv); n != 70 {
		t.Fatalf("export returned %d messages, want 70", n)
	}
}

// TestConversationsFind: `conversations --find` names the conversation a
// description is about, through its summary or its turns, though the
// description shares no word with its title; close ones are listed.
func TestConversationsFind(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.SetDefault(ledgerSummariser(" They settled on a Lisbon itinerary: Alfama, Belém, tram 28."))
	d := newDevice(t, srv.Host())
	d.extra = []string{"MNEME_WINDOW_SIZE=4"}
	trip, _ := d.askCompact(fmt.Sprintf("question %d: where do we sleep on saturday?", 1))
	for i := 2; i <= 4; i++ {
		d.askCompact("--continue", fmt.Sprintf("question %d: and then?", i))
	}
	bread, _ := d.askCompact("how long should sourdough rise?")
	ctx := context.Background()
	store, err := memory.Open(ctx, filepath.Join(d.home, "data", memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	if err := store.RenameConversation(ctx, "tester", trip.ConversationID, "Weekend plans"); err != nil {
		t.Fatal(err)
	}
	sum, err := store.LatestSummary(ctx, "tester", trip.ConversationID)
	store.Close()
	if err != nil || !strings.Contains(sum.Text, "Lisbon itinerary") {
		t.Fatalf("summary %+v %v", sum, err)
	}

	// Through the summary ("itinerary" is in no message).
	out := d.mustOK("", "conversations", "--find", "the", "chat", "with", "the", "Lisbon", "itinerary").stdout
	if !strings.Contains(out, "Found:") || !strings.Contains(out, trip.ConversationID) || strings.Contains(out, bread.ConversationID) ||
		!strings.Contains(out, "Weekend plans") || !strings.Contains(out, "summary") {
		t.Fatalf("find by summary:\n%s", out)
	}
	// Through the turns, as JSON.
	r := d.mustOK("", "conversations", "--find", "sourdough rising", "--json")
	var res struct {
		Winner *struct {
			ID        string   `json:"id"`
			MatchedBy []string `json:"matched_by"`
		} `json:"winner"`
		Matches []json.RawMessage `json:"matches"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.Winner == nil || res.Winner.ID != bread.ConversationID || len(res.Matches) != 1 {
		t.Fatalf("find by turns: %v\n%s", err, r.stdout)
	}
	// Nothing matches: exit 1 with a message.
	if r := d.mneme("", "conversations", "--find", "quantum chromodynamics"); r.code != 1 || !strings.Contains(r.stdout, "No conversation matches") {
		t.Fatalf("no match: %+v", r)
	}
	// An empty description (a script's unset variable) is a usage error,
	// as search's empty query is: it listed every conversation.
	if r := d.mneme("", "conversations", "--find", ""); r.code != 2 || r.stdout != "" || !strings.Contains(r.stderr, `--find "": invalid value: empty`) {
		t.Fatalf("an empty --find: %+v", r)
	}
}

// TestTUISwitchByDescription: in the chat, /switch opens the conversation
// whose summary matches the description.
func TestTUISwitchByDescription(t *testing.T) {
	srv := fakeollama.New(t)
	srv.SetDefault(ledgerSummariser(" They settled on a Lisbon itinerary."))
	d := newDevice(t, srv.Host())
	d.extra = []string{"MNEME_WINDOW_SIZE=4"}
	trip, _ := d.askCompact("question 1: where do we sleep on saturday?")
	for i := 2; i <= 4; i++ {
		d.askCompact("--continue", fmt.Sprintf("question %d: and then?", i))
	}
	d.askCompact("how long should sourdough rise?")

	term := startTerminal(t, 100, 30, d.env(), "--continue")
	term.waitText("You said: how long should sourdough rise?")
	term.waitIdle()
	term.typeText("/switch the lisbon itinerary")
	term.keys("Enter")
	term.waitText("You said: question 4: and then?")
	term.waitText("context compacted")
	if s := term.screen(); strings.Contains(s, "sourdough") {
		t.Fatalf("still showing the other conversation:\n%s", s)
	}
	// The next prompt goes to the conversation switched to.
	term.typeText("question 5: anything else?")
	term.keys("Enter")
	term.waitText("You said: question 5: anything else?")
	term.waitIdle()
	term.keys("C-c")
	term.exitStatus()
	if n := d.exportCount(trip.ConversationID); n != 10 {
		t.Fatalf("the switched-to conversation has %d messages, want 10", n)
	}
}

// TestCompactionRealOllama: against a real Ollama server with a small
// num_ctx, a conversation is compacted by the real model and goes on.
func TestCompactionRealOllama(t *testing.T) {
	srv := realollama.Start(t)
	srv.CreateChatModel(t, "stories", 512)
	d := newDevice(t, srv.Host)
	d.extra = []string{"MNEME_MODEL=stories", "MNEME_NUM_CTX=512", "MNEME_SUMMARY_TOKENS=32"}
	prompts := []string{
		"Once upon a time there was a little dog.", "The dog liked to play in the park.",
		"One day the dog met a cat.", "The cat was called Tom.", "Tom and the dog became friends.",
		"They went to the river together.", "The river was big and blue.", "At night they went home.",
	}
	var conv string
	compacted := false
	for i, p := range prompts {
		args := []string{p}
		if i > 0 {
			args = []string{"--continue", p}
		}
		out, _ := d.askCompact(args...)
		conv = out.ConversationID
		if strings.TrimSpace(out.Answer) == "" || *out.ContextTokens <= 0 || out.ContextWindow != 512 {
			t.Fatalf("turn %d: %+v", i+1, out)
		}
		compacted = compacted || *out.Compacted
	}
	if !compacted {
		t.Fatal("a small num_ctx never compacted")
	}
	store, err := memory.Open(context.Background(), filepath.Join(d.home, "data", memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	sum, err := store.LatestSummary(context.Background(), "tester", conv)
	if err != nil || strings.TrimSpace(sum.Text) == "" || sum.FirstSeq != 1 || sum.Model != "stories" {
		t.Fatalf("summary %+v %v", sum, err)
	}
	if n := d.exportCount(conv); n != 2*len(prompts) {
		t.Fatalf("export returned %d messages", n)
	}
}

// TestAskCompactsWithoutATitleCall: when compaction in `mneme ask` finds
// the topic changed, the answer does not wait for a new title (a title
// call before the answer, seconds with a small model): ask makes no title
// request at all.
func TestAskCompactsWithoutATitleCall(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.SetDefault(ledgerSummariser(""))
	d := newDevice(t, srv.Host())
	d.extra = append(d.extra, "MNEME_WINDOW_SIZE=4")
	d.askCompact("Let's talk about sourdough bread baking")
	compacted := false
	for i := 1; i <= 6; i++ {
		out, _ := d.askCompact("--continue", fmt.Sprintf("question %d: what about item %d?", i, i))
		compacted = compacted || *out.Compacted
	}
	if !compacted {
		t.Fatal("never compacted")
	}
	if n := len(srv.GenerateRequests()); n != 0 {
		t.Fatalf("ask made %d title requests", n)
	}
}
