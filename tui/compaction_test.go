package tui

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tui/statusline"
	"github.com/mneme-dev/mneme/tui/styles"
)

var (
	keyDown = tea.KeyPressMsg{Code: tea.KeyDown}
	keyUp   = tea.KeyPressMsg{Code: tea.KeyUp}
)

// compactingRunner stores each prompt and its answer like the agent, and
// emits scripted events first (compaction, say). It can also compact and
// retitle, as the chat's runner does.
type compactingRunner struct {
	store  *memory.Store
	before []agent.Event // emitted before the answer of the next run
	result agent.Result  // ContextTokens/ContextWindow of every run

	mu        sync.Mutex
	prompts   []string
	compacted int
	title     string // Retitle sets it, when not empty
}

func (r *compactingRunner) Run(ctx context.Context, req agent.Request, emit func(agent.Event)) (agent.Result, error) {
	r.mu.Lock()
	r.prompts = append(r.prompts, req.Prompt)
	before := r.before
	r.before = nil
	r.mu.Unlock()
	res := r.result
	res.ConversationID = req.ConversationID
	if _, err := r.store.AppendMessage(ctx, req.UserID, memory.Message{ConversationID: req.ConversationID, Role: memory.RoleUser, Content: req.Prompt}); err != nil {
		emit(agent.ErrorEvent{Err: err, Result: res})
		return res, err
	}
	for _, ev := range before {
		emit(ev)
	}
	res.Answer = "Answer to " + req.Prompt
	emit(agent.ContentDelta{Text: res.Answer})
	if _, err := r.store.AppendMessage(ctx, req.UserID, memory.Message{ConversationID: req.ConversationID, Role: memory.RoleAssistant, Content: res.Answer}); err != nil {
		emit(agent.ErrorEvent{Err: err, Result: res})
		return res, err
	}
	emit(agent.DoneEvent{Result: res})
	return res, nil
}

func (r *compactingRunner) Compact(ctx context.Context, userID, conversationID string, emit func(agent.Event)) (agent.Result, error) {
	r.mu.Lock()
	r.compacted++
	r.mu.Unlock()
	msgs, err := r.store.Messages(ctx, userID, conversationID)
	if err != nil || len(msgs) < 3 {
		return agent.Result{}, errors.New("too short")
	}
	last := msgs[len(msgs)-1].Seq
	sum, err := r.store.SaveSummary(ctx, userID, memory.Summary{ConversationID: conversationID, FirstSeq: 1, LastSeq: last - 2, AtSeq: last, Text: "Forced summary of the start."})
	if err != nil {
		return agent.Result{}, err
	}
	res := agent.Result{ConversationID: conversationID, Compacted: true}
	emit(agent.CompactingEvent{Messages: last - 2})
	emit(agent.CompactedEvent{Summary: sum.Text, FirstSeq: sum.FirstSeq, LastSeq: sum.LastSeq, AtSeq: sum.AtSeq})
	emit(agent.DoneEvent{Result: res})
	return res, nil
}

func (r *compactingRunner) Retitle(ctx context.Context, userID, conversationID string) (bool, error) {
	r.mu.Lock()
	title := r.title
	r.mu.Unlock()
	if title == "" {
		return false, nil
	}
	return r.store.SetModelTitle(ctx, userID, conversationID, title, 2)
}

func (r *compactingRunner) runs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.prompts...)
}

func compactingConfig(store *memory.Store, r *compactingRunner) Config {
	return Config{Store: store, UserID: testUser, Probe: readyProbe, NewRunner: func(string) Runner { return r }}
}

// pressBinding is the key press of b's first key, a "ctrl+<letter>" one.
func pressBinding(t *testing.T, b key.Binding) tea.KeyPressMsg {
	t.Helper()
	k := b.Keys()[0]
	letter, ok := strings.CutPrefix(k, "ctrl+")
	if !ok || len(letter) != 1 {
		t.Fatalf("cannot press %q", k)
	}
	return tea.KeyPressMsg{Code: rune(letter[0]), Mod: tea.ModCtrl}
}

