package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

// Fixtures the root's tests share with the panels' (tui/sidebar, tui/notes,
// tui/picker hold the originals, beside their code).

var (
	keyCtrlS = tea.KeyPressMsg{Code: 's', Mod: tea.ModCtrl}
)

func keyRune(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// sidebarNow is the fixed "now" of the sidebar tests.
var sidebarNow = time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)

// sampleConversations are a user's conversations, newest first.
func sampleConversations() []memory.Conversation {
	at := func(d time.Duration) time.Time { return sidebarNow.Add(-d) }
	return []memory.Conversation{
		{ID: "c1", Title: "Goroutines and channels", Updated: at(30 * time.Second)},
		{ID: "c2", Title: "Planning the Lisbon trip in spring", Updated: at(5 * time.Minute)},
		{ID: "c3", Title: "", Updated: at(3 * time.Hour)},
		{ID: "c4", Title: "Sourdough starter", Updated: at(50 * time.Hour), Archived: true},
		{ID: "c5", Title: "Tax return checklist", Updated: at(20 * 24 * time.Hour)},
		{ID: "c6", Title: "Old notes on Rust lifetimes", Updated: sidebarNow.AddDate(-1, 0, 0)},
	}
}

// fakeConversations records the changes asked of it.
type fakeConversations struct {
	mu    sync.Mutex
	list  []memory.Conversation
	calls []string
	fail  error
}

func (f *fakeConversations) ListConversations(_ context.Context, _ string, _ memory.ListOptions) ([]memory.Conversation, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]memory.Conversation(nil), f.list...), nil
}

func (f *fakeConversations) record(s string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, s)
	return f.fail
}

func (f *fakeConversations) RenameConversation(_ context.Context, _, id, title string) error {
	return f.record("rename " + id + " " + title)
}

func (f *fakeConversations) SetArchived(_ context.Context, _, id string, archived bool) error {
	return f.record(fmt.Sprintf("archive %s %v", id, archived))
}

func (f *fakeConversations) DeleteConversation(_ context.Context, _, id string) error {
	return f.record("delete " + id)
}

func (f *fakeConversations) ConversationNotes(context.Context, string, string) ([]memory.Note, error) {
	return nil, nil
}

func (f *fakeConversations) ForgetConversation(_ context.Context, _, id string) (int, error) {
	return 0, f.record("forget " + id)
}

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

func plain(view string) string { return ansi.Strip(view) }
