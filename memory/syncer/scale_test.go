package syncer

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/syncserver"
	"github.com/mneme-dev/mneme/memory"
)

// TestSyncScale measures sync on 20,000 messages (500 conversations):
// first sync of each device, small push and pull, and a conflict merge.
// B must end up with every message, and both devices with the same ones.
// Run with MNEME_SYNC_SCALE=1 go test ./memory -run TestSyncScale -v.
func TestSyncScale(t *testing.T) {
	if os.Getenv("MNEME_SYNC_SCALE") == "" {
		t.Skip()
	}
	ctx := context.Background()
	srv := syncserver.New(t)
	a := newSyncDevice(t, "A", srv, "")
	const convs, per = 500, 40
	t0 := time.Now()
	err := a.store.Write(ctx, func(tx memory.Execer) error {
		tx.ExecContext(ctx, `INSERT INTO users(id, created_at) VALUES ('alice', 0)`)
		for c := 0; c < convs; c++ {
			cid := memory.NewID()
			if _, err := tx.ExecContext(ctx, `INSERT INTO conversations(id, user_id, title, created_at, updated_at) VALUES (?, 'alice', ?, 0, 0)`, cid, fmt.Sprintf("conv %d", c)); err != nil {
				return err
			}
			for m := 1; m <= per; m++ {
				role := "user"
				if m%2 == 0 {
					role = "assistant"
				}
				if _, err := tx.ExecContext(ctx, `INSERT INTO messages(id, conversation_id, user_id, seq, role, content, created_at) VALUES (?, ?, 'alice', ?, ?, ?, ?)`,
					memory.NewID(), cid, m, role, fmt.Sprintf("message %d of conversation %d about cats and cars and bread %d", m, c, m*c), int64(c*1000+m)); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("seeded %d messages in %s", convs*per, time.Since(t0))
	t0 = time.Now()
	a.drain()
	t.Logf("A indexed (turns, keywords, embeddings) in %s", time.Since(t0))
	rep := a.sync()
	t.Logf("A adopt: %s in %s; server frames %d", rep, rep.Duration, srv.Frames())
	fi, _ := os.Stat(a.store.Path() + "-wal")
	t.Logf("A WAL %d MiB", fi.Size()>>20)
	b := newSyncDevice(t, "B", srv, "")
	rep = b.sync()
	t.Logf("B first sync (download + index refresh): %s in %s", rep.Received, rep.Duration)
	if rep.Received.Conversations != convs || rep.Received.Messages != convs*per {
		t.Fatalf("B's first sync received %+v, want %d conversations and %d messages", rep.Received, convs, convs*per)
	}
	assertHolds(t, b, convs, convs*per)
	t0 = time.Now()
	res := b.searchTurns("conversation 417")
	t.Logf("B search %d results in %s", len(res), time.Since(t0))
	if len(res) == 0 {
		t.Fatal("B finds nothing for \"conversation 417\"")
	}
	// small push / pull on a big database
	chat(t, a.store, "alice", "New", "a new question about kittens", "an answer")
	a.drain()
	rep = a.sync()
	t.Logf("A small push: %s in %s", rep, rep.Duration)
	rep = b.sync()
	t.Logf("B small pull: %s in %s", rep, rep.Duration)
	if rep.Received.Conversations != 1 || rep.Received.Messages != 2 {
		t.Fatalf("B's small pull received %+v", rep.Received)
	}
	rep = b.sync()
	t.Logf("B no-op round: %s in %s", rep, rep.Duration)
	if rep.Pushed != 0 || !rep.Received.Empty() || rep.Merged {
		t.Fatalf("B's no-op round: %+v", rep)
	}
	// conflict with a few rows pending
	srv.Down()
	chat(t, a.store, "alice", "A offline", "from A", "ok")
	chat(t, b.store, "alice", "B offline", "from B", "ok")
	a.drain()
	b.drain()
	srv.Up()
	a.sync()
	rep = b.sync()
	t.Logf("B conflict merge on the big database: %s in %s", rep, rep.Duration)
	if !rep.Conflict {
		t.Fatalf("B's round after both wrote offline: %+v", rep)
	}
	a.sync()
	// The seed, "New", "A offline" and "B offline" (two messages each).
	for _, d := range []*syncDevice{a, b} {
		assertHolds(t, d, convs+3, convs*per+6)
	}
}

// assertHolds fails the test unless d's store holds exactly convs
// conversations and msgs messages of alice.
func assertHolds(t *testing.T, d *syncDevice, convs, msgs int) {
	t.Helper()
	ctx := context.Background()
	var c, m int
	if err := d.store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM conversations WHERE user_id = 'alice'`).Scan(&c); err != nil {
		t.Fatal(err)
	}
	if err := d.store.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM messages WHERE user_id = 'alice'`).Scan(&m); err != nil {
		t.Fatal(err)
	}
	if c != convs || m != msgs {
		t.Fatalf("%s holds %d conversations and %d messages, want %d and %d", d.name, c, m, convs, msgs)
	}
}
