package tui

import (
	"context"
	"strings"
	"testing"

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