// send types text and presses Enter.
func (h *harness) sendText(text string) {
	h.typeText(text)
	h.send(keyEnter)
}

// lineIndex is the line of the screen that holds text (-1 if none).
func (h *harness) lineIndex(text string) int {
	for i, l := range strings.Split(h.screen(), "\n") {
		if strings.Contains(l, text) {
			return i
		}
	}
	return -1
}

// TestCompactionIsMarkedAndItsSummaryShown: a run that compacted the model
// history leaves a mark in the transcript where it happened; ctrl+o shows
// the summary; the status line shows the context use; reopening the
// conversation puts the mark in the same place.
func TestCompactionIsMarkedAndItsSummaryShown(t *testing.T) {
	store := openStore(t)
	r := &compactingRunner{store: store, result: agent.Result{ContextTokens: 1536, ContextWindow: 2048}}
	h := newHarness(t, compactingConfig(store, r))
	h.runUntilShown("Ollama ready")
	h.sendText("first question")
	h.runUntilShown("Answer to first question")
	h.runUntilIdle()
	if !h.shows("ctx 75% of 2k") {
		t.Fatalf("no context use in the status line:\n%s", h.screen())
	}

	r.before = []agent.Event{
		agent.CompactingEvent{Messages: 2},
		agent.CompactedEvent{Summary: "The user asked a first question about Lisbon.", FirstSeq: 1, LastSeq: 2, AtSeq: 3},
	}
	r.result.ContextTokens = 410
	h.sendText("second question")
	h.runUntilShown("Answer to second question", "context compacted: messages 1–2")
	h.runUntilIdle()
	if !h.shows("ctx 21% of 2k") || h.shows("about Lisbon") {
		t.Fatalf("after compacting:\n%s", h.screen())
	}
	mark, prompt, answer := h.lineIndex("context compacted"), h.lineIndex("second question"), h.lineIndex("Answer to second")
	if !(prompt < mark && mark < answer) {
		t.Fatalf("the mark is not between the prompt and its answer (%d %d %d):\n%s", prompt, mark, answer, h.screen())
	}
	h.send(pressBinding(t, h.m.keys.Details))
	h.runUntilShown("The user asked a first question about Lisbon.")

	// Reopened, the conversation shows the stored summary at the same place.
	conv, _ := storedMessages(t, store)
	if _, err := store.SaveSummary(context.Background(), testUser, memory.Summary{
		ConversationID: conv.ID, FirstSeq: 1, LastSeq: 2, AtSeq: 3, Text: "Stored summary about Lisbon."}); err != nil {
		t.Fatal(err)
	}
	cfg := compactingConfig(store, r)
	cfg.ConversationID = conv.ID
	h2 := newHarness(t, cfg)
	h2.runUntilShown("Answer to second question", "context compacted: messages 1–2")
	if h2.shows("Stored summary") {
		t.Fatalf("the summary is shown before ctrl+o:\n%s", h2.screen())
	}
	mark, prompt, answer = h2.lineIndex("context compacted"), h2.lineIndex("second question"), h2.lineIndex("Answer to second")
	if !(prompt < mark && mark < answer) || h2.lineIndex("Answer to first") > mark {
		t.Fatalf("reopened, the mark is misplaced:\n%s", h2.screen())
	}
	h2.send(pressBinding(t, h2.m.keys.Details))
	h2.runUntilShown("Stored summary about Lisbon.")
}

