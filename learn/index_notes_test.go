package learn

import (
	"context"
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/ollama/ollama/api"
)

// TestAFactLearntMeanwhileIsNotAddedTwice: two mnemes that learn the same
// fact at once (the chat beside a script's ask) keep it once: the second
// finds, just before it writes, the note the first kept while its model
// decided, and changes nothing (it added a copy).
func TestAFactLearntMeanwhileIsNotAddedTwice(t *testing.T) {
	ctx := context.Background()
	s, ix := openIndex(t)
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

// TestAnUpdateIntoAnotherNotesTextChangesNothing: the model merges a fact
// into one note with the words another note already holds: the notes stay
// as they were (it made two notes of one text) and the change says why.
func TestAnUpdateIntoAnotherNotesTextChangesNothing(t *testing.T) {
	ctx := context.Background()
	s, ix := openIndex(t)
	for _, text := range []string{"Has a cat called Tom", "Tom is a Maine Coon"} {
		if _, err := ix.SaveNote(ctx, "alice", text, memory.NoteSource{}); err != nil {
			t.Fatal(err)
		}
	}
	srv := fakeollama.New(t)
	srv.SetDefault(func(req api.ChatRequest) fakeollama.Reply {
		// Note 1 takes the words of note 2, whichever the search put first.
		var in struct{ Existing []struct{ Text string } }
		if err := json.Unmarshal([]byte(req.Messages[len(req.Messages)-1].Content), &in); err != nil || len(in.Existing) != 2 {
			t.Errorf("the decision's request: %v, %+v", err, in)
			return jsonReply(map[string]any{"event": "NONE", "id": 0, "text": ""})
		}
		return jsonReply(map[string]any{"event": "UPDATE", "id": 1, "text": in.Existing[1].Text + "."})
	})
	changes, err := Consolidate(ctx, client(t, srv), Model{Name: fakeollama.DefaultChatModel}, IndexNotes{Index: ix}, "alice",
		[]Candidate{{Text: "Tom the cat is a Maine Coon", Confidence: 0.9}})
	if err != nil || len(changes) != 1 || changes[0].Event != EventNone || changes[0].Reason != "another note already says it" {
		t.Fatalf("changes %+v, %v", changes, err)
	}
	var texts []string
	all, err := s.ListNotes(ctx, "alice")
	for _, n := range all {
		texts = append(texts, n.Content)
	}
	if slices.Sort(texts); err != nil || !slices.Equal(texts, []string{"Has a cat called Tom", "Tom is a Maine Coon"}) {
		t.Fatalf("notes %q, %v", texts, err)
	}
}

// openIndex opens a store and its search index, closed with the test.
func openIndex(t *testing.T) (*memory.Store, *index.Index) {
	ctx := context.Background()
	s, err := memory.Open(ctx, filepath.Join(t.TempDir(), memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ix, err := index.OpenIndex(ctx, s, t.TempDir(), index.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return s, ix
}

// emptyNotes is IndexNotes as read before another mneme kept the fact:
// nothing similar yet.
type emptyNotes struct{ IndexNotes }

func (emptyNotes) Similar(context.Context, string, string, int) ([]Existing, error) { return nil, nil }
