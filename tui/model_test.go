package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tui/prompt"
)

func TestSendStreamsAnswerTokenByToken(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "Once", " upon", " a time.")
	r.gate = make(chan struct{}, 3)
	h := newHarness(t, config(store, r, readyProbe))
	h.runUntilShown("Ollama ready v0.6.5", testModel, "new conversation")

	h.typeText("tell me a story")
	h.send(keyEnter)

	r.gate <- struct{}{}
	h.runUntilShown("┃ tell me a story", "Once")
	if h.shows("Once upon") {
		t.Fatalf("the second token is shown before it was sent:\n%s", h.screen())
	}
	if got := h.m.input.Value(); got != "" {
		t.Errorf("input after send = %q, want it cleared", got)
	}
	if !h.shows("generating") {
		t.Errorf("status does not say an answer is being generated:\n%s", h.screen())
	}
	r.gate <- struct{}{}
	h.runUntilShown("Once upon")
	r.gate <- struct{}{}
	h.runUntilShown("Once upon a time.")
	h.runUntilIdle()
	if h.shows("generating") {
		t.Errorf("status still says generating after the answer:\n%s", h.screen())
	}
	h.runUntilShown("tell me a story") // the title, from the store

	conv, msgs := storedMessages(t, store)
	if conv.Title != "tell me a story" {
		t.Errorf("title = %q", conv.Title)
	}
	if len(msgs) != 2 || msgs[1].Content != "Once upon a time." {
		t.Errorf("stored messages = %+v", msgs)
	}
	if got := r.runs(); len(got) != 1 || got[0] != "tell me a story" {
		t.Errorf("prompts sent = %q", got)
	}
}

func TestOpeningAndQuittingStoresNothing(t *testing.T) {
	store := openStore(t)
	h := newHarness(t, config(store, newFakeRunner(store), readyProbe))
	h.runUntilShown("Ollama ready")
	h.typeText("never sent")
	// The first Ctrl+C clears the draft, as a shell clears its line; the
	// second quits.
	queued := len(h.queue)
	h.send(keyCtrlC)
	if len(h.queue) != queued || h.m.input.Value() != "" || !h.shows("Input cleared: press Ctrl+C again to quit.") {
		t.Fatalf("the first Ctrl+C with a draft: input %q, screen:\n%s", h.m.input.Value(), h.screen())
	}
	h.send(keyCtrlC)
	if !quits(t, h.queue[len(h.queue)-1]) {
		t.Fatal("Ctrl+C did not quit")
	}
	convs, err := store.ListConversations(context.Background(), testUser, memory.ListOptions{IncludeArchived: true})
	if err != nil && !errors.Is(err, memory.ErrNotFound) {
		t.Fatal(err)
	}
	if len(convs) != 0 {
		t.Errorf("conversations after opening and quitting = %d, want 0", len(convs))
	}
}

// halfAnswered is a chat whose answer to "question" has streamed "Half an
// answer" and holds on.
func halfAnswered(t *testing.T) (*memory.Store, *fakeRunner, *harness) {
	t.Helper()
	store := openStore(t)
	r := newFakeRunner(store, "Half an ", "answer")
	r.hold = true
	h := newHarness(t, config(store, r, readyProbe))
	h.runUntilShown("Ollama ready")
	h.typeText("question")
	h.send(keyEnter)
	h.runUntilShown("Half an answer")
	return store, r, h
}

func TestEscCancelsAndKeepsPartialAnswer(t *testing.T) {
	store, r, h := halfAnswered(t)
	if !h.shows("esc stop") {
		t.Errorf("help does not offer esc while generating:\n%s", h.screen())
	}

	h.send(keyEsc)
	h.runUntilShown("Half an answer", "(interrupted)")
	h.runUntilIdle()
	if h.shows("esc stop") {
		t.Errorf("help still offers esc after the run:\n%s", h.screen())
	}
	_, msgs := storedMessages(t, store)
	last := msgs[len(msgs)-1]
	if last.Role != memory.RoleAssistant || last.Status != memory.StatusInterrupted || last.Content != "Half an answer" {
		t.Errorf("stored partial answer = %+v", last)
	}

	// The next prompt works normally.
	r.hold = false
	r.deltas = []string{"Second answer"}
	h.typeText("again")
	h.send(keyEnter)
	h.runUntilShown("Second answer")
	h.runUntilIdle()
}

