package turnlock

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mneme-dev/mneme/agent"
)

type countingRunner struct{ runs int }

func (r *countingRunner) Run(context.Context, agent.Request, func(agent.Event)) (agent.Result, error) {
	r.runs++
	return agent.Result{Answer: "ran"}, nil
}

// The chat's prompt waits while another mneme answers in its conversation,
// and says so; stopped while it waits, nothing is sent or stored.
func TestTurnWaitsForTheConversationsLockAndStops(t *testing.T) {
	locks := New(t.TempDir())
	unlock, err := locks.Lock(context.Background(), "conv-1", nil) // the other mneme's turn
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var events []agent.Event
	r := &countingRunner{}
	res, err := locks.Run(ctx, r, agent.Request{ConversationID: "conv-1"}, func(e agent.Event) {
		events = append(events, e)
		if n, ok := e.(agent.NoticeEvent); ok && n.Text == WaitingNotice {
			cancel() // the user stops the waiting prompt
		}
	})
	if !errors.Is(err, agent.ErrNotSent) || r.runs != 0 {
		t.Fatalf("res %+v, err %v, runs %d", res, err, r.runs)
	}
	if len(events) != 2 {
		t.Fatalf("events %+v", events)
	}
	if last, ok := events[1].(agent.ErrorEvent); !ok || !errors.Is(last.Err, agent.ErrNotSent) {
		t.Fatalf("last event %+v, want an ErrorEvent: not sent", events[1])
	}
	// Another conversation does not wait; this one goes once the lock is free.
	if res, err := locks.Run(context.Background(), r, agent.Request{ConversationID: "conv-2"}, func(agent.Event) {}); err != nil || res.Answer != "ran" {
		t.Fatalf("another conversation: %+v %v", res, err)
	}
	unlock()
	if res, err := locks.Run(context.Background(), r, agent.Request{ConversationID: "conv-1"}, func(agent.Event) {}); err != nil || res.Answer != "ran" || r.runs != 2 {
		t.Fatalf("after the other turn: %+v %v", res, err)
	}
}

// A released lock leaves no file behind, and a turn waiting on it still
// gets it.
func TestTurnLocksLeaveNoFiles(t *testing.T) {
	dir := t.TempDir()
	locks := New(dir)
	unlock, err := locks.Lock(context.Background(), "conv-1", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error)
	go func() {
		next, err := locks.Lock(context.Background(), "conv-1", unlock)
		if err == nil {
			next()
		}
		got <- err
	}()
	if err := <-got; err != nil {
		t.Fatal(err)
	}
	if left, _ := os.ReadDir(filepath.Join(dir, "turns")); len(left) != 0 {
		t.Fatalf("lock files left: %v", left)
	}
}

// A deleted conversation's lock file that a killed process left behind is
// removed; one held now is left to its holder.
func TestForgetRemovesOnlyLeftLocks(t *testing.T) {
	dir := t.TempDir()
	locks := New(dir)
	unlock, err := locks.Lock(context.Background(), "held", nil)
	if err != nil {
		t.Fatal(err)
	}
	left := locks.path("left") // as kill -9 leaves it: the file, no lock
	if err := os.WriteFile(left, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	locks.Forget("left")
	locks.Forget("held")
	locks.Forget("never-locked")
	if _, err := os.Stat(left); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the left lock is still there: %v", err)
	}
	if _, err := os.Stat(locks.path("held")); err != nil {
		t.Fatalf("the held lock was removed: %v", err)
	}
	unlock()
	if entries, _ := os.ReadDir(filepath.Join(dir, "turns")); len(entries) != 0 {
		t.Fatalf("files left: %v", entries)
	}
}

// TestHeldSaysWhetherATurnIsUnderWay: a lock held is held; one released,
// one a killed process left (a file, no lock), or none, is not.
func TestHeldSaysWhetherATurnIsUnderWay(t *testing.T) {
	locks := New(t.TempDir())
	unlock, err := locks.Lock(context.Background(), "c1", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !locks.Held("c1") || locks.Held("c2") {
		t.Fatalf("held: c1 %v, c2 %v", locks.Held("c1"), locks.Held("c2"))
	}
	if err := os.WriteFile(locks.path("left"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	unlock()
	if locks.Held("c1") || locks.Held("left") {
		t.Fatal("a released or left lock counts as held")
	}
}
