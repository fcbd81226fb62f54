package index

import (
	"context"
	"errors"
	"testing"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/keyword"
)

// TestReindexBuildsBesideTheIndexInUse: `mneme reindex` builds the new
// keyword index while the one in use answers every process; Ctrl+C during
// the build leaves that one as it was (nothing to index again), and a
// finished rebuild finds every turn, note and passage, with nothing left
// to do.
func TestReindexBuildsBesideTheIndexInUse(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	seed(t, s)
	kwDir := t.TempDir()
	if _, err := openIndex(t, s, kwDir, nil, "").SaveNote(ctx, "alice", "The sofa is green", memory.NoteSource{}); err != nil {
		t.Fatal(err)
	}
	other := openIndex(t, s, kwDir, nil, "") // another process's handle
	if err := other.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	addDoc(t, other, "alice", "/home/alice/boiler.md", "", "# Boiler\n\nBleed the radiators every autumn.")

	// The build is stopped after its turns: meanwhile the other process
	// still finds what the new index does not hold yet.
	stop, cancel := context.WithCancel(ctx)
	defer cancel()
	var during []SearchResult
	var noteHits []NoteResult
	reindexer := openIndexWith(t, s, kwDir, IndexOptions{Progress: func(done, total int) {
		during = search(t, other, "alice", "heat shield")
		noteHits, _ = other.SearchNotes(ctx, NoteQuery{UserID: "alice", Text: "green sofa"})
		cancel()
	}})
	if err := reindexer.Reindex(stop); !errors.Is(err, context.Canceled) {
		t.Fatalf("a cancelled reindex: %v", err)
	}
	if len(during) != 1 || len(noteHits) != 1 {
		t.Fatalf("during the build: turns %+v, notes %+v", during, noteHits)
	}
	if n, _ := s.CountTurnsNeedingKeywordIndex(ctx); n != 0 {
		t.Fatalf("a cancelled reindex left %d turns to index again", n)
	}
	if res := search(t, other, "alice", "scratching sofa"); len(res) == 0 {
		t.Fatal("after a cancelled reindex the index lost a turn")
	}

	// A conversation and a note deleted by another process while the
	// new index is built are not in it: the deletes reached the old one.
	doomed := chat(t, s, "alice", "Doomed", "The okapi ate my homework", "Okapis eat leaves.")
	gone, err := other.SaveNote(ctx, "alice", "Collects okapi stamps", memory.NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	if err := other.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	var deleteErr error
	reindexer = openIndexWith(t, s, kwDir, IndexOptions{Progress: func(done, total int) {
		deleteErr = errors.Join(other.DeleteConversation(ctx, "alice", doomed.ID), func() error {
			_, err := other.DeleteNote(ctx, "alice", gone.ID)
			return err
		}())
	}})
	if err := reindexer.Reindex(ctx); err != nil || deleteErr != nil {
		t.Fatal(err, deleteErr)
	}
	if hits, err := reindexer.kw.Search(ctx, keyword.Query{UserID: "alice", Text: "okapi"}); err != nil || len(hits) != 0 {
		t.Fatalf("what was deleted during the rebuild is in the new index: %+v, %v", hits, err)
	}
	if n, _ := s.CountTurnsNeedingKeywordIndex(ctx); n != 0 {
		t.Fatalf("after the rebuild %d turns wait to be indexed", n)
	}
	for _, ix := range []*Index{reindexer, other} {
		if res := search(t, ix, "alice", "heat shield"); len(res) != 1 {
			t.Fatalf("turn after the rebuild: %+v", res)
		}
		if res, _ := ix.SearchNotes(ctx, NoteQuery{UserID: "alice", Text: "green sofa"}); len(res) != 1 {
			t.Fatalf("note after the rebuild: %+v", res)
		}
		if res := searchDocs(t, ix, DocQuery{UserID: "alice", Text: "radiators"}); len(res) != 1 {
			t.Fatalf("passage after the rebuild: %+v", res)
		}
	}
	if res := search(t, reindexer, "bob", "sourdough"); len(res) != 1 {
		t.Fatalf("another user's turn after the rebuild: %+v", res)
	}
}

func openIndexWith(t *testing.T, s *memory.Store, dir string, opts IndexOptions) *Index {
	t.Helper()
	ix, err := OpenIndex(context.Background(), s, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}
