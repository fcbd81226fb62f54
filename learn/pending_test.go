package learn

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/memory"
)

// TestPendingClaims: a pending turn is claimed by one run until its claim
// runs out or is given back, and not at all once learnt from.
func TestPendingClaims(t *testing.T) {
	ctx := context.Background()
	s, err := memory.Open(ctx, filepath.Join(t.TempDir(), memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	p := NewPending(s)
	claim := func(id string, lease time.Duration) bool {
		t.Helper()
		ok, err := p.Claim(ctx, id, lease)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if claim("t1", time.Hour) {
		t.Fatal("claimed a turn that waits for nothing")
	}
	if err := p.Add(ctx, "t1", "t2"); err != nil {
		t.Fatal(err)
	}
	if !claim("t1", time.Hour) || claim("t1", time.Hour) {
		t.Fatal("a pending turn is claimed once")
	}
	if err := p.Release(ctx, "t1"); err != nil {
		t.Fatal(err)
	}
	if !claim("t1", time.Hour) {
		t.Fatal("a claim given back is not claimed again")
	}
	if !claim("t2", -time.Second) || !claim("t2", time.Hour) {
		t.Fatal("a claim that ran out is not claimed again")
	}
	if err := p.Done(ctx, "t2"); err != nil {
		t.Fatal(err)
	}
	if pending, err := p.Of(ctx, []string{"t1", "t2"}); err != nil || len(pending) != 1 || !pending["t1"] || claim("t2", -time.Second) {
		t.Fatalf("after t2 was learnt from: pending %v (%v)", pending, err)
	}
}
