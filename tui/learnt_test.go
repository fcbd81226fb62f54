package tui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/memory"
)

// TestLearntReceiptUnderTheAnswer: what background learning reports shows
// as one line under the answer of its conversation; a receipt that comes
// while an answer streams waits for its end; one of another conversation
// is not shown.
func TestLearntReceiptUnderTheAnswer(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "Nice cat.")
	// The harness runs one command at a time: the receipts are delivered
	// as the wait on Config.Learnt delivers them.
	h := newHarness(t, config(store, r, readyProbe))
	learnt := func(l Learnt) { h.send(learntMsg{l}) }
	h.runUntilShown("Ollama ready")
	h.typeText("I have a cat called Tom")
	h.send(keyEnter)
	h.runUntilShown("Nice cat.")
	h.runUntilIdle()

	learnt(Learnt{ConversationID: "another", Text: "✎ remembered: Lives in Lyon"})
	learnt(Learnt{ConversationID: h.m.convID, Text: "✎ remembered: Has a cat called Tom"})
	h.runUntilShown("✎ remembered: Has a cat called Tom")
	if h.shows("Lyon") {
		t.Fatalf("a receipt of another conversation is shown:\n%s", h.screen())
	}
	s := h.screen()
	if strings.Index(s, "Nice cat.") > strings.Index(s, "✎ remembered") {
		t.Fatalf("the receipt is not under the answer:\n%s", s)
	}

	// During the next answer a receipt waits for the answer's end.
	r.hold = true
	r.deltas = []string{"Tell me more"}
	h.typeText("He is grey")
	h.send(keyEnter)
	h.runUntilShown("Tell me more")
	learnt(Learnt{ConversationID: h.m.convID, Text: "✎ updated: Has a grey cat called Tom"})
	if h.shows("✎ updated") {
		t.Fatalf("a receipt is shown while the answer streams:\n%s", h.screen())
	}
	h.send(keyEsc)
	h.runUntilIdle()
	h.runUntilShown("✎ updated: Has a grey cat called Tom")
}

