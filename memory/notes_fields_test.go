package memory

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"testing"
)

func TestNoteFields(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	conv := chat(t, s, "alice", "cats", "I have a cat called Tom", "Nice!")
	typed, err := s.SaveNote(ctx, "alice", "Likes tea", NoteSource{Tags: []string{" Drinks ", "drinks", "Morning Tea"}})
	if err != nil {
		t.Fatal(err)
	}
	model, err := s.SaveNote(ctx, "alice", "Lives in Lyon", NoteSource{ConversationID: conv.ID, TurnNumber: 1, By: SourceModel, Confidence: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	learnt, err := s.SaveNote(ctx, "alice", "Has a cat called Tom", NoteSource{ConversationID: conv.ID, TurnNumber: 1,
		By: SourceExtracted, Confidence: 0.8, Tags: []string{"pets"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		id, source string
		conf       float64
		tags       []string
	}{
		{typed.ID, SourceUser, 1, []string{"drinks", "morning-tea"}},
		{model.ID, SourceModel, 1, []string{}},
		{learnt.ID, SourceExtracted, 0.8, []string{"pets"}},
	} {
		got, err := s.Note(ctx, "alice", c.id)
		if err != nil || got.Source != c.source || got.Confidence != c.conf || !slices.Equal(got.Tags, c.tags) {
			t.Errorf("note %s = %+v, %v; want source %s confidence %v tags %v", c.id, got, err, c.source, c.conf, c.tags)
		}
	}
	if !learnt.HasTag("Pets") || learnt.HasTag("cats") {
		t.Error("HasTag")
	}
	for _, bad := range []NoteSource{{By: "robot"}, {By: SourceExtracted, Confidence: 1.5}, {Tags: []string{string(make([]byte, 40))}}} {
		if _, err := s.SaveNote(ctx, "alice", "x", bad); !errors.Is(err, ErrInvalid) {
			t.Errorf("SaveNote(%+v) = %v, want ErrInvalid", bad, err)
		}
	}
	// An update keeps the fields; a delete and restore brings them back.
	up, err := s.UpdateNote(ctx, "alice", learnt.ID, "Has a cat called Tom, a tabby")
	if err != nil {
		t.Fatal(err)
	}
	if up.Source != SourceExtracted || up.Confidence != 0.8 || !slices.Equal(up.Tags, []string{"pets"}) {
		t.Fatalf("updated %+v", up)
	}
	gone, err := s.DeleteNote(ctx, "alice", learnt.ID)
	if err != nil {
		t.Fatal(err)
	}
	back, err := s.RestoreNote(ctx, "alice", gone)
	if err != nil || back.Source != SourceExtracted || back.Confidence != 0.8 || !slices.Equal(back.Tags, []string{"pets"}) {
		t.Fatalf("restored %+v %v", back, err)
	}
}

// TestOldNotesGetASource opens a database made before notes had a source:
// notes saved in a conversation came from the model's tool, the others
// from the user.
func TestOldNotesGetASource(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), DBFileName)
	all := migrations
	// Without the notes' later migrations (6-9); versions apply in any
	// order, and messages are written with their own later columns (10).
	migrations = slices.DeleteFunc(slices.Clone(all), func(m migration) bool { return m.Version >= 6 && m.Version <= 9 })
	s, err := Open(ctx, path)
	if err != nil {
		migrations = all
		t.Fatal(err)
	}
	conv := chat(t, s, "alice", "cats", "My cat is Tom", "Noted")
	for _, q := range []struct {
		id   string
		conv any
	}{{"note-typed", nil}, {"note-tool", conv.ID}} {
		if _, err := s.db.ExecContext(ctx, `INSERT INTO notes (id, user_id, content, conversation_id, turn_number, created_at, updated_at, hash)
			VALUES (?, 'alice', 'text of '||?, ?, 1, 1, 1, 'h')`, q.id, q.id, q.conv); err != nil {
			migrations = all
			t.Fatal(err)
		}
	}
	before, err := s.MaxLogSeq(ctx)
	s.Close()
	migrations = all
	if err != nil {
		t.Fatal(err)
	}

	s, err = Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for id, want := range map[string]string{"note-typed": SourceUser, "note-tool": SourceModel} {
		n, err := s.Note(ctx, "alice", id)
		if err != nil || n.Source != want || n.Confidence != 1 || len(n.Tags) != 0 || n.Tags == nil {
			t.Errorf("%s = %+v, %v; want source %s, confidence 1, no tags", id, n, err, want)
		}
	}
	// Deriving the source wrote nothing for sync to carry.
	entries, err := s.LogEntries(ctx, before)
	if err != nil || len(entries) != 0 {
		t.Errorf("the migration logged %+v, %v", entries, err)
	}
}

// A tag carrying an escape sequence loses the whole sequence, as note text
// does, not only its ESC byte.
func TestTagsLoseWholeEscapeSequences(t *testing.T) {
	tags, err := CheckTags([]string{"t\x1b[1mag", "\u202ework\x1b]0;title\x07"})
	if err != nil || !slices.Equal(tags, []string{"tag", "work"}) {
		t.Fatalf("tags %q, %v", tags, err)
	}
}