func TestCtrlCQuitsWhenIdle(t *testing.T) {
	store := openStore(t)
	h := newHarness(t, config(store, newFakeRunner(store), readyProbe))
	next, cmd := h.m.Update(keyCtrlC)
	h.m = next.(Model)
	if !quits(t, cmd) {
		t.Fatal("Ctrl+C while idle did not quit")
	}
}

func TestDoubleCtrlCWhileRunning(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "Partial")
	r.hold = true
	h := newHarness(t, config(store, r, readyProbe))
	h.runUntilShown("Ollama ready")
	h.typeText("question")
	h.send(keyEnter)
	h.runUntilShown("Partial")

	next, cmd := h.m.Update(keyCtrlC)
	h.m = next.(Model)
	if quits(t, cmd) {
		t.Fatal("the first Ctrl+C while generating quit")
	}
	if !h.shows("press Ctrl+C again to quit") {
		t.Errorf("no quit hint after the first Ctrl+C:\n%s", h.screen())
	}
	h.runUntilShown("Partial", "(interrupted)")
	h.runUntilIdle()
	if !h.shows("press Ctrl+C again to quit") {
		t.Errorf("the quit hint went away before a key was pressed:\n%s", h.screen())
	}

	next, cmd = h.m.Update(keyCtrlC)
	h.m = next.(Model)
	if !quits(t, cmd) {
		t.Fatal("the second Ctrl+C did not quit")
	}
}

func TestQuitDuringRunStoresPartialAnswer(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "Unfinished")
	r.hold = true
	h := newHarness(t, config(store, r, readyProbe))
	h.runUntilShown("Ollama ready")
	h.typeText("question")
	h.send(keyEnter)
	h.runUntilShown("Unfinished")

	h.send(keyCtrlC)
	next, cmd := h.m.Update(keyCtrlC) // before the cancelled run has reported back
	h.m = next.(Model)
	if !quits(t, cmd) {
		t.Fatal("the second Ctrl+C did not quit")
	}
	// What Run does once the program has ended: it returns only after the
	// run goroutine has stored the partial answer.
	h.m.life.shutdown()
	_, msgs := storedMessages(t, store)
	last := msgs[len(msgs)-1]
	if last.Status != memory.StatusInterrupted || last.Content != "Unfinished" {
		t.Errorf("after quitting, the last stored message = %+v, want the interrupted partial answer", last)
	}
}

func TestNewlineKeysDoNotSend(t *testing.T) {
	for name, k := range map[string]tea.KeyPressMsg{"alt+enter": keyAltEnter, "ctrl+j": keyCtrlJ} {
		t.Run(name, func(t *testing.T) {
			store := openStore(t)
			r := newFakeRunner(store, "answer")
			h := newHarness(t, config(store, r, readyProbe))
			h.runUntilShown("Ollama ready")
			h.typeText("first line")
			h.send(k)
			h.typeText("second line")
			if got, want := h.m.input.Value(), "first line\nsecond line"; got != want {
				t.Errorf("input = %q, want %q", got, want)
			}
			if !h.shows("› first line", "  second line") {
				t.Errorf("the input does not show two lines:\n%s", h.screen())
			}
			h.runUntil("commands done", func() bool { return len(h.queue) == 0 })
			if n := len(r.runs()); n != 0 {
				t.Errorf("%s sent the prompt (%d runs)", name, n)
			}
			h.send(keyEnter)
			h.runUntilShown("answer")
			if got := r.runs(); len(got) != 1 || got[0] != "first line\nsecond line" {
				t.Errorf("prompt sent = %q", got)
			}
		})
	}
}

func TestInputGrowsUpToALimit(t *testing.T) {
	store := openStore(t)
	h := newHarness(t, config(store, newFakeRunner(store), readyProbe))
	if got := h.m.input.Height(); got != 1 {
		t.Fatalf("empty input height = %d, want 1", got)
	}
	for i := range 10 {
		if i > 0 {
			h.send(keyAltEnter)
		}
		h.typeText(fmt.Sprintf("line %d", i))
	}
	if got := h.m.input.Height(); got != prompt.MaxRows {
		t.Errorf("input height with 10 lines = %d, want %d", got, prompt.MaxRows)
	}
	if got := strings.Count(h.m.input.Value(), "\n"); got != 9 {
		t.Errorf("input has %d newlines, want 9", got)
	}
	if lines := strings.Count(h.m.View().Content, "\n") + 1; lines != 24 {
		t.Errorf("screen has %d lines, want 24", lines)
	}
}

