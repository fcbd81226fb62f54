package index

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/history"
)

// An edit, a delete and a model's change are recorded with who made them,
// and undo walks them back: each undo is found by search at once.
func TestHistoryAndUndo(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), &topicEmbedder{}, "topics")

	n, err := ix.SaveNote(ctx, "alice", "My cat is called Tom", memory.NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.UpdateNote(memory.ChangedBy(ctx, memory.ByModel), "alice", n.ID, "My cat is called Felix"); err != nil {
		t.Fatal(err)
	}
	// The same text again, or the status it has: nothing changes, so
	// nothing is recorded (an undo would otherwise undo nothing).
	if _, err := ix.UpdateNote(ctx, "alice", n.ID, "My cat is called Felix"); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.SetNoteStatus(ctx, "alice", n.ID, memory.NoteActive); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.DeleteNote(ctx, "alice", n.ID); err != nil {
		t.Fatal(err)
	}
	hist, err := ix.NoteHistory(ctx, "alice", n.ID[:8])
	if err != nil {
		t.Fatal(err)
	}
	type row struct{ op, by, before, after string }
	var got []row
	for _, c := range hist {
		got = append(got, row{c.Op, c.By, c.BeforeText, c.AfterText})
	}
	want := []row{
		{memory.ChangeDelete, memory.ByUser, "My cat is called Felix", ""},
		{memory.ChangeUpdate, memory.ByModel, "My cat is called Tom", "My cat is called Felix"},
		{memory.ChangeCreate, memory.ByUser, "", "My cat is called Tom"},
	}
	if len(got) != len(want) {
		t.Fatalf("history %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("history[%d] = %+v, want %+v (all: %+v)", i, got[i], want[i], got)
		}
	}

	// Undo the delete: the note is back, found by search.
	c, back, err := ix.Undo(ctx, "alice", "", "")
	if err != nil || c.Op != memory.ChangeDelete || back.Content != "My cat is called Felix" {
		t.Fatalf("undo delete: %+v %+v %v", c, back, err)
	}
	if res := searchNotes(t, ix, "alice", "cat called Felix"); len(res) != 1 || res[0].ID != n.ID {
		t.Fatalf("restored note not found: %+v", res)
	}
	// Undo the model's edit: the old text is back, and searchable.
	c, back, err = ix.Undo(ctx, "alice", "", n.ID)
	if err != nil || c.Op != memory.ChangeUpdate || back.Content != "My cat is called Tom" {
		t.Fatalf("undo update: %+v %+v %v", c, back, err)
	}
	if res := searchNotes(t, ix, "alice", "Tom"); len(res) != 1 {
		t.Fatalf("old text not found: %+v", res)
	}
	// A change that was undone cannot be undone twice.
	if _, _, err := ix.Undo(ctx, "alice", c.ID, ""); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("second undo of %s: %v, want ErrInvalid", c.ID, err)
	}
	// The undos are in the history, by the user, naming what they undid.
	hist, _ = ix.NoteHistory(ctx, "alice", n.ID)
	if len(hist) != 5 || hist[0].Undoes != c.ID || hist[0].By != memory.ByUser || hist[1].Op != memory.ChangeRestore {
		t.Fatalf("history after undos: %+v", hist)
	}
	// Undo the create: the note is gone; then nothing is left.
	if c, _, err = ix.Undo(ctx, "alice", "", ""); err != nil || c.Op != memory.ChangeCreate {
		t.Fatalf("undo create: %+v %v", c, err)
	}
	if res := searchNotes(t, ix, "alice", "Tom"); len(res) != 0 {
		t.Fatalf("undone create still found: %+v", res)
	}
	if _, _, err := ix.Undo(ctx, "alice", "", ""); !errors.Is(err, history.ErrNothingToUndo) {
		t.Fatalf("undo with nothing left: %v", err)
	}
}

// An older change is not undone over a later one.
func TestUndoRefusesAStaleChange(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), &topicEmbedder{}, "topics")
	n, _ := ix.SaveNote(ctx, "alice", "one", memory.NoteSource{})
	if _, err := ix.UpdateNote(ctx, "alice", n.ID, "two"); err != nil {
		t.Fatal(err)
	}
	first, _ := ix.NoteHistory(ctx, "alice", n.ID)
	if _, err := ix.UpdateNote(ctx, "alice", n.ID, "three"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ix.Undo(ctx, "alice", first[0].ID, ""); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("undo of a change made stale: %v", err)
	}
	if got, _ := s.Note(ctx, "alice", n.ID); got.Content != "three" {
		t.Fatalf("note changed to %q", got.Content)
	}
}

// TestUndoingADeleteKeepsTheTags: a deleted note brought back by undo has
// its tags again; forgetting a note clears them with its history. Tags
// lose escapes and bidi controls when saved.
func TestUndoingADeleteKeepsTheTags(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), nil, "")
	n, err := ix.SaveNote(ctx, "alice", "Works as a tram driver", memory.NoteSource{Tags: []string{"Work", "x\x1b[31my\u202e"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"work", "xy"}; !slices.Equal(n.Tags, want) {
		t.Fatalf("tags saved as %q, want %q", n.Tags, want)
	}
	if _, err := ix.DeleteNote(ctx, "alice", n.ID); err != nil {
		t.Fatal(err)
	}
	if _, back, err := ix.Undo(ctx, "alice", "", n.ID); err != nil || !slices.Equal(back.Tags, n.Tags) {
		t.Fatalf("after undo: %+v, %v; want tags %q", back, err, n.Tags)
	}
	if _, err := ix.DeleteNote(ctx, "alice", n.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.ForgetHistory(ctx, "alice", []string{n.ID}); err != nil {
		t.Fatal(err)
	}
	if k := rowsOf(t, s, `SELECT COUNT(*) FROM notes WHERE id = ? AND tags != '[]'`, n.ID); k != 0 {
		t.Fatal("a forgotten note kept its tags")
	}
}

// TestHistoryFromAnotherDeviceIsShownSafely: a change row that arrived by
// sync with escapes in its words is read with "unknown" in their place.
func TestHistoryFromAnotherDeviceIsShownSafely(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), nil, "")
	n, err := ix.SaveNote(ctx, "alice", "Likes tea", memory.NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.DB().ExecContext(ctx, `UPDATE note_changes SET op = ?, changed_by = ? WHERE note_id = ?`,
		"create\x1b[2J", "model\u202e", n.ID); err != nil {
		t.Fatal(err)
	}
	hist, err := ix.NoteHistory(ctx, "alice", n.ID)
	if err != nil || len(hist) != 1 || hist[0].Op != "unknown" || hist[0].By != "unknown" {
		t.Fatalf("history %+v, %v", hist, err)
	}
}
