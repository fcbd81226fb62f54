package index

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A catch-up that found nothing to do lets the next one skip its reading
// (dbfiles.Clean), but never past a message another process stored and
// did not index (it crashed), nor past a turn whose keyword mark went.
func TestSyncSkipsOnlyWhileNothingChanged(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openStoreIn(t, dir)
	chat(t, s, "alice", "Trip", "We take the tram up to Alfama", "Lovely, go early.")
	sync := func(ix *Index) {
		t.Helper()
		if err := ix.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	ix, err := OpenIndex(ctx, s, dir, IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	sync(ix) // indexes the turn: not clean
	if _, err := os.Stat(filepath.Join(dir, "keyword.clean")); err == nil {
		t.Fatal("a catch-up that wrote recorded a clean state")
	}
	sync(ix) // nothing to do: records
	if _, err := os.Stat(filepath.Join(dir, "keyword.clean")); err != nil {
		t.Fatalf("a catch-up that found nothing to do recorded nothing: %v", err)
	}
	if len(search(t, ix, "alice", "tram")) != 1 {
		t.Fatal("the turn is not found")
	}

	// Another process stores a turn and exits without indexing it.
	other := openStoreIn(t, dir)
	chat(t, other, "alice", "Dinner", "The sardines at the harbour", "Book a table.")
	other.Close()
	sync(ix)
	if got := search(t, ix, "alice", "sardines"); len(got) != 1 {
		t.Fatalf("a turn another process stored was not caught up: %+v", got)
	}

	// A fresh process (a new index on the same files) skips, and still finds both.
	sync(ix)
	ix2, err := OpenIndex(ctx, s, dir, IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix2.Close()
	state := ix2.clean.State()
	if !ix2.clean.Matches(state) {
		t.Fatal("the files changed though nothing was written")
	}
	sync(ix2)
	if len(search(t, ix2, "alice", "tram")) != 1 || len(search(t, ix2, "alice", "sardines")) != 1 {
		t.Fatal("turns lost")
	}

	// Keyword marks forgotten (the local state changed): the turn is indexed again.
	if err := s.ResetKeywordIndexed(ctx); err != nil {
		t.Fatal(err)
	}
	if ix2.clean.Matches(ix2.clean.State()) {
		t.Fatal("a change to the local state kept the recorded state")
	}
	sync(ix2)
	if n := rowsOf(t, s, `SELECT COUNT(*) FROM local.keyword_marks`); n != 2 {
		t.Fatalf("%d keyword marks after the catch-up, want 2", n)
	}
}