func TestEmptyInputDoesNotSend(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "answer")
	h := newHarness(t, config(store, r, readyProbe))
	h.runUntilShown("Ollama ready")

	h.send(keyEnter)
	h.typeText("   ")
	h.send(keyAltEnter)
	h.typeText("\t ")
	h.send(keyEnter)
	h.runUntil("commands done", func() bool { return len(h.queue) == 0 })

	if n := len(r.runs()); n != 0 {
		t.Errorf("blank input started %d runs", n)
	}
	if h.m.phase != phaseIdle {
		t.Errorf("phase = %v after blank input", h.m.phase)
	}
	convs, _ := store.ListConversations(context.Background(), testUser, memory.ListOptions{})
	if len(convs) != 0 {
		t.Errorf("blank input created %d conversations", len(convs))
	}
}

func TestProbeFailureShowsErrorAndKeepsText(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "Now it works.")
	p := &switchableProbe{}
	h := newHarness(t, config(store, r, p.probe))

	want := "cannot reach Ollama at " + testHost
	h.runUntilShown(want, "Ollama offline", "no model")
	if !strings.Contains(strings.ReplaceAll(h.screen(), "\n", " "), "ollama serve") {
		t.Errorf("the error does not name the fix:\n%s", h.screen())
	}

	h.typeText("my precious prompt")
	h.send(keyEnter)
	if !h.shows("Ollama connecting…") {
		t.Errorf("status does not show the new probe:\n%s", h.screen())
	}
	h.runUntilIdle()
	if got := p.calls.Load(); got != 2 {
		t.Errorf("probes = %d, want 2 (start and send)", got)
	}
	if !h.shows(want, "Ollama offline") {
		t.Errorf("the error is not shown after the failed send:\n%s", h.screen())
	}
	if got := h.m.input.Value(); got != "my precious prompt" {
		t.Errorf("input after failed send = %q, want the typed text", got)
	}
	if !h.shows("› my precious prompt") {
		t.Errorf("the typed text is not on screen:\n%s", h.screen())
	}
	if n := len(r.runs()); n != 0 {
		t.Errorf("runs while offline = %d", n)
	}
	convs, _ := store.ListConversations(context.Background(), testUser, memory.ListOptions{})
	if len(convs) != 0 {
		t.Errorf("conversations created while offline = %d", len(convs))
	}

	// Ollama comes up: the same Enter now sends.
	p.ready.Store(true)
	h.send(keyEnter)
	h.runUntilShown("Now it works.")
	h.runUntilIdle()
	if h.shows(want) {
		t.Errorf("the error is still shown once Ollama is ready:\n%s", h.screen())
	}
	if got := r.runs(); len(got) != 1 || got[0] != "my precious prompt" {
		t.Errorf("prompts = %q", got)
	}
}

func TestRunErrorIsShownAndNextSendProbes(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "Partial ")
	r.fail = fmt.Errorf("%w at %s: is it running? Start it with `ollama serve`", agent.ErrOllamaUnreachable, testHost)
	p := &switchableProbe{}
	p.ready.Store(true)
	h := newHarness(t, config(store, r, p.probe))
	h.runUntilShown("Ollama ready")
	h.typeText("hello")
	h.send(keyEnter)
	h.runUntilShown("Partial", "(interrupted)", "✗ cannot reach Ollama", "Ollama offline")
	h.runUntilIdle()

	p.ready.Store(false)
	h.typeText("again")
	h.send(keyEnter)
	h.runUntilIdle()
	if got := p.calls.Load(); got != 2 {
		t.Errorf("probes = %d, want a new one before sending again", got)
	}
	if got := h.m.input.Value(); got != "again" {
		t.Errorf("input = %q, want the unsent text", got)
	}
}

