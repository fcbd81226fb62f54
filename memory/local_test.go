package memory

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestKeywordMarksAreLocalState: marking and unmarking keyword documents
// writes only the local state file, which is encrypted like the store.
func TestKeywordMarksAreLocalState(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), DBFileName)
	s, err := Open(ctx, path, WithEncryptionKey("k"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	c := chat(t, s, "alice", "Pets", "PLAINTEXT-MARKER kitten", "Noted.")
	turns, _, err := s.SyncTurns(ctx, "alice", c.ID)
	if err != nil || len(turns) != 1 {
		t.Fatalf("turns %+v, %v", turns, err)
	}
	mark := s.ChangeMark()
	if err := s.MarkKeywordIndexed(ctx, turns); err != nil {
		t.Fatal(err)
	}
	if left, err := s.TurnsNeedingKeywordIndex(ctx, "", 10); err != nil || len(left) != 0 {
		t.Fatalf("after marking: %d turns left, %v", len(left), err)
	}
	if err := s.ResetKeywordIndexed(ctx); err != nil {
		t.Fatal(err)
	}
	if left, _ := s.TurnsNeedingKeywordIndex(ctx, "", 10); len(left) != 1 {
		t.Fatalf("after the reset: %d turns left", len(left))
	}
	if m := s.ChangeMark(); m != mark {
		t.Fatalf("keyword marks changed the database files: %s -> %s", mark, m)
	}
	for _, suf := range []string{"", "-wal"} {
		data, _ := os.ReadFile(LocalPath(path) + suf)
		if len(data) == 0 || bytes.HasPrefix(data, []byte("SQLite format")) {
			t.Fatalf("local state %s: %d bytes, plain text", suf, len(data))
		}
	}
}

// TestADamagedLocalStateWaitsForTheOthers: a local state file that
// cannot be read is set aside only when no other mneme has the database
// open (memory_e2e_test.go sets one aside, across processes); until then
// the error names the damaged file, not the database ("encrypted or not a
// database").
func TestADamagedLocalStateWaitsForTheOthers(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), DBFileName)
	s, err := Open(ctx, path, WithEncryptionKey("k"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	local := LocalPath(path)
	for _, suf := range []string{"-wal", "-shm"} {
		os.Remove(local + suf)
	}
	if err := os.WriteFile(local, bytes.Repeat([]byte("not sqlite "), 500), 0o600); err != nil {
		t.Fatal(err)
	}
	other, err := Open(ctx, path, WithEncryptionKey("k"))
	if err == nil {
		other.Close()
	}
	if err == nil || !strings.Contains(err.Error(), local+", this device's search bookkeeping, is damaged: close the other mneme processes") {
		t.Fatalf("an open beside another: %v", err)
	}
	if aside, _ := filepath.Glob(local + ".damaged-*"); len(aside) != 0 {
		t.Fatalf("set aside while another mneme had it open: %q", aside)
	}
}
