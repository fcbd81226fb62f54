package sidebar

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/tui/styles"
)

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
	notes map[string]int // notes that came from each conversation
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

func (f *fakeConversations) ConversationNotes(_ context.Context, _, id string) ([]memory.Note, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []memory.Note
	for i := range f.notes[id] {
		out = append(out, memory.Note{ID: fmt.Sprintf("%s-n%d", id, i), Content: fmt.Sprintf("Note %d learnt in %s", i+1, id)})
	}
	return out, nil
}

func (f *fakeConversations) ForgetConversation(_ context.Context, _, id string) (int, error) {
	f.mu.Lock()
	n := f.notes[id]
	f.mu.Unlock()
	return n, f.record(fmt.Sprintf("forget %s (%d notes)", id, n))
}

func (f *fakeConversations) recorded() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// loadedSidebar is a sidebar of w×h showing sampleConversations.
func loadedSidebar(t *testing.T, mgr ConversationManager, w, h int) Model {
	t.Helper()
	st := styles.New(true)
	s := New(context.Background(), &st, DefaultSidebarKeyMap(), mgr, testUser, func() time.Time { return sidebarNow })
	s.SetSize(w, h)
	s.Reload()
	s, _ = s.Update(listMsg{seq: s.seq, convs: sampleConversations()})
	return s
}

func sidebarKey(t *testing.T, s Model, msgs ...tea.Msg) (Model, []tea.Msg) {
	t.Helper()
	var out []tea.Msg
	for _, m := range msgs {
		var cmd tea.Cmd
		s, cmd = s.Update(m)
		if cmd == nil {
			continue
		}
		// The sidebar's own messages (a note count) go back to it.
		if msg := runCmd(t, cmd); s.Owns(msg) {
			s, _ = s.Update(msg)
		} else {
			out = append(out, msg)
		}
	}
	return s, out
}

func typeKeys(text string) []tea.Msg {
	var out []tea.Msg
	for _, r := range text {
		out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
	}
	return out
}

func TestSidebarGolden(t *testing.T) {
	keyCtrlD := tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}
	keyCtrlR := tea.KeyPressMsg{Code: 'r', Mod: tea.ModCtrl}
	keyCtrlV := tea.KeyPressMsg{Code: 'v', Mod: tea.ModCtrl}
	tests := []struct {
		name    string
		w, h    int
		focused bool
		keys    []tea.Msg
	}{
		{"unfocused_30x12", 30, 12, false, nil},
		{"focused_30x12", 30, 12, true, []tea.Msg{keyDown}},
		{"filter_30x8", 30, 8, true, typeKeys("lis")},
		{"filter_nomatch_30x8", 30, 8, true, typeKeys("zebra")},
		{"archived_30x12", 30, 12, true, []tea.Msg{keyCtrlV}},
		{"confirm_delete_30x10", 30, 10, true, []tea.Msg{keyDown, keyCtrlD}},
		{"rename_30x10", 30, 10, true, []tea.Msg{keyCtrlR}},
		{"narrow_20x6", 20, 6, true, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := loadedSidebar(t, &fakeConversations{}, tt.w, tt.h)
			s.SetCurrent("c2")
			if tt.focused {
				s.Focus()
			}
			s, _ = sidebarKey(t, s, tt.keys...)
			got := s.View(tt.focused)
			lines := strings.Split(got, "\n")
			if len(lines) != tt.h {
				t.Errorf("sidebar is %d rows, want %d", len(lines), tt.h)
			}
			for i, l := range lines {
				if w := ansi.StringWidth(l); w != tt.w {
					t.Errorf("row %d is %d wide, want %d: %q", i, w, tt.w, ansi.Strip(l))
				}
			}
			requireGolden(t, "sidebar_"+tt.name, got)
		})
	}
}

func TestSidebarFilterAsYouType(t *testing.T) {
	s := loadedSidebar(t, &fakeConversations{}, 30, 12)
	s.Focus()
	s, _ = sidebarKey(t, s, typeKeys("the")...)
	var titles []string
	for _, c := range s.items {
		titles = append(titles, c.Title)
	}
	// "the" is in "Planning the Lisbon trip"; archived ones stay hidden.
	if len(titles) != 1 || titles[0] != "Planning the Lisbon trip in spring" {
		t.Fatalf("filtered titles = %q", titles)
	}
	// Esc clears the filter first, then gives the keys back.
	s, msgs := sidebarKey(t, s, keyEsc)
	if len(msgs) != 0 || len(s.items) != 5 {
		t.Fatalf("esc with a filter: msgs %v, %d items", msgs, len(s.items))
	}
	_, msgs = sidebarKey(t, s, keyEsc)
	if len(msgs) != 1 || msgs[0] != (BlurMsg{}) {
		t.Fatalf("esc without a filter: %v", msgs)
	}
}

