package syncer

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/syncserver"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

// waitFor polls cond (the background rounds run on their own clock).
func waitFor(t *testing.T, what string, cond func() bool, devices ...*syncDevice) time.Duration {
	t.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > 20*time.Second {
			for _, d := range devices {
				t.Logf("%s: %+v\nlog:\n%s", d.name, d.sy.Status(context.Background()), d.logs.String())
			}
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond) // polling, not synchronisation
	}
	return time.Since(start)
}

// TestSyncRunFollowsChanges: the background loop syncs at start, pushes
// local changes after the debounce, and pulls on its interval, keeping the
// index searchable; its errors go to the status, not to the caller.
func TestSyncRunFollowsChanges(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv := syncserver.New(t)
	a := newSyncDevice(t, "A", srv, "")
	b := newSyncDevice(t, "B", srv, "")
	for _, d := range []*syncDevice{a, b} {
		d.sy.cfg.Debounce = 50 * time.Millisecond
		d.sy.cfg.Interval = 300 * time.Millisecond
		go d.ix.Run(ctx)
		go d.sy.Run(ctx)
	}
	waitFor(t, "both replicas", func() bool { return a.store.IsReplica() && b.store.IsReplica() })

	c := chat(t, a.store, "alice", "Garden", "When should I plant tomatoes?", "After the last frost.")
	a.ix.Notify(memory.ConversationRef{UserID: "alice", ConversationID: c.ID})
	took := waitFor(t, "A's push", func() bool {
		return a.sy.Status(ctx).State == SyncSynced && srv.Frames() > 0 && a.sy.Status(ctx).Pending == 0
	})
	t.Logf("A pushed %s after the change", took)
	took = waitFor(t, "B finds A's turn", func() bool {
		res, err := b.ix.Search(ctx, index.SearchQuery{UserID: "alice", Text: "tomatoes"})
		return err == nil && len(res) > 0 && res[0].Title == "Garden"
	})
	t.Logf("B found it %s later", took)
	waitFor(t, "B's label synced", func() bool { return b.sy.Label() == "synced" })

	srv.Down()
	chat(t, b.store, "alice", "Offline", "written while the server is down", "kept")
	waitFor(t, "B offline", func() bool { return b.sy.Label() == "offline" }, a, b)
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "B back in sync", func() bool { return b.sy.Label() == "synced" }, a, b)

	// Both write at once, again and again: conflicts are merged in the
	// background, nothing is lost, and the rounds settle (no loop).
	for i := 0; i < 3; i++ {
		chat(t, a.store, "alice", fmt.Sprintf("A %d", i), "from A", "ok")
		chat(t, b.store, "alice", fmt.Sprintf("B %d", i), "from B", "ok")
	}
	titles := func(d *syncDevice) string { return strings.Join(d.titles(), "|") }
	took = waitFor(t, "both to hold the union", func() bool {
		return titles(a) == titles(b) && len(a.titles()) == 8 && a.sy.Label() == "synced" && b.sy.Label() == "synced"
	}, a, b)
	t.Logf("settled %s after concurrent writes, %d conflicts merged", took, srv.Conflicts())
	// Without writes the rounds go quiet: a while of several intervals
	// passes with no new conflict.
	took = waitFor(t, "no more conflicts", func() bool {
		before := srv.Conflicts()
		time.Sleep(1500 * time.Millisecond)
		return srv.Conflicts() == before
	})
	t.Logf("quiet after %s more, %d conflicts in all", took, srv.Conflicts())
}
