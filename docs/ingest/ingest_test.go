package ingest

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

// TestAStoreThatFailsIsAnErrorNotASkip: a file that is no document is
// skipped, with why; a store that cannot write (here closed: locked, full
// or read-only alike) is an error, so that `docs add` stops and exits
// non-zero rather than list every file as "skipped" and exit 0.
func TestAStoreThatFailsIsAnErrorNotASkip(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	store, err := memory.Open(ctx, filepath.Join(dir, memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := index.OpenIndex(ctx, store, filepath.Join(dir, "ix"), index.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	note, binary := filepath.Join(dir, "note.md"), filepath.Join(dir, "blob.txt")
	os.WriteFile(note, []byte("# Boiler\n\nHold the red button."), 0o600)
	os.WriteFile(binary, []byte("\x00\x01\x02 not text"), 0o600)
	adder := Adder{Library: ix, UserID: "alice", MaxBytes: 1 << 20}
	if r, err := adder.Add(ctx, binary, false); err != nil || r.Skipped == "" {
		t.Fatalf("a binary file: %+v, %v", r, err)
	}
	store.Close()
	if r, err := adder.Add(ctx, note, false); err == nil || r.Skipped != "" {
		t.Fatalf("a file the store cannot take: %+v, %v", r, err)
	}
}