func TestSidebarActions(t *testing.T) {
	mgr := &fakeConversations{}
	s := loadedSidebar(t, mgr, 30, 12)
	s.Focus()

	// Enter opens the chosen conversation.
	s, msgs := sidebarKey(t, s, keyDown, keyEnter)
	if len(msgs) != 1 || msgs[0].(OpenMsg).Conv.ID != "c2" {
		t.Fatalf("enter: %v", msgs)
	}
	// Ctrl+N asks for a new conversation.
	_, msgs = sidebarKey(t, s, tea.KeyPressMsg{Code: 'n', Mod: tea.ModCtrl})
	if len(msgs) != 1 || msgs[0] != (NewMsg{}) {
		t.Fatalf("ctrl+n: %v", msgs)
	}
	// Ctrl+A archives.
	_, msgs = sidebarKey(t, s, tea.KeyPressMsg{Code: 'a', Mod: tea.ModCtrl})
	if ch, ok := msgs[0].(ChangedMsg); !ok || ch.Op != OpArchive || ch.Conv.ID != "c2" || !ch.Conv.Archived {
		t.Fatalf("ctrl+a: %v", msgs)
	}
	// Ctrl+R renames: the box starts with the title.
	s, _ = sidebarKey(t, s, tea.KeyPressMsg{Code: 'r', Mod: tea.ModCtrl})
	if got := s.rename.Value(); got != "Planning the Lisbon trip in spring" {
		t.Fatalf("rename box = %q", got)
	}
	s.rename.SetValue("")
	s, msgs = sidebarKey(t, s, append(typeKeys("Lisbon"), keyEnter)...)
	var changed []ChangedMsg
	for _, m := range msgs {
		if ch, ok := m.(ChangedMsg); ok {
			changed = append(changed, ch)
		}
	}
	if len(changed) != 1 || changed[0].Op != OpRename || changed[0].Conv.Title != "Lisbon" {
		t.Fatalf("rename: %v", msgs)
	}
	// Delete asks first: n keeps it, y deletes it.
	keyCtrlD := tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}
	s, msgs = sidebarKey(t, s, keyCtrlD, tea.KeyPressMsg{Code: 'n', Text: "n"})
	if len(msgs) != 0 || s.mode != sideList {
		t.Fatalf("ctrl+d then n: %v, mode %v", msgs, s.mode)
	}
	_, msgs = sidebarKey(t, s, keyCtrlD, tea.KeyPressMsg{Code: 'y', Text: "y"})
	if ch, ok := msgs[0].(ChangedMsg); !ok || ch.Op != OpDelete || ch.Conv.ID != "c2" {
		t.Fatalf("ctrl+d then y: %v", msgs)
	}
	want := []string{"archive c2 true", "rename c2 Lisbon", "delete c2"}
	if got := mgr.recorded(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("changes = %q, want %q", got, want)
	}
}

