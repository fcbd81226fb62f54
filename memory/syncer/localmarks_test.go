package syncer

import (
	"context"
	"os"
	"testing"

	"github.com/mneme-dev/mneme/internal/syncserver"
	"github.com/mneme-dev/mneme/memory"
)

// TestRebuildingTheIndexSyncsNothing: the keyword index's bookkeeping is
// local state. A replica whose keyword index is rebuilt writes no sync log
// row and not a byte to the synced database files (so the next round has
// nothing to push), and search still finds everything afterwards.
func TestRebuildingTheIndexSyncsNothing(t *testing.T) {
	ctx := context.Background()
	srv := syncserver.New(t)
	a := newSyncDevice(t, "A", srv, "")
	chat(t, a.store, "alice", "Pets", "My kitten keeps scratching the sofa", "Try a scratching post.")
	if _, err := a.ix.SaveNote(ctx, "alice", "The sofa is green", memory.NoteSource{}); err != nil {
		t.Fatal(err)
	}
	a.drain()
	if rep := a.sync(); !rep.Merged || !a.store.IsReplica() {
		t.Fatalf("A's first sync did not make a replica: %+v", rep)
	}
	a.drain()
	a.sync()
	logRows := func() int {
		var n int
		if err := a.store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM sync_log`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	rows, mark := logRows(), a.store.ChangeMark()
	if err := a.ix.Reindex(ctx); err != nil {
		t.Fatal(err)
	}
	if n := logRows(); n != rows {
		t.Fatalf("rebuilding the index wrote %d sync log rows", n-rows)
	}
	if m := a.store.ChangeMark(); m != mark {
		t.Fatalf("rebuilding the index changed the synced database files: %s -> %s", mark, m)
	}
	if _, err := os.Stat(memory.LocalPath(a.store.Path())); err != nil {
		t.Fatalf("no local state beside the database: %v", err)
	}
	if res := a.searchTurns("scratching"); !hasTitle(res, "Pets") {
		t.Fatalf("search after the rebuild: %+v", res)
	}
	if res := a.searchNotes("green sofa"); !foundByWords(res, "green") {
		t.Fatalf("note search after the rebuild: %+v", res)
	}
	if rep := a.sync(); rep.Pushed != 0 || !rep.Received.Empty() {
		t.Fatalf("the round after the rebuild moved rows: %+v", rep)
	}
}
