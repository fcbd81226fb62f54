package syncer

import (
	"context"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/syncserver"
	"github.com/mneme-dev/mneme/memory"
)

// TestSyncLostReplyIsNotCalledBothDevices: when only this device wrote and
// the server's answer to its push was lost, the next round's report does
// not claim that two devices wrote while apart, and nothing is lost.
func TestSyncLostReplyIsNotCalledBothDevices(t *testing.T) {
	ctx := context.Background()
	srv := syncserver.New(t)
	a := newSyncDevice(t, "A", srv, "")
	chat(t, a.store, "alice", "Pets", "My kitten keeps scratching the sofa", "Try a scratching post.")
	a.drain()
	a.sync()

	if _, err := a.ix.SaveNote(ctx, "alice", "Alice's cat is called Tom", memory.NoteSource{}); err != nil {
		t.Fatal(err)
	}
	srv.LoseNextReply()
	rep, err := a.sy.SyncNow(ctx)
	t.Logf("round with the lost reply: %v, %v", rep, err)
	if _, err := a.ix.SaveNote(ctx, "alice", "Alice drinks green tea", memory.NoteSource{}); err != nil {
		t.Fatal(err)
	}
	var reports []string
	for range 3 {
		reports = append(reports, a.sync().String())
	}
	for _, r := range reports {
		if strings.Contains(r, "both devices") {
			t.Errorf("a round after a lost reply says %q, but only this device wrote", r)
		}
	}
	b := newSyncDevice(t, "B", srv, "")
	b.sync()
	if got := strings.Join(b.notes(), "|"); !strings.Contains(got, "called Tom") || !strings.Contains(got, "green tea") {
		t.Errorf("another device sees notes %q, want both", got)
	}
}