// TestSidebarDeleteOffersToForgetNotes: the delete question counts the
// notes that came from the conversation (in a command) and offers to
// forget them too: y deletes and keeps them, f forgets them.
func TestSidebarDeleteOffersToForgetNotes(t *testing.T) {
	mgr := &fakeConversations{notes: map[string]int{"c2": 3}}
	s := loadedSidebar(t, mgr, 30, 12)
	s.Focus()
	keyCtrlD := tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl}
	s, _ = sidebarKey(t, s, keyDown)
	// No I/O in Update: ctrl+d only returns the command that counts.
	s2, cmd := s.Update(keyCtrlD)
	if cmd == nil || s2.notes != -1 {
		t.Fatalf("ctrl+d: cmd %v, notes %d", cmd, s2.notes)
	}
	requireShows(t, s2.View(true), "Delete “Planning the Lisbo", "counting its notes", "y delete · n keep")
	// A title longer than the row is cut, not the question.
	requireShows(t, s2.View(true), "…”?")

	s, _ = sidebarKey(t, s, keyCtrlD)
	view := plain(s.View(true))
	requireShows(t, view, "3 notes came from it:", "· Note 1 learnt in c2", "· Note 3 learnt in c2", "y delete, keep notes", "f delete, forget notes", "n keep")
	requireSize(t, s.View(true), 30, 12)
	help := fmt.Sprint(DefaultSidebarKeyMap().FullHelp())
	if !strings.Contains(help, "forget notes") {
		t.Fatalf("the key help does not offer to forget: %s", help)
	}

	// f deletes and forgets.
	_, msgs := sidebarKey(t, s, keyRune('f'))
	if ch, ok := msgs[0].(ChangedMsg); !ok || ch.Op != OpDelete || ch.Conv.ID != "c2" || ch.ForgotNotes != 3 {
		t.Fatalf("f: %v", msgs)
	}
	// y deletes and keeps the notes.
	_, msgs = sidebarKey(t, s, keyRune('y'))
	if ch, ok := msgs[0].(ChangedMsg); !ok || ch.Op != OpDelete || ch.ForgotNotes != 0 {
		t.Fatalf("y: %v", msgs)
	}
	want := []string{"forget c2 (3 notes)", "delete c2"}
	if got := mgr.recorded(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("changes = %q, want %q", got, want)
	}

	// A conversation without notes is asked about as before.
	s, _ = sidebarKey(t, s, keyRune('n'), keyDown, keyCtrlD)
	requireShows(t, s.View(true), "no note came from it", "y delete · n keep")
	// A count for another conversation (an older question) is dropped.
	s, _ = s.Update(noteCountMsg{id: "c2", notes: make([]memory.Note, 7)})
	if s.notes != 0 {
		t.Fatalf("a stale count was taken: %d", s.notes)
	}
	// The question stays in view on the last row of a short list.
	s = loadedSidebar(t, mgr, 30, 8)
	s.Focus()
	s, _ = sidebarKey(t, s, keyDown, keyDown, keyDown, keyDown, keyDown, keyDown, keyCtrlD)
	requireShows(t, s.View(true), "Delete “Old notes", "no note came from it", "n keep")
	requireSize(t, s.View(true), 30, 8)
}

func TestSidebarDropsAnOlderListing(t *testing.T) {
	s := loadedSidebar(t, &fakeConversations{}, 30, 12)
	old := s.seq
	s.Reload()
	s, _ = s.Update(listMsg{seq: old, convs: sampleConversations()[:1]})
	if len(s.items) != 5 {
		t.Fatalf("an older listing replaced the list: %d items", len(s.items))
	}
}

func TestShortAgo(t *testing.T) {
	for _, tt := range []struct {
		ago  time.Duration
		want string
	}{{10 * time.Second, "now"}, {5 * time.Minute, "5m"}, {3 * time.Hour, "3h"}, {50 * time.Hour, "2d"}, {20 * 24 * time.Hour, "18 Feb"}} {
		if got := shortAgo(sidebarNow, sidebarNow.Add(-tt.ago)); got != tt.want {
			t.Errorf("shortAgo(-%v) = %q, want %q", tt.ago, got, tt.want)
		}
	}
	if got := shortAgo(sidebarNow, sidebarNow.AddDate(-1, 0, 0)); got != "2025" {
		t.Errorf("a year ago = %q", got)
	}
}

// A long list pages: pgdown and pgup move the choice by the rows shown.
func TestSidebarPages(t *testing.T) {
	st := styles.New(true)
	s := New(context.Background(), &st, DefaultSidebarKeyMap(), &fakeConversations{}, testUser, func() time.Time { return sidebarNow })
	s.SetSize(30, 12)
	s.Reload()
	var convs []memory.Conversation
	for i := range 200 {
		convs = append(convs, memory.Conversation{ID: fmt.Sprintf("c%03d", i), Title: fmt.Sprintf("Chat %d", i), Updated: sidebarNow})
	}
	s, _ = s.Update(listMsg{seq: s.seq, convs: convs})
	s.Focus()
	page := s.listRows()
	s, _ = sidebarKey(t, s, tea.KeyPressMsg{Code: tea.KeyPgDown}, tea.KeyPressMsg{Code: tea.KeyPgDown})
	if c, _ := s.Selected(); c.ID != fmt.Sprintf("c%03d", 2*page) {
		t.Fatalf("two pages down: %s, want c%03d (%d rows a page)", c.ID, 2*page, page)
	}
	s, _ = sidebarKey(t, s, tea.KeyPressMsg{Code: tea.KeyPgUp})
	if c, _ := s.Selected(); c.ID != fmt.Sprintf("c%03d", page) || !strings.Contains(s.View(true), c.Title) {
		t.Fatalf("a page up: %s", c.ID)
	}
}
