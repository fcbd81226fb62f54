package index

import (
	"context"
	"errors"
	"testing"

	"github.com/mneme-dev/mneme/memory"
)

func TestRestoreNoteRevivesTheSameID(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), &topicEmbedder{}, "topics")
	conv := chat(t, s, "alice", "Pets", "remember my cat", "ok")

	n, err := ix.SaveNote(ctx, "alice", "My cat is called Tom", memory.NoteSource{ConversationID: conv.ID, TurnNumber: 1})
	if err != nil {
		t.Fatal(err)
	}
	gone, err := ix.DeleteNote(ctx, "alice", n.ID)
	if err != nil {
		t.Fatal(err)
	}
	if res := searchNotes(t, ix, "alice", "cat called Tom"); len(res) != 0 {
		t.Fatalf("deleted note still found: %+v", res)
	}

	back, err := ix.RestoreNote(ctx, "alice", gone)
	if err != nil {
		t.Fatal(err)
	}
	if back.ID != n.ID || back.Content != n.Content || back.ConversationID != conv.ID || back.TurnNumber != 1 ||
		!back.Created.Equal(n.Created) || back.Hash != n.Hash {
		t.Fatalf("restored %+v, want the note %+v back", back, n)
	}
	notes, err := ix.ListNotes(ctx, "alice")
	if err != nil || len(notes) != 1 || notes[0].ID != n.ID {
		t.Fatalf("list after restore: %+v, %v", notes, err)
	}
	// Indexed again at once, by words and by meaning.
	if res := searchNotes(t, ix, "alice", "cat called Tom"); len(res) != 1 || res[0].ID != n.ID || res[0].MatchedBy != MatchBoth {
		t.Fatalf("restored note not searchable: %+v", res)
	}

	if _, err := ix.RestoreNote(ctx, "alice", gone); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("restoring a live note: %v, want ErrInvalid", err)
	}
	if _, err := ix.DeleteNote(ctx, "alice", n.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.RestoreNote(ctx, "bob", gone); !errors.Is(err, memory.ErrNoteNotFound) {
		t.Fatalf("restoring another user's note: %v, want ErrNoteNotFound", err)
	}
	if _, err := ix.RestoreNote(ctx, "alice", memory.Note{ID: n.ID}); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("restoring with no text: %v, want ErrInvalid", err)
	}
}