// TestSlashUndoTakesBackTheLastNote: /undo undoes the last change to a note
// this chat learnt, at any later time: a learnt note is forgotten, and the
// line says so. Notes the chat did not touch are out of its reach.
func TestSlashUndoTakesBackTheLastNote(t *testing.T) {
	store := openStore(t)
	cfg, ix := screenConfig(t, store)
	n, err := ix.SaveNote(context.Background(), testUser, "Has a cat called Tom.", memory.NoteSource{By: memory.SourceExtracted, Confidence: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready")
	// A note this chat did not learn is out of its reach.
	h.typeText("/undo")
	h.send(keyEnter)
	h.runUntilShown("Nothing learnt or changed in this chat to undo")
	if _, err := store.Note(context.Background(), testUser, n.ID); err != nil {
		t.Fatal("/undo reached a note the chat did not touch")
	}
	// A hint longer than the line wraps: its end, the command to run, shows.
	if !h.shows("mneme memory undo).") {
		t.Fatalf("the hint lost its end:\n%s", h.screen())
	}
	h.send(learntMsg{Learnt{ConversationID: "c", Text: "✎ remembered: Has a cat called Tom.", NoteID: n.ID}})
	h.runUntil("the learnt change recorded", func() bool { return h.m.undo.Len() == 1 })
	h.typeText("/undo")
	h.send(keyEnter)
	h.runUntilShown("Undid learning's new note: forgot “Has a cat called Tom.”")
	if _, err := store.Note(context.Background(), testUser, n.ID); err == nil {
		t.Fatal("the note is still there")
	}
	// Undo walks back through the chat's changes; it does not redo.
	h.typeText("/undo")
	h.send(keyEnter)
	h.runUntilShown("Nothing learnt or changed in this chat to undo")
}

// TestAnUndoneReceiptNoLongerOffersUndo: once ctrl+z took a learnt note
// back, its receipt says so, instead of still offering ctrl+z.
func TestAnUndoneReceiptNoLongerOffersUndo(t *testing.T) {
	store := openStore(t)
	cfg, ix := screenConfig(t, store)
	n, err := ix.SaveNote(context.Background(), testUser, "Has a sister called Ana.", memory.NoteSource{By: memory.SourceExtracted, Confidence: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready")
	h.sendText("my sister Ana visits")
	h.runUntilIdle()
	h.send(learntMsg{Learnt{ConversationID: h.m.convID, Text: "✎ remembered: Has a sister called Ana. · ctrl+z undo",
		Undone: "✎ remembered: Has a sister called Ana. · undone", NoteID: n.ID}})
	h.runUntilShown("Has a sister called Ana. · ctrl+z undo")
	h.runUntil("the learnt change recorded", func() bool { return h.m.undo.Len() == 1 })
	h.send(tea.KeyPressMsg{Code: 'z', Mod: tea.ModCtrl})
	h.runUntilShown("Undid learning's new note", "Has a sister called Ana. · undone")
	if h.shows("ctrl+z undo") {
		t.Fatalf("the receipt still offers ctrl+z:\n%s", h.screen())
	}
	// Two learnt changes of one note: each ctrl+z marks its own receipt,
	// newest first.
	n, err = ix.SaveNote(context.Background(), testUser, "Lives in Porto.", memory.NoteSource{By: memory.SourceExtracted, Confidence: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	h.send(learntMsg{Learnt{ConversationID: h.m.convID, Turn: 1, Text: "✎ remembered: Lives in Porto. · ctrl+z undo", Undone: "✎ remembered: Lives in Porto. · undone", NoteID: n.ID}})
	h.runUntil("the first change recorded", func() bool { return h.m.undo.Len() == 1 })
	if _, err := ix.UpdateNote(memory.ChangedBy(context.Background(), memory.ByExtracted), testUser, n.ID, "Lives in Lisbon."); err != nil {
		t.Fatal(err)
	}
	h.send(learntMsg{Learnt{ConversationID: h.m.convID, Turn: 2, Text: "✎ updated: Lives in Lisbon. · ctrl+z undo", Undone: "✎ updated: Lives in Lisbon. · undone", NoteID: n.ID}})
	h.runUntil("both changes recorded", func() bool { return h.m.undo.Len() == 2 })
	h.send(tea.KeyPressMsg{Code: 'z', Mod: tea.ModCtrl})
	h.runUntilShown("Lives in Lisbon. · undone", "Lives in Porto. · ctrl+z undo")
	h.send(tea.KeyPressMsg{Code: 'z', Mod: tea.ModCtrl})
	h.runUntilShown("Lives in Lisbon. · undone", "Lives in Porto. · undone")
}

// TestCtrlZUndoesLeavingTheInput: ctrl+z is /undo without touching what
// is being typed.
func TestCtrlZUndoesLeavingTheInput(t *testing.T) {
	store := openStore(t)
	cfg, ix := screenConfig(t, store)
	n, err := ix.SaveNote(context.Background(), testUser, "Has a cat called Tom.", memory.NoteSource{By: memory.SourceExtracted, Confidence: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready")
	h.send(learntMsg{Learnt{ConversationID: "c", Text: "✎ remembered: Has a cat called Tom.", NoteID: n.ID}})
	h.runUntil("the learnt change recorded", func() bool { return h.m.undo.Len() == 1 })
	h.typeText("half a thought")
	h.send(tea.KeyPressMsg{Code: 'z', Mod: tea.ModCtrl})
	h.runUntilShown("Undid learning's new note")
	if got := h.m.input.Value(); got != "half a thought" {
		t.Fatalf("ctrl+z changed the input to %q", got)
	}
}

// TestCtrlZUndoesAnEditInTheMemoryBrowser: an edit made in this chat's
// memory browser is a change of this chat's, which ctrl+z takes back.
func TestCtrlZUndoesAnEditInTheMemoryBrowser(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	cfg, ix := screenConfig(t, store)
	n, err := ix.SaveNote(ctx, testUser, "Has a cat called Tom.", memory.NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready")
	h.send(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl})
	h.runUntilShown("Has a cat called Tom.")
	h.send(keyEnter)
	h.send(tea.KeyPressMsg{Code: 'e', Text: "e"})
	h.typeText(" He is grey.")
	h.send(keyCtrlS)
	h.runUntilShown("Saved.")
	if got, _ := store.Note(ctx, testUser, n.ID); got.Content != "Has a cat called Tom. He is grey." {
		t.Fatalf("the edit was not saved: %q", got.Content)
	}
	h.send(keyEsc)
	h.send(keyEsc)
	h.runUntil("the browser closed", func() bool { return h.m.top() == nil })
	h.send(tea.KeyPressMsg{Code: 'z', Mod: tea.ModCtrl})
	h.runUntilShown("Undid")
	if got, _ := store.Note(ctx, testUser, n.ID); got.Content != "Has a cat called Tom." {
		t.Fatalf("ctrl+z left %q", got.Content)
	}
}

// TestCtrlZNeverReachesAChangeTheChatDidNotMake: an edit made in the
// memory browser and undone there leaves ctrl+z nothing to take back; it
// does not go on to the note's creation, made outside this chat.
func TestCtrlZNeverReachesAChangeTheChatDidNotMake(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	cfg, ix := screenConfig(t, store)
	n, err := ix.SaveNote(ctx, testUser, "Tess lives in Lisbon.", memory.NoteSource{}) // `mneme memory add`
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready")
	h.send(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl})
	h.runUntilShown("Tess lives in Lisbon.")
	h.send(keyEnter)
	h.send(tea.KeyPressMsg{Code: 'e', Text: "e"})
	h.typeText(" EDIT2")
	h.send(keyCtrlS)
	h.runUntilShown("Saved.")
	h.send(tea.KeyPressMsg{Code: 'u', Text: "u"})
	h.runUntilShown("Undid your edit")
	h.send(keyEsc)
	h.send(keyEsc)
	h.runUntil("the browser closed", func() bool { return h.m.top() == nil })
	h.send(tea.KeyPressMsg{Code: 'z', Mod: tea.ModCtrl})
	h.runUntilShown("Nothing to undo.")
	if got, err := store.Note(ctx, testUser, n.ID); err != nil || got.Content != "Tess lives in Lisbon." {
		t.Fatalf("ctrl+z reached a change this chat did not make: %+v, %v", got, err)
	}
}

// TestPromptIntoADeletedConversationStartsANewOne: when another mneme
// deleted the open conversation, the next prompt (which could not be
// stored) goes into a new conversation, and the screen says why.
func TestPromptIntoADeletedConversationStartsANewOne(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "Nice.")
	h := newHarness(t, config(store, r, readyProbe))
	h.runUntilShown("Ollama ready")
	h.typeText("first")
	h.send(keyEnter)
	h.runUntilShown("Nice.")
	h.runUntilIdle()
	old := h.m.convID
	if err := store.DeleteConversation(context.Background(), testUser, old); err != nil {
		t.Fatal(err)
	}
	h.typeText("second")
	h.send(keyEnter)
	h.runUntilShown("deleted in another mneme", "Nice.")
	h.runUntilIdle()
	if h.m.convID == "" || h.m.convID == old {
		t.Fatalf("the prompt did not start a new conversation: %q", h.m.convID)
	}
	msgs, err := store.Messages(context.Background(), testUser, h.m.convID)
	if err != nil || len(msgs) != 2 || msgs[0].Content != "second" {
		t.Fatalf("the new conversation holds %+v, %v", msgs, err)
	}
}

// TestCtrlZTakesBackWhatOneTurnTaught: a fact learnt in place of another
// ("forgot Lisbon", "remembered Porto") goes back whole with one ctrl+z,
// so the user is not left with neither.
func TestCtrlZTakesBackWhatOneTurnTaught(t *testing.T) {
	ctx := memory.ChangedBy(context.Background(), memory.ByExtracted)
	store := openStore(t)
	cfg, ix := screenConfig(t, store)
	lisbon, err := ix.SaveNote(ctx, testUser, "Lives in Lisbon.", memory.NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready")
	if _, err := ix.DeleteNote(ctx, testUser, lisbon.ID); err != nil {
		t.Fatal(err)
	}
	porto, err := ix.SaveNote(ctx, testUser, "Lives in Porto.", memory.NoteSource{By: memory.SourceExtracted, Confidence: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range []Learnt{{ConversationID: "c", Turn: 3, Text: "✎ forgot: Lives in Lisbon.", NoteID: lisbon.ID},
		{ConversationID: "c", Turn: 3, Text: "✎ remembered: Lives in Porto.", NoteID: porto.ID}} {
		h.send(learntMsg{l})
		n := h.m.undo.Len()
		h.runUntil("the learnt change recorded", func() bool { return h.m.undo.Len() == n+1 })
	}
	h.send(tea.KeyPressMsg{Code: 'z', Mod: tea.ModCtrl})
	h.runUntilShown("forgot “Lives in Porto.”; restored “Lives in")
	if _, err := store.Note(context.Background(), testUser, porto.ID); err == nil {
		t.Fatal("Porto is still kept")
	}
	if n, err := store.Note(context.Background(), testUser, lisbon.ID); err != nil || n.Content != "Lives in Lisbon." {
		t.Fatalf("Lisbon after the undo: %+v, %v", n, err)
	}
}

// TestCtrlZTakesBackTheModelsChangesInOrder: a note the model saved and
// then changed in one reply goes back change by change (first its old
// text, then the note), and a note the model deleted comes back.
func TestCtrlZTakesBackTheModelsChangesInOrder(t *testing.T) {
	ctx := memory.ChangedBy(context.Background(), memory.ByModel)
	store := openStore(t)
	cfg, ix := screenConfig(t, store)
	lisbon, err := ix.SaveNote(context.Background(), testUser, "Lives in Lisbon.", memory.NoteSource{}) // `mneme memory add`
	if err != nil {
		t.Fatal(err)
	}
	// The reply's three calls, written as the tools write them: each
	// result's mark is made just after its write.
	cat, err := ix.SaveNote(ctx, testUser, "Has a cat.", memory.NoteSource{By: memory.SourceModel})
	if err != nil {
		t.Fatal(err)
	}
	saved := memory.NewID()
	if _, err := ix.UpdateNote(ctx, testUser, cat.ID, "Has a grey cat."); err != nil {
		t.Fatal(err)
	}
	updated := memory.NewID()
	if _, err := ix.DeleteNote(ctx, testUser, lisbon.ID); err != nil {
		t.Fatal(err)
	}
	deleted := memory.NewID()
	r := newFakeRunner(store, "Noted.")
	r.tools = []agent.ToolActivity{
		{ID: "1", Name: "memory_save", Done: true, Mark: saved, Notes: []agent.NoteRef{{ID: cat.ID, Action: agent.NoteSaved}}},
		{ID: "2", Name: "memory_update", Done: true, Mark: updated, Notes: []agent.NoteRef{{ID: cat.ID, Action: agent.NoteUpdated}}},
		{ID: "3", Name: "memory_delete", Done: true, Mark: deleted, Notes: []agent.NoteRef{{ID: lisbon.ID, Action: agent.NoteDeleted}}},
	}
	cfg.NewRunner = func(string) Runner { return r }
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready")
	h.typeText("I have a grey cat and moved away from Lisbon")
	h.send(keyEnter)
	h.runUntilIdle()
	h.runUntil("the model's changes recorded", func() bool { return h.m.undo.Len() == 3 })

	ctrlZ := tea.KeyPressMsg{Code: 'z', Mod: tea.ModCtrl}
	h.send(ctrlZ)
	h.runUntilShown("Undid the model's delete: restored “Lives in Lisbon.”")
	if n, err := store.Note(context.Background(), testUser, lisbon.ID); err != nil || n.Content != "Lives in Lisbon." {
		t.Fatalf("the deleted note after ctrl+z: %+v, %v", n, err)
	}
	h.send(ctrlZ)
	h.runUntilShown("Undid the model's edit: restored “Has a cat.”")
	if n, err := store.Note(context.Background(), testUser, cat.ID); err != nil || n.Content != "Has a cat." {
		t.Fatalf("the changed note after ctrl+z: %+v, %v", n, err)
	}
	h.send(ctrlZ)
	h.runUntilShown("Undid the model's new note: forgot “Has a cat.”")
	if _, err := store.Note(context.Background(), testUser, cat.ID); err == nil {
		t.Fatal("the saved note is still kept")
	}
}