func TestResumeShowsHistory(t *testing.T) {
	store := openStore(t)
	conv := seedConversation(t, store)
	r := newFakeRunner(store, "More.")
	cfg := config(store, r, readyProbe)
	cfg.ConversationID = conv.ID[:8]
	h := newHarness(t, cfg)
	h.runUntilShown("What is a goroutine?", "lightweight thread", "(interrupted)",
		`⚙ recall({"query":"goroutines"}) → 2 memories found`, "Tell me more", "Resuming conversation")

	h.typeText("continue")
	h.send(keyEnter)
	h.runUntilShown("More.")
	h.runUntilIdle()
	_, msgs := storedMessages(t, store)
	if last := msgs[len(msgs)-1]; last.Content != "More." || last.ConversationID != conv.ID {
		t.Errorf("answer stored as %+v, want it in the resumed conversation", last)
	}
}

func TestResumeUnknownConversation(t *testing.T) {
	store := openStore(t)
	cfg := config(store, newFakeRunner(store), readyProbe)
	cfg.ConversationID = "does-not-exist"
	h := newHarness(t, cfg)
	h.runUntilShown("cannot open conversation", "new conversation")
}

func TestToolCallsShownCompactly(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "Let me check.")
	r.tools = []agent.ToolActivity{
		{ID: "1", Name: "recall", Args: `{"query": "cats"}`, Result: "Your cat is called\nMiso."},
		{ID: "2", Name: "remember", Args: `{}`, Error: "storage full"},
	}
	r.deltas2 = []string{"Your cat is **Miso**."}
	h := newHarness(t, config(store, r, readyProbe))
	h.runUntilShown("Ollama ready")
	h.typeText("cat name?")
	h.send(keyEnter)
	h.runUntilShown(`⚙ recall({"query": "cats"}) → Your cat is called Miso.`, `⚙ remember({}) ✗ storage full`,
		"Let me check.", "Your cat is Miso.")
	h.runUntilIdle()
}

func TestPasteIsAcceptedAndTruncatedWithNotice(t *testing.T) {
	store := openStore(t)
	h := newHarness(t, config(store, newFakeRunner(store), readyProbe))
	h.typeText("typed first ")

	h.send(tea.PasteMsg{Content: "line one\r\nline two\tend"})
	if got, want := h.m.input.Value(), "typed first line one\nline two    end"; got != want {
		t.Errorf("after a small paste input = %q, want %q", got, want)
	}
	if h.m.hint != "" {
		t.Errorf("a small paste showed a notice: %q", h.m.hint)
	}

	huge := strings.Repeat("0123456789 abcdefgh\n", 10_000) // 200,000 characters
	h.send(tea.PasteMsg{Content: huge})
	got := h.m.input.Value()
	if !strings.HasPrefix(got, "typed first line one\nline two    end0123456789") {
		t.Errorf("the typed text was not kept before the paste: %.60q", got)
	}
	if n := h.m.input.Len(); n > prompt.MaxChars {
		t.Errorf("input holds %d characters, more than the limit %d", n, prompt.MaxChars)
	}
	if !h.shows("Paste truncated: kept") {
		t.Errorf("no notice for the truncated paste:\n%s", h.screen())
	}
	// A key typed into the full input says why nothing happens.
	h.typeText("x")
	if !h.shows("The input is full (100,000 characters)") {
		t.Errorf("no word of the full input:\n%s", h.screen())
	}
	// The input is full, but still responds to editing.
	h.send(tea.KeyPressMsg{Code: tea.KeyBackspace})
	h.typeText("!")
	if !strings.HasSuffix(h.m.input.Value(), "!") {
		t.Error("typing after a huge paste did not reach the input")
	}
}

// Typed text and pastes go through the sanitiser before the input draws
// them: a bidi override or an escape sequence never reaches the terminal.
func TestTypedBidiAndEscapesNeverReachTheScreen(t *testing.T) {
	store := openStore(t)
	h := newHarness(t, config(store, newFakeRunner(store), readyProbe))
	h.send(tea.KeyPressMsg{Text: "typed \u202eBIDI\u202c here"})
	h.send(tea.KeyPressMsg{Text: "\u2067"}) // a key that is nothing else
	h.send(tea.PasteMsg{Content: " \x1b]0;PWNED\a\x1b[31mred\rnext"})
	if got, want := h.m.input.Value(), "typed BIDI here red\nnext"; got != want {
		t.Errorf("input = %q, want %q", got, want)
	}
	for _, bad := range []string{"\u202e", "\u2067", "PWNED", "\x1b]"} {
		if strings.Contains(h.m.View().Content, bad) {
			t.Errorf("the screen holds %q", bad)
		}
	}
}

