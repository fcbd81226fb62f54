package tui

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// TestDeletedNoteLeavesTheStatusCount: deleting a note in the memory
// browser (d) takes it out of the status line's count at once, while the
// browser is still open; undo puts it back.
func TestDeletedNoteLeavesTheStatusCount(t *testing.T) {
	f := newMemoryFixture(t)
	cfg := config(f.store, newFakeRunner(f.store, "Hi."), readyProbe)
	cfg.Notes = f.ix
	cfg.MemoryStatus = func(ctx context.Context, user string) (MemoryStatus, error) {
		notes, err := f.store.ListNotes(ctx, user)
		return MemoryStatus{EmbedModel: "nomic-embed-text", Notes: len(notes)}, err
	}
	h := newHarness(t, cfg)
	status := func() string { // the status line, under the panel
		lines := strings.Split(h.screen(), "\n")
		return lines[len(lines)-2]
	}
	h.runUntil("the status line to count 2 notes", func() bool { return strings.Contains(status(), "· 2 notes") })
	h.send(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl})
	h.runUntilShown("Memory · 2 notes")
	h.send(keyRune('d'))
	h.runUntilShown("Press u to undo")
	h.drain()
	if s := status(); !strings.Contains(s, "· 1 note ·") {
		t.Errorf("after a delete, the status line says %q, want 1 note", s)
	}
	h.send(keyRune('u'))
	h.drain()
	if s := status(); !strings.Contains(s, "· 2 notes ·") {
		t.Errorf("after undo, the status line says %q, want 2 notes", s)
	}
}

// TestMemoryBrowserFollowsOtherProcesses: a note deleted in another mneme
// (mneme memory rm) leaves the open memory browser when the store reports
// a change, without closing and opening it again.
func TestMemoryBrowserFollowsOtherProcesses(t *testing.T) {
	f := newMemoryFixture(t)
	cfg := config(f.store, newFakeRunner(f.store, "Hi."), readyProbe)
	cfg.Notes = f.ix
	h := newHarness(t, cfg)
	h.send(tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl})
	h.runUntilShown("Memory · 2 notes")
	if _, err := f.store.DeleteNote(context.Background(), testUser, f.tea.ID); err != nil { // the other process
		t.Fatal(err)
	}
	h.send(storeChangedMsg{}) // as the store's change feed reports it
	h.runUntilShown("Memory · 1 note")
}

// TestKeywordRebuildProgressInStatus: while the keyword index is rebuilt
// (after a crash), the status line says how far it has come, follows it
// within seconds, and says nothing once it is over.
func TestKeywordRebuildProgressInStatus(t *testing.T) {
	store := openStore(t)
	var done, total atomic.Int32
	done.Store(44000)
	total.Store(100000)
	cfg := config(store, newFakeRunner(store, "Hi."), readyProbe)
	cfg.MemoryStatus = func(context.Context, string) (MemoryStatus, error) {
		return MemoryStatus{EmbedModel: "nomic-embed-text", Notes: 1, Reindexed: int(done.Load()), ReindexTotal: int(total.Load())}, nil
	}
	v := &virtualTimer{}
	m := New(cfg)
	m.tick = v.tick
	t.Cleanup(m.life.shutdown)
	h := &harness{t: t, m: m}
	h.queue = append(h.queue, m.Init())
	h.send(tea.WindowSizeMsg{Width: 120, Height: 30})
	v.advance(h, 0)
	if !h.shows("rebuilding the search index: 44,000 / 100,000 turns") {
		t.Fatalf("the status line does not show the rebuild:\n%s", h.screen())
	}
	done.Store(91000)
	v.advance(h, 5*time.Second)
	if !h.shows("rebuilding the search index: 91,000 / 100,000 turns") {
		t.Fatalf("the status line does not follow the rebuild within 5 s:\n%s", h.screen())
	}
	done.Store(0)
	total.Store(0)
	v.advance(h, 5*time.Second)
	if h.shows("rebuilding") {
		t.Fatalf("the status line still shows a rebuild that is over:\n%s", h.screen())
	}
}
