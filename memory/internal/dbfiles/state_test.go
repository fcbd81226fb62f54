package dbfiles_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/internal/dbfiles"
)

// Every commit changes the state, whether its process leaves the WAL
// behind or checkpoints it into the database and removes it; reading
// changes nothing.
func TestStateMovesWithEveryCommit(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), memory.DBFileName)
	c := dbfiles.NewClean(path, filepath.Join(filepath.Dir(path), "clean"))
	open := func() *memory.Store {
		s, err := memory.Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := open()
	conv, err := s.CreateConversation(ctx, "alice", "one")
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	seen := map[string]bool{}
	for i, title := range []string{"two", "three", "four"} {
		s := open() // opening may checkpoint what the last process wrote: read the state after it, as Sync does
		before := c.State()
		if before == "" || seen[before] {
			t.Fatalf("step %d: state %q seen before", i, before)
		}
		seen[before] = true
		c.Record(before)
		if _, err := s.ListConversations(ctx, "alice", memory.ListOptions{}); err != nil {
			t.Fatal(err)
		}
		if now := c.State(); !c.Matches(now) {
			t.Fatalf("step %d: reading changed the state\n%s\n%s", i, before, now)
		}
		// A rename rewrites one row in place: same sizes once checkpointed.
		if err := s.RenameConversation(ctx, "alice", conv.ID, title); err != nil {
			t.Fatal(err)
		}
		if c.Matches(c.State()) {
			t.Fatalf("step %d: a commit left the state as it was", i)
		}
		if i == 1 { // checkpoint and empty the WAL, as the last process to close may
			if _, err := s.DB().QueryContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
				t.Fatal(err)
			}
		}
		s.Close()
		if c.Matches(c.State()) {
			t.Fatalf("step %d: a commit left the state as it was once closed", i)
		}
	}
	os.Remove(filepath.Join(filepath.Dir(path), "clean"))
	if c.Matches(c.State()) {
		t.Fatal("no record matched")
	}
}