func TestScrollback(t *testing.T) {
	store := openStore(t)
	var deltas []string
	for i := range 60 {
		deltas = append(deltas, fmt.Sprintf("Paragraph number %d.\n\n", i))
	}
	r := newFakeRunner(store, deltas...)
	h := newHarness(t, config(store, r, readyProbe))
	h.runUntilShown("Ollama ready")
	h.typeText("long please")
	h.send(keyEnter)
	h.runUntilIdle()
	h.runUntilShown("Paragraph number 59.")
	if h.shows("┃ long please") {
		t.Fatalf("the start of the conversation is visible without scrolling:\n%s", h.screen())
	}
	h.send(tea.KeyPressMsg{Code: tea.KeyHome, Mod: tea.ModCtrl})
	if !h.shows("┃ long please", "Paragraph number 0.") || h.shows("Paragraph number 59.") {
		t.Errorf("ctrl+home did not scroll to the top:\n%s", h.screen())
	}
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if h.shows("┃ long please") {
		t.Errorf("the mouse wheel did not scroll down:\n%s", h.screen())
	}
	h.send(tea.KeyPressMsg{Code: tea.KeyEnd, Mod: tea.ModCtrl})
	if !h.shows("Paragraph number 59.") {
		t.Errorf("ctrl+end did not scroll to the bottom:\n%s", h.screen())
	}
	h.send(keyPgUp)
	if h.shows("Paragraph number 59.") {
		t.Errorf("pgup did not scroll up:\n%s", h.screen())
	}
}

func TestSmallAndResizedScreensFit(t *testing.T) {
	store := openStore(t)
	conv := seedConversation(t, store)
	cfg := config(store, newFakeRunner(store), offlineProbe)
	cfg.ConversationID = conv.ID
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama offline")
	h.runUntil("history", func() bool { return !h.m.loading })
	h.typeText(strings.Repeat("a long prompt ", 20))
	for _, size := range []tea.WindowSizeMsg{{Width: 60, Height: 20}, {Width: 120, Height: 40}, {Width: 60, Height: 20}, {Width: 80, Height: 24}} {
		h.send(size)
		content := h.m.View().Content
		lines := strings.Split(content, "\n")
		if len(lines) != size.Height {
			t.Errorf("%dx%d: %d lines on screen:\n%s", size.Width, size.Height, len(lines), ansi.Strip(content))
		}
		for i, l := range lines {
			if w := lipgloss.Width(l); w > size.Width {
				t.Errorf("%dx%d: line %d is %d wide: %q", size.Width, size.Height, i, w, ansi.Strip(l))
			}
		}
		if !h.shows("cannot reach Ollama") {
			t.Errorf("%dx%d: the Ollama error is not shown:\n%s", size.Width, size.Height, ansi.Strip(content))
		}
	}
}

func TestModelTextCannotControlTheTerminal(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "safe \x1b]52;c;ZXZpbA==\x07text\x1b[2J\x1b]0;pwned\x07 here\a")
	h := newHarness(t, config(store, r, readyProbe))
	h.runUntilShown("Ollama ready")
	h.typeText("hi")
	h.send(keyEnter)
	h.runUntilIdle()
	content := h.m.View().Content
	for _, bad := range []string{"\x1b]", "\x1b[2J", "\a", "pwned", "ZXZpbA"} {
		if strings.Contains(content, bad) {
			t.Errorf("the screen contains %q", bad)
		}
	}
	if !h.shows("safe text here") {
		t.Errorf("the answer's text is not shown:\n%s", h.screen())
	}
}