// TestSlashCompactForcesCompaction: /compact runs the runner's Compact,
// shows the mark, and sends nothing to the model.
func TestSlashCompactForcesCompaction(t *testing.T) {
	store := openStore(t)
	r := &compactingRunner{store: store}
	h := newHarness(t, compactingConfig(store, r))
	h.runUntilShown("Ollama ready")
	h.sendText("/compact")
	h.runUntilShown("Nothing to compact yet")
	if got := h.m.input.Value(); got != "" { // the first message comes next, not "/compact" again
		t.Fatalf("a command refused before the first message stayed in the input: %q", got)
	}
	h.sendText("one")
	h.runUntilShown("Answer to one")
	h.runUntilIdle()
	h.sendText("two")
	h.runUntilShown("Answer to two")
	h.runUntilIdle()

	h.sendText("/compact")
	h.runUntilShown("context compacted: messages 1–2")
	h.runUntilIdle()
	if r.compacted != 1 || len(r.runs()) != 2 || h.m.input.Value() != "" {
		t.Fatalf("compacted %d times, runs %q, input %q", r.compacted, r.runs(), h.m.input.Value())
	}
	if _, msgs := storedMessages(t, store); len(msgs) != 4 {
		t.Fatalf("/compact stored messages: %d", len(msgs))
	}
	if h.shows("┃ /compact") || h.shows("no answer") {
		t.Fatalf("the command was shown as a message, or as an empty answer:\n%s", h.screen())
	}
}

// TestSlashCommandsHelpUnknownAndEscape: /help lists the commands, an
// unknown one says so, and "//" sends a message that starts with "/".
func TestSlashCommandsHelpUnknownAndEscape(t *testing.T) {
	store := openStore(t)
	r := &compactingRunner{store: store}
	h := newHarness(t, compactingConfig(store, r))
	h.runUntilShown("Ollama ready")
	h.sendText("/help")
	h.runUntilShown("/compact — summarise", "/switch DESCRIPTION — switch")
	h.sendText("/frobnicate now")
	h.runUntilShown("Unknown command /frobnicate")
	if got := h.m.input.Value(); got != "/frobnicate now" {
		t.Fatalf("an unknown command cleared the input: %q", got)
	}
	h.m.input.Reset()
	// Words after a command that takes none stay: "/new plan the trip"
	// does not start an empty conversation and lose them.
	h.sendText("hello")
	h.runUntilShown("Answer to hello")
	h.sendText("/new plan the trip")
	h.runUntilShown("Usage: /new, with nothing after it.")
	if got := h.m.input.Value(); got != "/new plan the trip" || !h.shows("Answer to hello") {
		t.Fatalf("input %q after /new with words:\n%s", got, h.screen())
	}
	h.m.input.Reset()
	h.sendText("//etc/hosts is a file")
	h.runUntilShown("Answer to /etc/hosts is a file")
	if got := r.runs(); len(got) != 2 || got[1] != "/etc/hosts is a file" {
		t.Fatalf("prompts %q", got)
	}
}

// TestTitleFromTheModelAfterARun: the runner titles the conversation after
// its first answer, and the status line follows.
func TestTitleFromTheModelAfterARun(t *testing.T) {
	store := openStore(t)
	r := &compactingRunner{store: store, title: "Trip to Lisbon"}
	h := newHarness(t, compactingConfig(store, r))
	h.runUntilShown("Ollama ready")
	h.sendText("where should we go in may")
	h.runUntilShown("Answer to where should we go in may")
	h.runUntilShown("Trip to Lisbon")
}

