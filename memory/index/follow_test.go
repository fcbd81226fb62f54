package index

import (
	"context"
	"testing"

	"github.com/mneme-dev/mneme/memory"
)

// While another process imports (a Follower holds the bulk marker), a
// search in this one leaves the turns the import has not indexed yet to
// it, and says so, instead of indexing them itself batch after batch;
// once the import is over, the next Sync indexes what is left.
func TestSyncLeavesTurnsToAnotherProcessBulkWork(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	dir := t.TempDir()
	importer := openIndex(t, s, dir, nil, "")
	if err := importer.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	follow := importer.Follow(ctx)
	stored := chat(t, s, "alice", "Imported", "The engine makes a rattling noise", "Check the heat shield.")

	other := openIndex(t, s, dir, nil, "") // the second terminal's search
	if err := other.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if !other.BehindBulk() {
		t.Fatal("a Sync beside an import does not say it left turns to it")
	}
	if res := search(t, other, "alice", "rattling engine"); len(res) != 0 {
		t.Fatalf("the search indexed the import's turns itself: %+v", res)
	}

	follow.Batch([]memory.ConversationRef{{UserID: "alice", ConversationID: stored.ID}})
	follow.Stop()
	if err := other.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if other.BehindBulk() {
		t.Fatal("still behind once the import is over")
	}
	if res := search(t, other, "alice", "rattling engine"); len(res) == 0 || res[0].ConversationID != stored.ID {
		t.Fatalf("after the import: %+v", res)
	}
}
