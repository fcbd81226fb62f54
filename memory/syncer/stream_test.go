package syncer

import (
	"context"
	"testing"

	"github.com/mneme-dev/mneme/internal/syncserver"
	"github.com/mneme-dev/mneme/memory"
)

// An answer pushed while it streamed (interrupted) and completed offline
// reaches the other device complete, even when the sync conflicts.
func TestSyncCompletesAnAnswerPushedWhileStreaming(t *testing.T) {
	ctx := context.Background()
	srv := syncserver.New(t)
	a := newSyncDevice(t, "A", srv, "")
	b := newSyncDevice(t, "B", srv, "")
	c := chat(t, b.store, "alice", "Story", "Tell me a story")
	live, err := b.store.AppendMessage(ctx, "alice", memory.Message{ConversationID: c.ID, Role: memory.RoleAssistant, Content: "Once upon", Status: memory.StatusInterrupted})
	if err != nil {
		t.Fatal(err)
	}
	b.sync()
	a.sync()

	srv.Down()
	chat(t, a.store, "alice", "Only on A", "My kitten chases the tram", "Cats love moving things.")
	live.Content, live.Status = "Once upon a time there was a fox.", memory.StatusComplete
	if err := b.store.UpdateMessage(ctx, "alice", live); err != nil {
		t.Fatal(err)
	}
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	a.sync()
	if rep := b.sync(); !rep.Conflict {
		t.Fatalf("B's sync after both wrote: %+v", rep)
	}
	a.sync()
	for _, d := range []*syncDevice{a, b} {
		msgs, err := d.store.Messages(ctx, "alice", c.ID)
		if err != nil {
			t.Fatal(err)
		}
		if len(msgs) != 2 || msgs[1].Content != live.Content || msgs[1].Status != memory.StatusComplete {
			t.Errorf("%s has %+v", d.name, msgs)
		}
	}
}
