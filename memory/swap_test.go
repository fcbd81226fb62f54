package memory

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// TestOpensAfterACrashedSwapKeepTheDatabase: after a crash while a sync
// swap moved the new files in, several mneme processes starting at once (a
// chat and a script's `mneme ask`) roll the swap back once between them:
// every one opens the old database whole, none deletes what another put
// back.
func TestOpensAfterACrashedSwapKeepTheDatabase(t *testing.T) {
	ctx := context.Background()
	for round := range 8 {
		dir := t.TempDir()
		path := filepath.Join(dir, DBFileName)
		s, err := Open(ctx, path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := s.SaveNote(ctx, "alice", "Keep me.", NoteSource{}); err != nil {
			t.Fatal(err)
		}
		s.CloseAndWait()
		// The crash: every old file in the backup, a new one half moved in.
		backupDir := filepath.Join(dir, BackupDirName)
		os.MkdirAll(backupDir, 0o700)
		backup := filepath.Join(backupDir, DBFileName)
		for _, suf := range []string{"", "-wal", "-shm"} {
			os.Rename(path+suf, backup+suf)
		}
		os.WriteFile(path, []byte("half a merge"), 0o600)
		os.WriteFile(filepath.Join(backupDir, "SWAPPING"), []byte("2"), 0o600)

		var wg sync.WaitGroup
		notes := make([]int, 3)
		errs := make([]error, 3)
		for i := range notes {
			wg.Go(func() {
				s, err := Open(ctx, path)
				if err != nil {
					errs[i] = err
					return
				}
				defer s.Close()
				list, err := s.ListNotes(ctx, "alice")
				notes[i], errs[i] = len(list), err
			})
		}
		wg.Wait()
		for i := range notes {
			if errs[i] != nil || notes[i] != 1 {
				t.Fatalf("round %d, process %d: %d notes, %v", round, i, notes[i], errs[i])
			}
		}
	}
}

// TestOpenSaysItWaitsForAMerge: a process opening the store while another
// holds it for a merge is told at once (WithLockWait), once, and opens
// when the merge ends.
func TestOpenSaysItWaitsForAMerge(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), DBFileName)
	merging, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer merging.Close()
	if !merging.TryExclusive() {
		t.Fatal("no exclusive hold with no other process")
	}
	told := make(chan struct{}, 4)
	opened := make(chan error, 1)
	go func() {
		s, err := Open(ctx, path, WithLockWait(func() { told <- struct{}{} }))
		if err == nil {
			s.Close()
		}
		opened <- err
	}()
	<-told
	merging.EndExclusive()
	if err := <-opened; err != nil {
		t.Fatal(err)
	}
	if len(told) != 0 {
		t.Fatalf("told %d more times", len(told))
	}
}
