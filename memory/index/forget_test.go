package index

import (
	"context"
	"errors"
	"testing"

	"github.com/mneme-dev/mneme/memory"
)

// Forgetting a conversation takes its notes with it, from the store, the
// vectors and the keyword index; other notes stay.
func TestForgetConversationForgetsItsNotes(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	cats, cars := seed(t, s)
	ix := openIndex(t, s, t.TempDir(), &topicEmbedder{}, "topic")
	save := func(user, text string, src memory.NoteSource) memory.Note {
		t.Helper()
		n, err := ix.SaveNote(ctx, user, text, src)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	learnt := save("alice", "The kitten is called Luna.", memory.NoteSource{ConversationID: cats.ID, TurnNumber: 2, By: memory.SourceExtracted})
	saved := save("alice", "Alice buys kitten food at the corner shop.", memory.NoteSource{ConversationID: cats.ID, TurnNumber: 1})
	pending := save("alice", "The kitten sleeps on the sofa.", memory.NoteSource{ConversationID: cats.ID, TurnNumber: 1, By: memory.SourceExtracted, Pending: true})
	car := save("alice", "Alice's car is a kitten-grey Volvo.", memory.NoteSource{ConversationID: cars.ID, TurnNumber: 1})
	loose := save("alice", "Alice once had a kitten called Tom.", memory.NoteSource{})
	if err := ix.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if n, err := ix.ConversationNoteCount(ctx, "alice", cats.ID); err != nil || n != 3 {
		t.Fatalf("ConversationNoteCount = %d, %v; want 3", n, err)
	}
	if n, _ := ix.ConversationNoteCount(ctx, "bob", cats.ID); n != 0 {
		t.Fatalf("bob's count of alice's conversation = %d", n)
	}
	if n := rowsOf(t, s, `SELECT COUNT(*) FROM embeddings WHERE owner_id IN (?, ?, ?)`, learnt.ID, saved.ID, pending.ID); n == 0 {
		t.Fatal("the notes were not embedded")
	}

	for _, who := range []struct{ user, id string }{{"bob", cats.ID}, {"alice", cats.ID[:8]}, {"alice", "nope"}} {
		if _, err := ix.ForgetConversation(ctx, who.user, who.id); !errors.Is(err, memory.ErrNotFound) && !errors.Is(err, memory.ErrAmbiguous) {
			t.Fatalf("ForgetConversation(%s, %s) = %v, want ErrNotFound", who.user, who.id, err)
		}
	}
	if n, _ := ix.ConversationNoteCount(ctx, "alice", cats.ID); n != 3 {
		t.Fatalf("a refused forget changed notes: %d left", n)
	}

	n, err := ix.ForgetConversation(ctx, "alice", cats.ID)
	if err != nil || n != 3 {
		t.Fatalf("ForgetConversation = %d, %v; want 3", n, err)
	}
	if _, err := s.Conversation(ctx, "alice", cats.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("the conversation is still there: %v", err)
	}
	gone := []string{learnt.ID, saved.ID, pending.ID}
	if got, _ := s.NotesByID(ctx, "alice", gone); len(got) != 0 {
		t.Fatalf("forgotten notes still live: %+v", got)
	}
	if n := rowsOf(t, s, `SELECT COUNT(*) FROM embeddings WHERE owner_id IN (?, ?, ?)`, gone[0], gone[1], gone[2]); n != 0 {
		t.Fatalf("vectors of forgotten notes left: %d", n)
	}
	if n := rowsOf(t, s, `SELECT COUNT(*) FROM notes WHERE id IN (?, ?, ?) AND content != ''`, gone[0], gone[1], gone[2]); n != 0 {
		t.Fatalf("text of forgotten notes left: %d", n)
	}
	if n := rowsOf(t, s, `SELECT COUNT(*) FROM note_changes WHERE note_id IN (?, ?, ?)`, gone[0], gone[1], gone[2]); n != 0 {
		t.Fatalf("history of forgotten notes left (their old texts): %d rows", n)
	}
	if n := rowsOf(t, s, `SELECT COUNT(*) FROM note_changes WHERE note_id = ?`, car.ID); n == 0 {
		t.Fatal("another note's history was forgotten too")
	}
	kept, _ := s.NotesByID(ctx, "alice", []string{car.ID, loose.ID})
	if len(kept) != 2 {
		t.Fatalf("other notes = %+v, want both kept", kept)
	}
	// Search, by keywords and by meaning, finds none of them.
	for _, q := range []string{"kitten Luna", "kitten food corner shop", "kitten sleeps sofa", "feline"} {
		hits, err := ix.SearchNotes(ctx, NoteQuery{UserID: "alice", Text: q})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			for _, id := range gone {
				if h.ID == id {
					t.Errorf("search %q still finds forgotten note %q", q, h.Content)
				}
			}
		}
	}
	if hits, _ := ix.SearchNotes(ctx, NoteQuery{UserID: "alice", Text: "Volvo"}); len(hits) == 0 || hits[0].ID != car.ID {
		t.Errorf("search for a kept note = %+v", hits)
	}
	if n, err := ix.ForgetConversation(ctx, "alice", cars.ID); err != nil || n != 1 {
		t.Fatalf("forgetting the second conversation = %d, %v", n, err)
	}
}