// seedConversation stores a conversation with a user message, a markdown
// answer, an interrupted answer and a tool call.
func seedConversation(t *testing.T, store *memory.Store) memory.Conversation {
	t.Helper()
	ctx := context.Background()
	conv, err := store.CreateConversation(ctx, testUser, "Resuming conversation")
	if err != nil {
		t.Fatal(err)
	}
	add := func(m memory.Message) {
		t.Helper()
		m.ConversationID = conv.ID
		if _, err := store.AppendMessage(ctx, testUser, m); err != nil {
			t.Fatal(err)
		}
	}
	add(memory.Message{Role: memory.RoleUser, Content: "What is a goroutine?"})
	add(memory.Message{Role: memory.RoleAssistant, Content: "A goroutine is a **lightweight thread** managed by the Go runtime.\n\n" +
		"- start one with `go f()`\n- they are cheap\n\n```go\ngo work()\n```"})
	add(memory.Message{Role: memory.RoleUser, Content: "Tell me more"})
	add(memory.Message{Role: memory.RoleAssistant, Content: "Goroutines are multiplexed onto", Status: memory.StatusInterrupted})
	add(memory.Message{Role: memory.RoleUser, Content: "What do you remember?"})
	add(memory.Message{Role: memory.RoleAssistant, ToolCalls: []memory.ToolCall{
		{ID: "call_1", Name: "recall", Arguments: []byte(`{"query":"goroutines"}`)},
	}})
	add(memory.Message{Role: memory.RoleTool, ToolCallID: "call_1", ToolName: "recall", Content: "2 memories found"})
	add(memory.Message{Role: memory.RoleAssistant, Content: "You asked about goroutines before."})
	return conv
}

// storeConversations is the store as the conversation manager; forgetting
// needs an index, which these tests do not open.
type storeConversations struct{ *memory.Store }

func (storeConversations) ConversationNotes(context.Context, string, string) ([]memory.Note, error) {
	return nil, nil
}

func (storeConversations) ForgetConversation(context.Context, string, string) (int, error) {
	return 0, errors.New("forgetting needs the index")
}

// indexConversations is the conversation manager the chat gets
// (cli's conversationManager): deletes go through the index.
type indexConversations struct {
	*memory.Store
	ix *index.Index
}

func (c indexConversations) DeleteConversation(ctx context.Context, userID, id string) error {
	return c.ix.DeleteConversation(ctx, userID, id)
}

func (c indexConversations) ConversationNotes(ctx context.Context, userID, id string) ([]memory.Note, error) {
	return c.ix.ConversationNotes(ctx, userID, id)
}

func (c indexConversations) ForgetConversation(ctx context.Context, userID, id string) (int, error) {
	return c.ix.ForgetConversation(ctx, userID, id)
}

