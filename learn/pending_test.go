package learn

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

// TestPendingClaims: a pending turn is claimed by one run until its claim
// runs out or is given back, and not at all once learnt from.
func TestPendingClaims(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
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

// TestImportedTurnsNewAndLeft: the turns an import stored are new; those an
// earlier run left pending come again, not new (import --extract adds only
// new ones to the pending turns: one another run learnt from meanwhile
// would come back).
func TestImportedTurnsNewAndLeft(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	file := `{"conversation":"c","role":"user","content":"I keep bees."}
{"conversation":"c","role":"assistant","content":"Lovely."}
{"conversation":"c","role":"user","content":"And two goats."}
{"conversation":"c","role":"assistant","content":"Busy farm."}
`
	st, err := s.Import(ctx, "alice", strings.NewReader(file), memory.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.OpenIndex(ctx, s, t.TempDir(), index.IndexOptions{}) // derives the turns
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	if err := ix.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	turns, err := ImportedTurns(ctx, s, st)
	if err != nil || len(turns) != 2 || !turns[0].New || !turns[1].New || turns[0].Prompt != "I keep bees." || turns[1].Answer != "Busy farm." {
		t.Fatalf("first import: %+v, %v", turns, err)
	}
	p := NewPending(s)
	if err := p.Add(ctx, turns[1].ID); err != nil { // the first was learnt from
		t.Fatal(err)
	}
	again, err := s.Import(ctx, "alice", strings.NewReader(file), memory.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	turns, err = ImportedTurns(ctx, s, again)
	if err != nil || len(turns) != 1 || turns[0].New || turns[0].Prompt != "And two goats." {
		t.Fatalf("again: %+v, %v", turns, err)
	}
}

func openStore(t *testing.T) *memory.Store {
	t.Helper()
	s, err := memory.Open(context.Background(), filepath.Join(t.TempDir(), memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}
