package learn

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

// TestAFactLearntMeanwhileIsNotAddedTwice: two mnemes that learn the same
// fact at once (the chat beside a script's ask) keep it once: the second
// finds, just before it writes, the note the first kept while its model
// decided, and changes nothing (it added a copy).
func TestAFactLearntMeanwhileIsNotAddedTwice(t *testing.T) {
	ctx := context.Background()
	s, err := memory.Open(ctx, filepath.Join(t.TempDir(), memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ix, err := index.OpenIndex(ctx, s, t.TempDir(), index.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	notes := IndexNotes{Index: ix}
	srv := fakeollama.New(t) // never asked: the candidate resembles no note when read
	seen := emptyNotes{notes}
	first, err := ix.SaveNote(ctx, "alice", "Has a cat called Tom.", memory.NoteSource{By: memory.SourceExtracted, Confidence: 0.9})
	if err != nil {
		t.Fatal(err)
	}
	changes, err := Consolidate(ctx, client(t, srv), Model{Name: fakeollama.DefaultChatModel}, seen, "alice",
		[]Candidate{{Text: "has a cat called Tom", Confidence: 0.9, Kind: KindFact}})
	if err != nil || len(changes) != 1 || changes[0].Event != EventNone || changes[0].NoteID != first.ID {
		t.Fatalf("changes %+v, %v", changes, err)
	}
	if all, err := s.ListNotes(ctx, "alice"); err != nil || len(all) != 1 {
		t.Fatalf("notes %+v, %v", all, err)
	}
}

// emptyNotes is IndexNotes as read before another mneme kept the fact:
// nothing similar yet.
type emptyNotes struct{ IndexNotes }

func (emptyNotes) Similar(context.Context, string, string, int) ([]Existing, error) { return nil, nil }