// switchWorld is two stored conversations and an index over them.
func switchWorld(t *testing.T) (store *memory.Store, ix *index.Index, trip, bread memory.Conversation) {
	t.Helper()
	ctx := context.Background()
	store = openStore(t)
	mk := func(title string, pairs ...string) memory.Conversation {
		c, err := store.CreateConversation(ctx, testUser, title)
		if err != nil {
			t.Fatal(err)
		}
		for i, p := range pairs {
			role := memory.RoleUser
			if i%2 == 1 {
				role = memory.RoleAssistant
			}
			if _, err := store.AppendMessage(ctx, testUser, memory.Message{ConversationID: c.ID, Role: role, Content: p}); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}
	trip = mk("Weekend plans", "where do we sleep on saturday?", "A small hotel by the river.")
	bread = mk("Kitchen", "how long should sourdough rise?", "About four hours.")
	if _, err := store.SaveSummary(ctx, testUser, memory.Summary{ConversationID: trip.ID, FirstSeq: 1, LastSeq: 2,
		Text: "The user is planning a Lisbon itinerary for May."}); err != nil {
		t.Fatal(err)
	}
	ix, err := index.OpenIndex(ctx, store, filepath.Join(t.TempDir(), "index"), index.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if err := ix.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	return store, ix, trip, bread
}

// TestSwitchByDescription: /switch finds a conversation through its
// summary or its turns, with a description that shares no word with its
// title, and opens it; a description nothing matches says so.
func TestSwitchByDescription(t *testing.T) {
	store, ix, trip, bread := switchWorld(t)
	r := &compactingRunner{store: store}
	cfg := compactingConfig(store, r)
	cfg.ConversationID = bread.ID
	cfg.Find = func(ctx context.Context, userID, text string) ([]index.ConversationMatch, error) {
		return ix.FindConversations(ctx, index.FindQuery{UserID: userID, Text: text})
	}
	h := newHarness(t, cfg)
	h.runUntilShown("About four hours.", "Kitchen")

	// Through the summary: "Lisbon itinerary" is only in trip's summary.
	h.sendText("/switch the chat where we planned the lisbon itinerary")
	h.runUntilShown("A small hotel by the river.", "Weekend plans")
	if h.m.convID != trip.ID || h.shows("About four hours.") {
		t.Fatalf("switched to %s:\n%s", h.m.convID, h.screen())
	}
	// Through the turns: "sourdough" is only in bread's messages.
	h.sendText("/switch sourdough")
	h.runUntilShown("About four hours.", "Kitchen")
	if h.m.convID != bread.ID {
		t.Fatalf("switched to %s", h.m.convID)
	}
	// Prompts go to the conversation switched to.
	h.sendText("and at what temperature?")
	h.runUntilShown("Answer to and at what temperature?")
	h.runUntilIdle()
	if msgs, _ := store.Messages(context.Background(), testUser, bread.ID); len(msgs) != 4 {
		t.Fatalf("bread has %d messages", len(msgs))
	}
	h.sendText("/switch quantum chromodynamics")
	h.runUntilShown("No conversation matches")
	if got := h.m.input.Value(); got != "/switch quantum chromodynamics" {
		t.Fatalf("the input after a /switch that found nothing: %q; want it back, to be corrected", got)
	}
}

// TestSwitchOffersCloseMatches: several close matches are listed; the
// arrow keys and Enter open one, Esc closes the list.
func TestSwitchOffersCloseMatches(t *testing.T) {
	store, ix, trip, bread := switchWorld(t)
	ctx := context.Background()
	for _, c := range []memory.Conversation{trip, bread} {
		if _, err := store.AppendMessage(ctx, testUser, memory.Message{ConversationID: c.ID, Role: memory.RoleUser, Content: "the blue notebook"}); err != nil {
			t.Fatal(err)
		}
		if _, err := store.AppendMessage(ctx, testUser, memory.Message{ConversationID: c.ID, Role: memory.RoleAssistant, Content: "Noted."}); err != nil {
			t.Fatal(err)
		}
	}
	ix.Notify(memory.ConversationRef{UserID: testUser, ConversationID: trip.ID}, memory.ConversationRef{UserID: testUser, ConversationID: bread.ID})
	if err := ix.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	r := &compactingRunner{store: store}
	cfg := compactingConfig(store, r)
	cfg.Find = func(ctx context.Context, userID, text string) ([]index.ConversationMatch, error) {
		return ix.FindConversations(ctx, index.FindQuery{UserID: userID, Text: text})
	}
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready")
	h.sendText("/switch blue notebook")
	h.runUntilShown("Which conversation?", "1. ", "2. ", "Weekend plans", "Kitchen")
	h.send(keyEsc)
	if h.shows("Which conversation?") {
		t.Fatalf("Esc did not close the list:\n%s", h.screen())
	}
	h.sendText("/switch blue notebook")
	h.runUntilShown("Which conversation?")
	second := h.m.choice.Items()[1]
	h.send(keyDown)
	h.send(keyDown)
	h.send(keyUp)
	h.send(keyEnter)
	h.runUntilShown("Switched to")
	h.runUntil("the chosen conversation loaded", func() bool { return h.m.convID == second.ID && !h.m.loading })
	if h.shows("Which conversation?") {
		t.Fatalf("the list stayed open:\n%s", h.screen())
	}
}

// TestStatusContextWindowSizes: the status line names the window in a
// form a person reads at a glance.
func TestStatusContextWindowSizes(t *testing.T) {
	st := styles.New(true)
	for window, want := range map[int]string{512: "ctx 40% of 512", 2048: "ctx 40% of 2k", 8192: "ctx 40% of 8k",
		131072: "ctx 40% of 128k", 1536: "ctx 40% of 1.5k", 6000: "ctx 40% of 5.9k", 0: "ctx 40%"} {
		got := ansi.Strip(statusline.Render(&st, 120, statusline.Info{Model: "m", Ollama: statusline.OllamaReady, Context: 40, Window: window}))
		if !strings.Contains(got, want+" ") && !strings.HasSuffix(got, want) {
			t.Errorf("window %d: status %q lacks %q", window, got, want)
		}
	}
}

// With Ollama offline a query cannot be embedded: the status line says
// search is by keyword, not "embeddings ready" beside "Ollama offline".
func TestStatusOfflineSaysKeywordOnly(t *testing.T) {
	st := styles.New(true)
	mem := statusline.Memory{Known: true, Embed: statusline.EmbedReady, Notes: 2}
	for ollama, want := range map[statusline.OllamaState]string{statusline.OllamaReady: "embeddings ready", statusline.OllamaOffline: "keyword-only"} {
		got := ansi.Strip(statusline.Render(&st, 120, statusline.Info{Model: "m", Ollama: ollama, Memory: mem}))
		if !strings.Contains(got, want) {
			t.Errorf("Ollama %v: status %q lacks %q", ollama, got, want)
		}
	}
}

// TestSlashCommandsBeforeTheFirstMessage: a command that needs a stored
// conversation says why it cannot run yet, and leaves the input empty for
// the next one.
func TestSlashCommandsBeforeTheFirstMessage(t *testing.T) {
	store := openStore(t)
	cfg, _ := screenConfig(t, store)
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready")
	for cmd, want := range map[string]string{
		"/export":     "Nothing to export yet",
		"/compact":    "Nothing to compact yet",
		"/rename Foo": "Nothing to rename yet",
		"/archive":    "Nothing to archive yet",
		"/copy":       "There is no answer to copy yet",
	} {
		h.typeText(cmd)
		h.send(keyEnter)
		if !h.shows(want) || h.m.input.Value() != "" {
			t.Fatalf("%s: input %q, hint %q, screen:\n%s", cmd, h.m.input.Value(), h.m.hint, h.screen())
		}
	}
}

// TestANewConversationSaysWhatMnemeDoes: an empty new conversation is not a
// blank screen: it says what mneme keeps and which keys open the rest, and
// the first message takes its place.
func TestANewConversationSaysWhatMnemeDoes(t *testing.T) {
	store := openStore(t)
	h := newHarness(t, config(store, newFakeRunner(store, "Hello there."), readyProbe))
	h.runUntilShown("Ollama ready")
	for _, want := range []string{"remembers what you tell it", "ctrl+f search past chats", "ctrl+o what it remembers", "f1 keys"} {
		if !h.shows(want) {
			t.Fatalf("the empty conversation lacks %q:\n%s", want, h.screen())
		}
	}
	// Where it does not fit (a small split), it is left out: the input and
	// the status line stay on screen.
	small := newHarness(t, config(store, newFakeRunner(store, "ok"), readyProbe))
	small.send(tea.WindowSizeMsg{Width: 30, Height: 8})
	small.runUntilShown("Ollama")
	if rows := strings.Count(small.screen(), "\n") + 1; rows > 8 || small.shows("remembers what") {
		t.Fatalf("at 30×8 the screen has %d rows:\n%s", rows, small.screen())
	}
	h.sendText("hi")
	h.runUntilShown("Hello there.")
	if h.shows("remembers what you tell it") {
		t.Fatalf("the welcome stayed after the first message:\n%s", h.screen())
	}
}

// TestTypingWhileTheFirstMessageIsSentStaysAsTheNextDraft: what is typed
// after Enter while the new conversation is being created stays in the
// input as the next draft, without the prompt sent before it.
func TestTypingWhileTheFirstMessageIsSentStaysAsTheNextDraft(t *testing.T) {
	store := openStore(t)
	h := newHarness(t, config(store, newFakeRunner(store, "Hello there."), readyProbe))
	h.runUntilShown("Ollama ready")
	h.typeText("hello number 5")
	h.send(keyEnter)
	h.typeText("ab") // before the conversation is created
	h.runUntilShown("Hello there.")
	if got := h.m.input.Value(); got != "ab" {
		t.Fatalf("the input after the first message: %q, want the draft typed since", got)
	}
}

// streaming is a chat whose first answer streams, held by its runner's
// gate.
func streaming(t *testing.T) (*harness, *fakeRunner, *memory.Store) {
	t.Helper()
	store := openStore(t)
	r := newFakeRunner(store, "First answer.")
	r.gate = make(chan struct{}, 1)
	h := newHarness(t, config(store, r, readyProbe))
	h.runUntilShown("Ollama ready")
	h.sendText("first question")
	h.runUntil("the answer to start", func() bool { return h.m.run != nil })
	return h, r, store
}

// TestAPromptSentWhileAnAnswerStreamsIsQueued: Enter while an answer
// streams takes the prompt out of the input, shows it queued above it, and
// sends it when the answer ends; what is typed next is a new draft, not
// glued to it ("queued onequeued two" was sent). A second Enter joins the
// queue as one message; ↑ in the empty input takes it back to edit.
func TestAPromptSentWhileAnAnswerStreamsIsQueued(t *testing.T) {
	h, r, store := streaming(t)
	h.sendText("second question")
	if !h.shows("⏵ queued: second question") || h.m.input.Value() != "" {
		t.Fatalf("not queued, input %q:\n%s", h.m.input.Value(), h.screen())
	}
	h.sendText("third")
	h.send(tea.KeyPressMsg{Code: tea.KeyUp})
	if h.m.input.Value() != "second question\n\nthird" || h.shows("⏵ queued") {
		t.Fatalf("↑ took back %q:\n%s", h.m.input.Value(), h.screen())
	}
	h.send(keyEnter)
	h.typeText("a draft for later")
	r.gate <- struct{}{}
	h.runUntil("the queued prompt sent", func() bool { return h.m.run != nil && h.m.queued == "" })
	r.gate <- struct{}{}
	h.runUntilIdle()
	msgs, err := store.Messages(context.Background(), testUser, h.m.convID)
	if err != nil || len(msgs) != 4 || msgs[2].Content != "second question\n\nthird" {
		t.Fatalf("stored %+v, %v", msgs, err)
	}
	if got := h.m.input.Value(); got != "a draft for later" {
		t.Fatalf("the draft typed meanwhile became %q", got)
	}
}

// TestStoppingAnAnswerKeepsTheQueuedPrompt: Esc on an answer with a prompt
// queued stops: the queued prompt comes back to the input, before what was
// typed meanwhile, and is not sent (it began at once, as if Esc had meant
// "next"). Sent when the answer ends, a queued prompt leaves the draft
// typed meanwhile whole, even one that begins with the same words.
func TestStoppingAnAnswerKeepsTheQueuedPrompt(t *testing.T) {
	h, r, _ := streaming(t)
	h.sendText("thanks")
	h.typeText("a draft")
	h.send(keyEsc)
	h.runUntil("the answer stopped", func() bool { return h.m.run == nil })
	h.runUntilIdle()
	if got := h.m.input.Value(); got != "thanks\n\na draft" || h.m.queued != "" || len(r.runs()) != 1 {
		t.Fatalf("after Esc: input %q, queued %q, runs %q", got, h.m.queued, r.runs())
	}

	h.m.input.Reset()
	h.sendText("second question")
	h.runUntil("the answer to start", func() bool { return h.m.run != nil })
	h.sendText("thanks")
	h.typeText("thanks again, one more thing")
	r.gate <- struct{}{}
	h.runUntil("the queued prompt sent", func() bool { return h.m.run != nil && h.m.queued == "" })
	if got := h.m.input.Value(); got != "thanks again, one more thing" {
		t.Fatalf("the draft became %q", got)
	}
	r.gate <- struct{}{}
	h.runUntilIdle()
}

// TestTheQueuesHintGoesWithIt: the hint that says a prompt is queued goes
// when the answer it waited for ends (it stayed under the next answer).
func TestTheQueuesHintGoesWithIt(t *testing.T) {
	h, r, _ := streaming(t)
	h.sendText("later")
	if !h.shows("Queued:") {
		t.Fatalf("no queue hint:\n%s", h.screen())
	}
	r.gate <- struct{}{}
	h.runUntil("the queued prompt sent", func() bool { return h.m.run != nil && h.m.queued == "" })
	r.gate <- struct{}{}
	h.runUntilIdle()
	if h.shows("Queued:") {
		t.Fatalf("the queue's hint outlived it:\n%s", h.screen())
	}
}

// TestCompactionMarksStayWhileAStoppedAnswerIsFollowed: a conversation
// whose last answer is stored interrupted (cut at a length limit, or
// stopped in another mneme) is followed as the store changes; the turns
// drawn again keep the compaction mark where it was (it vanished a few
// seconds after `mneme -c`).
func TestCompactionMarksStayWhileAStoppedAnswerIsFollowed(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	conv, err := store.CreateConversation(ctx, testUser, "Lisbon")
	if err != nil {
		t.Fatal(err)
	}
	for i, m := range []memory.Message{
		{Role: memory.RoleUser, Content: "first question"}, {Role: memory.RoleAssistant, Content: "first answer"},
		{Role: memory.RoleUser, Content: "second question"}, {Role: memory.RoleAssistant, Content: "second answer, cut", Status: memory.StatusInterrupted},
	} {
		m.ConversationID = conv.ID
		if _, err := store.AppendMessage(ctx, testUser, m); err != nil {
			t.Fatal(i, err)
		}
	}
	if _, err := store.SaveSummary(ctx, testUser, memory.Summary{ConversationID: conv.ID, FirstSeq: 1, LastSeq: 2, AtSeq: 3, Text: "About Lisbon."}); err != nil {
		t.Fatal(err)
	}
	cfg := compactingConfig(store, &compactingRunner{store: store})
	cfg.ConversationID = conv.ID
	h := newHarness(t, cfg)
	h.runUntilShown("second answer, cut", "context compacted: messages 1–2")
	c, msgs := storedMessages(t, store)
	h.send(othersAddedMsg{conv: c, msgs: msgs}) // a reading after a change of the store
	mark, prompt, answer := h.lineIndex("context compacted"), h.lineIndex("second question"), h.lineIndex("second answer")
	if !(prompt < mark && mark < answer) {
		t.Fatalf("the mark is gone or misplaced after the conversation was read again:\n%s", h.screen())
	}
}