// Esc while the conversation for the first prompt is being created
// cancels the send and leaves no empty conversation behind.
func TestCancelWhileCreatingLeavesNoConversation(t *testing.T) {
	store := openStore(t)
	cfg := config(store, newFakeRunner(store, "never"), readyProbe)
	cfg.Conversations = storeConversations{store}
	h := newHarness(t, cfg)
	h.runUntil("the probe", func() bool { return !h.m.probing })
	h.typeText("hello")
	h.send(keyEnter)
	if h.m.phase != phaseCreating {
		t.Fatalf("phase %v after Enter, want creating", h.m.phase)
	}
	h.send(keyEsc)
	for len(h.queue) > 0 {
		h.step()
	}
	convs, err := store.ListConversations(context.Background(), testUser, memory.ListOptions{IncludeArchived: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 0 {
		t.Fatalf("%d conversations left after the cancelled send: %+v", len(convs), convs)
	}
}

// TestCtrlCWhileSendingDoesNotSend: Ctrl+C while a send waits for Ollama
// to answer its probe stops it: the prompt stays in the input, unsent,
// and the next key disarms the quit.
func TestCtrlCWhileSendingDoesNotSend(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "an answer")
	h := newHarness(t, config(store, r, readyProbe))
	h.typeText("do not send me") // before the first probe answered
	h.send(keyEnter)
	if h.m.phase != phaseProbing {
		t.Fatalf("phase %v, want the send waiting for the probe", h.m.phase)
	}
	h.send(keyCtrlC)
	h.runUntilShown("Ollama ready")
	for len(h.queue) > 0 {
		h.step()
	}
	if got := r.runs(); len(got) != 0 {
		t.Fatalf("sent %q after Ctrl+C", got)
	}
	if !h.shows("Not sent: press Ctrl+C again to quit.") || h.m.input.Value() != "do not send me" {
		t.Fatalf("input %q, screen:\n%s", h.m.input.Value(), h.screen())
	}
	// Any other key disarms: Ctrl+C then clears the draft instead of quitting.
	h.typeText("!")
	h.send(keyCtrlC)
	if h.m.input.Value() != "" || !h.shows("Input cleared") {
		t.Fatalf("after another key Ctrl+C did not clear the draft: %q", h.m.input.Value())
	}
}

// A chosen model that is not installed says so on the status line: Ollama
// is ready, the model is not.
func TestStatusLineSaysTheModelIsNotInstalled(t *testing.T) {
	store := openStore(t)
	missing := func(context.Context) Probe {
		return Probe{Host: testHost, Reachable: true, Version: "0.6.5", Model: "llama3.2",
			Err: fmt.Errorf("%w: %q is not installed in Ollama at %s; run `ollama pull llama3.2`", agent.ErrModelNotFound, "llama3.2", testHost)}
	}
	h := newHarness(t, config(store, newFakeRunner(store), missing))
	h.runUntilShown("llama3.2 not installed", "Ollama ready")
}

// /model pull refuses what could not name a model, before Ollama sees it.
func TestSlashModelPullRefusesANonName(t *testing.T) {
	store := openStore(t)
	h := newHarness(t, config(store, newFakeRunner(store), readyProbe))
	h.runUntilShown("Ollama ready")
	h.sendText("/model pull $(rm -rf ~)")
	h.runUntilShown(`Not a model name: "$(rm -rf ~)"`)
	if h.m.top() != nil {
		t.Fatalf("the model picker opened for it:\n%s", h.screen())
	}
}

// TestEmptyReplySaysSo: a model that replies nothing leaves a line that
// says so, live and when the conversation is opened again, not a blank.
func TestEmptyReplySaysSo(t *testing.T) {
	store := openStore(t)
	h := newHarness(t, config(store, newFakeRunner(store), readyProbe))
	h.runUntilShown("Ollama ready")
	h.typeText("say nothing")
	h.send(keyEnter)
	h.runUntilShown("say nothing", "(no answer: the model's reply was empty")
	h.runUntilIdle()
	if n := strings.Count(h.screen(), "no answer"); n != 1 {
		t.Fatalf("said %d times:\n%s", n, h.screen())
	}
	conv, _ := storedMessages(t, store)
	cfg := config(store, newFakeRunner(store), readyProbe)
	cfg.ConversationID = conv.ID
	again := newHarness(t, cfg)
	again.runUntilShown("say nothing", "(no answer: the model's reply was empty")
}

// TestToolCallsThatFailAlikeAreOneLine: a reply of many calls over the
// limit shows one line for those that failed the same way, live and when
// the conversation is opened again.
func TestToolCallsThatFailAlikeAreOneLine(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "Let me look.")
	r.deltas2 = []string{"Done."}
	for i := range 40 {
		act := agent.ToolActivity{ID: fmt.Sprint("call", i), Name: "memory_search", Args: `{"query":"x"}`, Result: "no notes"}
		if i >= 16 {
			act.Result, act.Error = "", "not run: at most 16 tool calls are run per reply, and this reply made 40"
		}
		r.tools = append(r.tools, act)
	}
	// Another tool failing the same way folds in too (a model inventing
	// tool names drew a line for each); one failing otherwise does not.
	r.tools = append(r.tools, agent.ToolActivity{ID: "other", Name: "file_search", Args: `{"query":"x"}`,
		Error: "not run: at most 16 tool calls are run per reply, and this reply made 40"},
		agent.ToolActivity{ID: "odd", Name: "tool_7", Args: `{}`, Error: `unknown tool "tool_7"`})
	h := newHarness(t, config(store, r, readyProbe))
	h.runUntilShown("Ollama ready")
	h.typeText("search a lot")
	h.send(keyEnter)
	h.runUntilShown("Done.", "and 24 more calls that failed the same way", `unknown tool "tool_7"`)
	h.runUntilIdle()
	if n := strings.Count(h.screen(), "at most 16 tool calls"); n != 1 {
		t.Fatalf("the limit is said %d times:\n%s", n, h.screen())
	}

	// Stored as the agent stores them, and opened again.
	ctx := context.Background()
	conv, _ := storedMessages(t, store)
	var calls []memory.ToolCall
	for i := range 30 {
		calls = append(calls, memory.ToolCall{ID: fmt.Sprint("c", i), Name: "memory_search", Arguments: []byte(`{"query":"y"}`)})
	}
	msgs := []memory.Message{{Role: memory.RoleUser, Content: "again"}, {Role: memory.RoleAssistant, ToolCalls: calls}}
	for _, c := range calls {
		msgs = append(msgs, memory.Message{Role: memory.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Content: `{"error":"not run: over the limit"}`})
	}
	for _, m := range append(msgs, memory.Message{Role: memory.RoleAssistant, Content: "Over."}) {
		m.ConversationID = conv.ID
		if _, err := store.AppendMessage(ctx, testUser, m); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config(store, newFakeRunner(store), readyProbe)
	cfg.ConversationID = conv.ID
	again := newHarness(t, cfg)
	again.runUntilShown("Over.", "and 29 more calls that failed the same way")
}

// TestEscThatClosedAPanelDoesNotStopTheAnswer: an esc pressed just after
// the one that closed a panel (a double press out of habit) asks before it
// stops an answer; the next one stops it.
func TestEscThatClosedAPanelDoesNotStopTheAnswer(t *testing.T) {
	_, _, h := halfAnswered(t)
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	// The escs come at once; the key help closes at once (no command).
	h.m.now = func() time.Time { return clock }
	h.send(tea.KeyPressMsg{Code: tea.KeyF1})
	if !h.m.helpOpen {
		t.Fatalf("F1 did not open the key help:\n%s", h.screen())
	}
	h.send(keyEsc)
	h.send(keyEsc)
	h.runUntilShown(hintEscAgain)
	if h.shows("(interrupted)") || h.m.run == nil || h.m.run.cancelled {
		t.Fatalf("the second esc stopped the answer:\n%s", h.screen())
	}
	h.send(keyEsc)
	h.runUntilShown("Half an answer", "(interrupted)")
}

// TestAQuietModelIsSaidToBeWaitedFor: a model that says nothing for a
// while (Ollama busy with another's work, or loading the model) is said to
// be waited for, with how long, instead of a bare "generating"; its first
// word brings "generating" back.
func TestAQuietModelIsSaidToBeWaitedFor(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "Once", " upon")
	r.gate = make(chan struct{}, 2)
	h := newHarness(t, config(store, r, readyProbe))
	h.runUntilShown("Ollama ready v0.6.5")
	h.typeText("tell me a story")
	h.send(keyEnter)
	h.runUntil("the run started", func() bool { return h.m.run != nil })
	for range 8 { // the spinner's turns; the harness's clock moves a second a reading
		h.send(spinMsg{})
	}
	if !h.shows("waiting for the model · ") || h.shows("generating") {
		t.Fatalf("a quiet model is not said to be waited for:\n%s", h.screen())
	}
	r.gate <- struct{}{}
	h.runUntilShown("Once")
	if !h.shows("generating") || h.shows("waiting for the model") {
		t.Fatalf("the model's first word did not bring generating back:\n%s", h.screen())
	}
	r.gate <- struct{}{}
	h.runUntilIdle()
}

// TestATypedPromptIsSentAsSeen: characters no one sees, typed in as keys
// (a terminal without bracketed paste types a paste), are not stored or
// sent; a prompt of nothing else is not sent at all.
func TestATypedPromptIsSentAsSeen(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "ok")
	h := newHarness(t, config(store, r, readyProbe))
	h.runUntilShown("Ollama ready v0.6.5")
	h.typeText("\u200b\ufeff")
	h.send(keyEnter)
	h.runUntilIdle()
	if h.m.convID != "" {
		t.Fatalf("a prompt of nothing visible was sent")
	}
	h.m.input.Reset()
	h.typeText("hi\u200bthere\U000E0049\U000E0047")
	h.send(keyEnter)
	h.runUntilShown("┃ hithere", "ok")
	h.runUntilIdle()
	msgs, err := store.Messages(context.Background(), testUser, h.m.convID)
	if err != nil || len(msgs) == 0 || msgs[0].Content != "hithere" {
		t.Fatalf("stored %+v (%v)", msgs, err)
	}
}
