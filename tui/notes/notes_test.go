package notes

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/history"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/styles"
)

var (
	keyCtrlS = tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl}
)

// memoryFixture is a real store and index with notes saved from a
// conversation and one added outside.
type memoryFixture struct {
	store *memory.Store
	ix    *index.Index
	conv  memory.Conversation
	cat   memory.Note // saved at turn 2 of conv
	tea   memory.Note // added outside a conversation
}

func newMemoryFixture(t *testing.T) memoryFixture {
	t.Helper()
	ctx := context.Background()
	store := openStore(t)
	conv := must[memory.Conversation](t)(store.CreateConversation(ctx, testUser, "About my pets"))
	ix, err := index.OpenIndex(ctx, store, filepath.Join(t.TempDir(), "index"), index.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	f := memoryFixture{store: store, ix: ix, conv: conv}
	f.cat = must[memory.Note](t)(ix.SaveNote(ctx, testUser, "The user's cat is called Tom.", memory.NoteSource{ConversationID: conv.ID, TurnNumber: 2}))
	f.tea = must[memory.Note](t)(ix.SaveNote(ctx, testUser, "Prefers green tea to coffee.", memory.NoteSource{}))
	return f
}

func newBrowser(t *testing.T, notes NoteStore, convs ConversationLookup, clock *testClock, w, h int) *component[MemoryBrowser] {
	st := styles.New(true)
	b := NewMemoryBrowser(&st, MemoryConfig{
		Notes: notes, Conversations: convs, UserID: testUser,
		TempDir: t.TempDir(), Now: clock.Now, Tick: clock.Tick,
	})
	b.SetSize(w, h)
	c := newComponent(t, b, MemoryBrowser.Update, MemoryBrowser.Owns)
	var cmd tea.Cmd
	c.M, cmd = c.M.Open()
	c.Push(cmd)
	c.RunAll()
	return c
}

// selectNote moves the cursor to the note with id.
func selectNote(t *testing.T, c *component[MemoryBrowser], id string) {
	t.Helper()
	for range len(c.M.Notes()) {
		c.Send(keyUp)
	}
	for range len(c.M.Notes()) {
		if n, ok := c.M.selected(); ok && n.ID == id {
			return
		}
		c.Send(keyDown)
	}
	t.Fatalf("note %s not listed: %+v", id, c.M.Notes())
}

func TestMemoryBrowserListsNewestFirstWithProvenance(t *testing.T) {
	f := newMemoryFixture(t)
	c := newBrowser(t, f.ix, f.store, newTestClock(), 80, 24)
	notes := c.M.Notes()
	if len(notes) != 2 || notes[0].ID != f.tea.ID || notes[1].ID != f.cat.ID {
		t.Fatalf("listed %+v, want the newest note first", notes)
	}
	requireShows(t, c.M.View(), "Memory · 2 notes", "Prefers green tea to coffee.", "Added outside a conversation")

	selectNote(t, c, f.cat.ID)
	requireShows(t, c.M.View(), "From “About my pets”, turn 2")
	c.Send(keyEnter) // the whole note
	requireShows(t, c.M.View(), "The user's cat is called Tom.", "From “About my pets”, turn 2", "o open turn")
	c.Send(keyRune('o'))
	c.RunAll()
	if got := sent[panel.OpenTurnMsg](c); len(got) != 1 || got[0] != (panel.OpenTurnMsg{ConversationID: f.conv.ID, Turn: 2}) {
		t.Fatalf("sent %+v, want panel.OpenTurnMsg for turn 2", c.Out)
	}
	c.Send(keyEsc) // back to the list
	c.Send(keyEsc) // closes
	c.RunAll()
	if len(sent[panel.CloseOverlayMsg](c)) != 1 {
		t.Fatalf("sent %+v, want panel.CloseOverlayMsg", c.Out)
	}
}

// TestMemoryBrowserShowsTags: a note's tags show under it, as `memory
// list` shows them.
func TestMemoryBrowserShowsTags(t *testing.T) {
	f := newMemoryFixture(t)
	must[memory.Note](t)(f.ix.SaveNote(context.Background(), testUser, "Plays the cello.", memory.NoteSource{Tags: []string{"music", "hobby"}}))
	c := newBrowser(t, f.ix, f.store, newTestClock(), 80, 24)
	requireShows(t, c.M.View(), "Plays the cello.", "Added outside a conversation · #music #hobby")
}

func TestMemoryBrowserEditSavesToTheStore(t *testing.T) {
	ctx := context.Background()
	f := newMemoryFixture(t)
	c := newBrowser(t, f.ix, f.store, newTestClock(), 80, 24)
	selectNote(t, c, f.cat.ID)
	c.Send(keyRune('e'))
	if !c.M.InputFocused() {
		t.Fatal("the editor does not have the keys")
	}
	requireShows(t, c.M.View(), "Edit note", "ctrl+s save")
	c.TypeText(" He is a tabby.")
	c.Send(keyCtrlS)
	c.RunAll()
	want := "The user's cat is called Tom. He is a tabby."
	if got := must[memory.Note](t)(f.store.Note(ctx, testUser, f.cat.ID)); got.Content != want {
		t.Fatalf("stored %q, want %q", got.Content, want)
	}
	requireShows(t, c.M.View(), "Saved.", want)
	// The index is in step: the new words find the note.
	res := must[[]index.NoteResult](t)(f.ix.SearchNotes(ctx, index.NoteQuery{UserID: testUser, Text: "tabby"}))
	if len(res) != 1 || res[0].ID != f.cat.ID {
		t.Fatalf("search for the new text: %+v", res)
	}

	// Esc on an edited text asks first: a second Esc cancels it without
	// writing; a key between them keeps editing.
	c.Send(keyRune('e'))
	c.TypeText(" Forget this.")
	c.Send(keyEsc)
	requireShows(t, c.M.View(), "Esc again throws your edit away; ctrl+s saves it.", "Forget this.")
	if !c.M.InputFocused() {
		t.Fatal("one Esc left an edited note's editor")
	}
	c.TypeText(" Really.")
	c.Send(keyEsc)
	if !c.M.InputFocused() {
		t.Fatal("an Esc after typing again threw the edit away at once")
	}
	c.Send(tea.PasteMsg{Content: " Pasted."})
	c.Send(keyEsc)
	if !c.M.InputFocused() {
		t.Fatal("an Esc after a paste threw the edit away at once")
	}
	c.Send(keyEsc)
	c.RunAll()
	if got := must[memory.Note](t)(f.store.Note(ctx, testUser, f.cat.ID)); got.Content != want {
		t.Fatalf("a cancelled edit was stored: %q", got.Content)
	}
	requireShows(t, c.M.View(), "Edit cancelled.")
}

// TestMemoryBrowserEditOfANoteDeletedElsewhereIsSavedAsNew: another mneme
// deletes the note being edited; Ctrl+S said "The note is gone." (or, before
// the list showed the delete, "Save failed"), and only Esc, which drops the
// text, led out. The text is saved as a new note.
func TestMemoryBrowserEditOfANoteDeletedElsewhereIsSavedAsNew(t *testing.T) {
	for _, refreshed := range []bool{true, false} {
		t.Run(fmt.Sprint("listed again ", refreshed), func(t *testing.T) {
			ctx := context.Background()
			f := newMemoryFixture(t)
			c := newBrowser(t, f.ix, f.store, newTestClock(), 80, 24)
			selectNote(t, c, f.cat.ID)
			c.Send(keyRune('e'))
			c.TypeText(" He is a tabby.")
			if _, err := f.ix.DeleteNote(ctx, testUser, f.cat.ID); err != nil { // another mneme
				t.Fatal(err)
			}
			if refreshed {
				var cmd tea.Cmd
				c.M, cmd = c.M.Refresh() // as the chat does when notes change
				c.Push(cmd)
				c.RunAll()
			}
			c.Send(keyCtrlS)
			c.RunAll()
			requireShows(t, c.M.View(), "your text is saved as a new note")
			kept, ok, err := f.ix.KeptNote(ctx, testUser, "The user's cat is called Tom. He is a tabby.")
			if err != nil || !ok || kept.ID == f.cat.ID || c.M.InputFocused() {
				t.Fatalf("the edit's text: %+v, %v, %v; editor focused %v", kept, ok, err, c.M.InputFocused())
			}
		})
	}
}

// A note holding tabs, a carriage return, escape sequences or bidi
// controls is edited as it is shown: the editor never draws them, and a
// save without a change writes nothing.
func TestMemoryBrowserEditShowsTheCleanNoteAndAnUntouchedSaveWritesNothing(t *testing.T) {
	ctx := context.Background()
	f := newMemoryFixture(t)
	raw := "Evil \x1b[31mRED\x1b[0m\tnote \u202eREVERSED\u202c and \x1b]0;PWNED\a title\r"
	odd := must[memory.Note](t)(f.ix.SaveNote(ctx, testUser, raw, memory.NoteSource{}))
	c := newBrowser(t, f.ix, f.store, newTestClock(), 80, 24)
	selectNote(t, c, odd.ID)
	c.Send(keyRune('e'))
	view := c.M.View()
	for _, bad := range []string{"[31m", "\u202e", "PWNED", "\a", "\r"} {
		if strings.Contains(view, bad) {
			t.Errorf("the editor draws %q:\n%s", bad, view)
		}
	}
	requireShows(t, view, "Evil RED    note REVERSED and  title")
	c.Send(keyCtrlS)
	c.RunAll()
	requireShows(t, c.M.View(), "No change.")
	if got := must[memory.Note](t)(f.store.Note(ctx, testUser, odd.ID)); got.Content != odd.Content {
		t.Fatalf("an untouched save rewrote the note: %q", got.Content)
	}
}

func TestMemoryBrowserDeleteAndUndo(t *testing.T) {
	ctx := context.Background()
	f := newMemoryFixture(t)
	c := newBrowser(t, f.ix, f.store, newTestClock(), 80, 24)
	selectNote(t, c, f.cat.ID)
	c.Send(keyRune('d'))
	c.RunAll()
	if _, err := f.store.Note(ctx, testUser, f.cat.ID); !errors.Is(err, memory.ErrNoteNotFound) {
		t.Fatalf("note after delete: %v, want not found", err)
	}
	if len(c.M.Notes()) != 1 {
		t.Fatalf("listed %+v after delete", c.M.Notes())
	}
	requireShows(t, c.M.View(), "Deleted “The user's cat is called Tom.”. Press u to undo.", "Memory · 1 note")

	c.Send(keyRune('u'))
	c.RunAll()
	back := must[memory.Note](t)(f.store.Note(ctx, testUser, f.cat.ID))
	if back.Content != f.cat.Content || back.ConversationID != f.conv.ID || back.TurnNumber != 2 {
		t.Fatalf("restored %+v, want %+v", back, f.cat)
	}
	if notes := c.M.Notes(); len(notes) != 2 || notes[0].ID != f.cat.ID {
		t.Fatalf("listed %+v after undo, want the restored note first", notes)
	}
	requireShows(t, c.M.View(), "Restored “The user's cat is called Tom.”.", "Memory · 2 notes")
	res := must[[]index.NoteResult](t)(f.ix.SearchNotes(ctx, index.NoteQuery{UserID: testUser, Text: "cat Tom"}))
	if len(res) != 1 || res[0].ID != f.cat.ID {
		t.Fatalf("restored note not searchable: %+v", res)
	}
	// u never deletes a note: its creation is not undone.
	selectNote(t, c, f.cat.ID)
	c.Send(keyRune('u'))
	c.RunAll()
	requireShows(t, c.M.View(), "Nothing to undo.")

	// Undo is the store's: a note deleted before the browser was reopened
	// comes back too, from its history.
	selectNote(t, c, f.tea.ID)
	c.Send(keyRune('d'))
	c.RunAll()
	var cmd tea.Cmd
	c.M, cmd = c.M.Open()
	c.Push(cmd)
	c.RunAll()
	if _, err := f.ix.DeleteNote(ctx, testUser, f.cat.ID); err != nil { // deleted elsewhere meanwhile
		t.Fatal(err)
	}
	if _, _, err := f.ix.Undo(ctx, testUser, "", f.tea.ID); err != nil {
		t.Fatal(err)
	}
	if got := must[memory.Note](t)(f.store.Note(ctx, testUser, f.tea.ID)); got.Content != f.tea.Content {
		t.Fatalf("restored %+v", got)
	}
}

// An edit made before the browser opened (by the model here) is undone
// with u, and the history shows who made each change.
func TestMemoryBrowserHistoryAndLaterUndo(t *testing.T) {
	ctx := context.Background()
	f := newMemoryFixture(t)
	if _, err := f.ix.UpdateNote(memory.ChangedBy(ctx, memory.ByModel), testUser, f.cat.ID, "The user's cat is called Felix."); err != nil {
		t.Fatal(err)
	}
	c := newBrowser(t, f.ix, f.store, newTestClock(), 80, 24)
	selectNote(t, c, f.cat.ID)
	c.Send(keyRune('h'))
	c.RunAll()
	requireShows(t, c.M.View(), "History", "update by model", "− The user's cat is called Tom.", "+ The user's cat is called Felix.", "create by user")

	c.Send(keyRune('u'))
	c.RunAll()
	if got := must[memory.Note](t)(f.store.Note(ctx, testUser, f.cat.ID)); got.Content != "The user's cat is called Tom." {
		t.Fatalf("after u: %q", got.Content)
	}
	requireShows(t, c.M.View(), "Undid the model's edit", "(undone)", "update by user (an undo)")
	c.Send(keyEsc)
	if notes := c.M.Notes(); notes[0].Content != "The user's cat is called Tom." && notes[1].Content != "The user's cat is called Tom." {
		t.Fatalf("listed %+v", notes)
	}
}

// A pending note is approved with a and rejected with x; other notes are not.
func TestMemoryBrowserReviewsPendingNotes(t *testing.T) {
	ctx := context.Background()
	f := newMemoryFixture(t)
	p1 := must[memory.Note](t)(f.ix.SaveNote(ctx, testUser, "Lives in Porto.", memory.NoteSource{By: memory.SourceExtracted, Confidence: 0.8, Pending: true}))
	p2 := must[memory.Note](t)(f.ix.SaveNote(ctx, testUser, "Plays the cello.", memory.NoteSource{By: memory.SourceExtracted, Confidence: 0.8, Pending: true}))
	c := newBrowser(t, f.ix, f.store, newTestClock(), 80, 24)
	requireShows(t, c.M.View(), "pending")

	selectNote(t, c, f.tea.ID)
	c.Send(keyRune('a'))
	requireShows(t, c.M.View(), "Only a pending note")

	selectNote(t, c, p1.ID)
	requireShows(t, c.M.View(), "a approve", "x reject")
	c.Send(keyRune('a'))
	c.RunAll()
	if got := must[memory.Note](t)(f.store.Note(ctx, testUser, p1.ID)); got.Status != memory.NoteActive {
		t.Fatalf("approved note is %s", got.Status)
	}
	requireShows(t, c.M.View(), "Approved “Lives in Porto.”")

	selectNote(t, c, p2.ID)
	c.Send(keyRune('x'))
	c.RunAll()
	if _, err := f.store.Note(ctx, testUser, p2.ID); !errors.Is(err, memory.ErrNoteNotFound) {
		t.Fatalf("rejected note: %v", err)
	}
	requireShows(t, c.M.View(), "Rejected “Plays the cello.”. Press u to undo.")
	c.Send(keyRune('u'))
	c.RunAll()
	if got := must[memory.Note](t)(f.store.Note(ctx, testUser, p2.ID)); got.Status != memory.NotePending {
		t.Fatalf("un-rejected note is %s", got.Status)
	}
}

// A pending note that would replace a kept one says so in its view, and
// approving it takes the kept note out of the list.
func TestMemoryBrowserApprovesAReplacement(t *testing.T) {
	ctx := context.Background()
	f := newMemoryFixture(t)
	p := must[memory.Note](t)(f.ix.SaveNote(ctx, testUser, "Prefers black coffee now.",
		memory.NoteSource{By: memory.SourceExtracted, Confidence: 0.8, Pending: true, Replaces: f.tea.ID}))
	c := newBrowser(t, f.ix, f.store, newTestClock(), 80, 24)
	selectNote(t, c, p.ID)
	c.Send(keyEnter)
	requireShows(t, c.M.View(), "Approving it replaces “Prefers green tea to coffee.”")
	c.Send(keyRune('a'))
	c.RunAll()
	requireShows(t, c.M.View(), "Approved “Prefers black coffee now.”: it replaces “Prefers green tea to coffee.")
	for _, n := range c.M.Notes() {
		if n.ID == f.tea.ID {
			t.Fatalf("the replaced note is still listed: %+v", c.M.Notes())
		}
	}
}

// A new search selects its best match, even when the note selected
// before is among the results: d and enter act on the row at the top.
func TestMemoryBrowserSearchSelectsTheBestMatch(t *testing.T) {
	ctx := context.Background()
	f := newMemoryFixture(t)
	for _, text := range []string{"Grows tomatoes in the garden.", "Waters the garden every day.", "The garden has a pond."} {
		must[memory.Note](t)(f.ix.SaveNote(ctx, testUser, text, memory.NoteSource{}))
	}
	c := newBrowser(t, f.ix, f.store, newTestClock(), 80, 24)
	if n, ok := c.M.selected(); !ok || n.Content != "The garden has a pond." {
		t.Fatalf("selected at first: %+v", n)
	}
	c.Send(keyRune('/'))
	c.TypeText("garden tomatoes")
	c.RunAll()
	notes := c.M.Notes()
	if len(notes) < 2 || notes[0].Content != "Grows tomatoes in the garden." ||
		!slices.ContainsFunc(notes, func(n memory.Note) bool { return n.Content == "The garden has a pond." }) {
		t.Fatalf("search listed %+v", notes)
	}
	if n, ok := c.M.selected(); !ok || n.ID != notes[0].ID {
		t.Fatalf("selected after the search: %q, want the best match %q", n.Content, notes[0].Content)
	}
}

func TestMemoryBrowserSearch(t *testing.T) {
	f := newMemoryFixture(t)
	clock := newTestClock()
	c := newBrowser(t, f.ix, f.store, clock, 80, 24)
	c.Send(keyRune('/'))
	if !c.M.InputFocused() {
		t.Fatal("/ did not focus the search box")
	}
	c.TypeText("coffee")
	if len(c.M.Notes()) != 2 {
		t.Fatal("searched before the debounce")
	}
	c.RunAll()
	if notes := c.M.Notes(); len(notes) != 1 || notes[0].ID != f.tea.ID {
		t.Fatalf("search for coffee listed %+v", notes)
	}
	requireShows(t, c.M.View(), "1 found")
	c.Send(keyEnter) // leaves the box, keeps the search
	if c.M.InputFocused() || len(c.M.Notes()) != 1 {
		t.Fatalf("after enter: focused %v, %d notes", c.M.InputFocused(), len(c.M.Notes()))
	}
	c.Send(keyRune('/'))
	c.TypeText("zzz")
	c.RunAll()
	requireShows(t, c.M.View(), "No notes match “coffeezzz”.")
	c.Send(keyEsc) // clears the search
	c.RunAll()
	if len(c.M.Notes()) != 2 || c.M.InputFocused() {
		t.Fatalf("after esc: %d notes, focused %v", len(c.M.Notes()), c.M.InputFocused())
	}
}

func TestMemoryBrowserExternalEditor(t *testing.T) {
	ctx := context.Background()
	f := newMemoryFixture(t)
	c := newBrowser(t, f.ix, f.store, newTestClock(), 80, 24)
	selectNote(t, c, f.cat.ID)
	c.Send(keyRune('E'))
	c.RunAll()
	reqs := sent[panel.ExternalEditMsg](c)
	if len(reqs) != 1 || reqs[0].Key != f.cat.ID {
		t.Fatalf("sent %+v, want one panel.ExternalEditMsg for the note", c.Out)
	}
	req := reqs[0]
	if b, err := os.ReadFile(req.Path); err != nil || string(b) != f.cat.Content+"\n" {
		t.Fatalf("editor file holds %q (%v)", b, err)
	}
	if req.Exec("true") == nil {
		t.Fatal("no command to run the editor")
	}
	// The user edits the file; the editor exits.
	if err := os.WriteFile(req.Path, []byte("The user's cat is called Thomas.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	done := panel.ExternalEditDoneMsg{Owner: req.Owner, Key: req.Key, Path: req.Path}
	if !c.M.Owns(done) {
		t.Fatal("the browser does not own its editor's end")
	}
	c.Send(done)
	c.RunAll()
	if got := must[memory.Note](t)(f.store.Note(ctx, testUser, f.cat.ID)); got.Content != "The user's cat is called Thomas." {
		t.Fatalf("stored %q after the editor", got.Content)
	}
	if _, err := os.Stat(req.Path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the temporary file is left behind: %v", err)
	}

	// An editor that fails leaves the note as it was.
	c.Send(keyRune('E'))
	c.RunAll()
	req = sent[panel.ExternalEditMsg](c)[1]
	c.Send(panel.ExternalEditDoneMsg{Owner: req.Owner, Key: req.Key, Path: req.Path, Err: errors.New("editor vi: exit status 1")})
	c.RunAll()
	requireShows(t, c.M.View(), "editor vi: exit status 1")
	if _, err := os.Stat(req.Path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the temporary file is left behind: %v", err)
	}
}

func TestMemoryBrowserMarksFreshNotes(t *testing.T) {
	f := newMemoryFixture(t)
	c := newBrowser(t, f.ix, f.store, newTestClock(), 80, 24)
	c.M.SetFresh(map[string]bool{f.cat.ID: true})
	view := plain(c.M.View())
	if !strings.Contains(view, "● 1 new") {
		t.Fatalf("no count of new notes:\n%s", view)
	}
	for _, line := range strings.Split(view, "\n") {
		if strings.Contains(line, "cat is called Tom") && !strings.Contains(line, "● new") {
			t.Fatalf("fresh note not marked: %q", line)
		}
		if strings.Contains(line, "green tea") && strings.Contains(line, "● new") {
			t.Fatalf("old note marked new: %q", line)
		}
	}
}

// staticNotes is a fixed NoteStore for the golden tests.
type staticNotes struct{ notes []memory.Note }

func (s staticNotes) ListNotes(context.Context, string) ([]memory.Note, error) { return s.notes, nil }
func (s staticNotes) SearchNotes(_ context.Context, q index.NoteQuery) ([]index.NoteResult, error) {
	var out []index.NoteResult
	for _, n := range s.notes {
		if strings.Contains(strings.ToLower(n.Content), strings.ToLower(q.Text)) {
			out = append(out, index.NoteResult{Note: n})
		}
	}
	return out, nil
}
func (staticNotes) SaveNote(context.Context, string, string, memory.NoteSource) (memory.Note, error) {
	return memory.Note{}, errors.New("read-only")
}
func (staticNotes) UpdateNote(context.Context, string, string, string) (memory.Note, error) {
	return memory.Note{}, errors.New("read-only")
}
func (staticNotes) DeleteNote(context.Context, string, string) (memory.Note, error) {
	return memory.Note{}, errors.New("read-only")
}
func (staticNotes) SetNoteStatus(context.Context, string, string, string) (memory.Note, error) {
	return memory.Note{}, errors.New("read-only")
}
func (staticNotes) NoteHistory(context.Context, string, string) ([]history.Change, error) {
	return nil, nil
}
func (staticNotes) Undo(context.Context, string, string, string) (history.Change, memory.Note, error) {
	return history.Change{}, memory.Note{}, errors.New("read-only")
}

type staticConvs map[string]string

func (s staticConvs) Conversation(_ context.Context, _ string, id string) (memory.Conversation, error) {
	if t, ok := s[id]; ok {
		return memory.Conversation{ID: id, Title: t}, nil
	}
	return memory.Conversation{}, memory.ErrNotFound
}

func sampleNotes(now time.Time) []memory.Note {
	mk := func(id, text, conv string, turn int, age time.Duration) memory.Note {
		return memory.Note{ID: id, Content: text, ConversationID: conv, TurnNumber: turn, Created: now.Add(-age), Updated: now.Add(-age)}
	}
	return []memory.Note{
		mk("0193a001", "Is allergic to peanuts.", "c1", 4, 30*time.Second),
		mk("0193a002", "The user's cat is called Tom; he is a grey tabby who likes to sleep on the warm laptop keyboard while the user works.", "c1", 2, 3*time.Hour),
		mk("0193a003", "Prefers green tea to coffee.", "", 0, 26*time.Hour),
		mk("0193a004", "Works as a backend engineer at a logistics company in Rotterdam.\nUses Go and PostgreSQL.", "c2", 1, 5*24*time.Hour),
		mk("0193a005", "Wants answers short, with code first and explanations after.", "c3", 9, 40*24*time.Hour),
	}
}

func TestMemoryListGolden(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {60, 20}} {
		name := fmt.Sprintf("memory_list_%dx%d", size.w, size.h)
		t.Run(name, func(t *testing.T) {
			clock := newTestClock()
			store := staticNotes{sampleNotes(clock.Now())}
			c := newBrowser(t, store, staticConvs{"c1": "About my pets", "c2": "Job hunting"}, clock, size.w, size.h)
			c.M.SetFresh(map[string]bool{"0193a001": true})
			c.Send(keyDown)
			view := c.M.View()
			requireSize(t, view, size.w, size.h)
			requireGolden(t, name, view)
		})
	}
	t.Run("memory_note_60x20", func(t *testing.T) {
		clock := newTestClock()
		c := newBrowser(t, staticNotes{sampleNotes(clock.Now())}, staticConvs{"c1": "About my pets"}, clock, 60, 20)
		c.Send(keyDown)
		c.Send(keyEnter)
		view := c.M.View()
		requireSize(t, view, 60, 20)
		requireGolden(t, "memory_note_60x20", view)
	})
	t.Run("memory_empty_60x20", func(t *testing.T) {
		c := newBrowser(t, staticNotes{}, nil, newTestClock(), 60, 20)
		view := c.M.View()
		requireSize(t, view, 60, 20)
		requireGolden(t, "memory_empty_60x20", view)
	})
}

// TestOverlaysRestyleKeepState checks that a change of background keeps
// what the memory browser holds (an edit in progress).
func TestOverlaysRestyleKeepState(t *testing.T) {
	light := styles.New(false)
	clock := newTestClock()
	b := newBrowser(t, staticNotes{sampleNotes(clock.Now())}, nil, clock, 80, 24)
	b.Send(keyRune('e'))
	b.M.Restyle(&light)
	requireShows(t, b.M.View(), "Edit note", "Is allergic to peanuts.")
}
