package dbfiles

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// files writes one file per suffix at base, holding what+suffix.
func files(t *testing.T, base, what string, sufs ...string) {
	t.Helper()
	for _, suf := range sufs {
		if err := os.WriteFile(base+suf, []byte(what+suf), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// holds reports what the files at base hold, suffix by suffix ("" for a
// missing one).
func holds(base string) map[string]string {
	out := map[string]string{}
	for _, suf := range Suffixes {
		b, err := os.ReadFile(base + suf)
		if err == nil {
			out[suf] = string(b)
		}
	}
	return out
}

func sameFiles(t *testing.T, label string, got map[string]string, what string, sufs ...string) {
	t.Helper()
	want := map[string]string{}
	for _, suf := range sufs {
		want[suf] = what + suf
	}
	if len(got) != len(want) {
		t.Fatalf("%s: files %v, want %v", label, got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Fatalf("%s: files %v, want %v", label, got, want)
		}
	}
}

// TestReplaceThatFailsPutsTheOldFilesBack: a rename that fails at any step
// of a swap (moving the old files out, or the new ones in) leaves the old
// files in place and no marker, so that the next open (Recover) has
// nothing to undo and deletes nothing; the sync's next round tries again.
func TestReplaceThatFailsPutsTheOldFilesBack(t *testing.T) {
	for fail := 1; fail <= 6; fail++ {
		dir := t.TempDir()
		path, newPath, backupDir := filepath.Join(dir, "mneme.db"), filepath.Join(dir, "merge", "mneme.db"), filepath.Join(dir, "sync-backup")
		os.MkdirAll(filepath.Dir(newPath), 0o700)
		files(t, path, "old", "", "-wal", "-shm") // a plain database: no -info
		files(t, newPath, "new", "", "-wal", "-shm", "-info")
		calls := 0
		rename := func(from, to string) error {
			if calls++; calls == fail {
				return errors.New("operation not permitted")
			}
			return os.Rename(from, to)
		}
		if _, err := replace(path, newPath, backupDir, rename); err == nil {
			t.Fatalf("rename %d failed, yet the swap did not", fail)
		}
		sameFiles(t, "after the failed swap", holds(path), "old", "", "-wal", "-shm")
		if Interrupted(backupDir) {
			t.Fatalf("rename %d: a failed swap left its marker", fail)
		}
		if err := Recover(path, backupDir); err != nil {
			t.Fatal(err)
		}
		sameFiles(t, "after the next open", holds(path), "old", "", "-wal", "-shm")
	}
}

// TestRecoverFinishesARollBack: a crash while the new files moved in, or
// while a roll back put the old ones back, leaves the marker; Recover puts
// every old file back, leaves alone one already back, removes the new ones
// (the old database had no -info: the new one goes), and is idempotent.
func TestRecoverFinishesARollBack(t *testing.T) {
	dir := t.TempDir()
	path, backupDir := filepath.Join(dir, "mneme.db"), filepath.Join(dir, "sync-backup")
	backup := filepath.Join(backupDir, "mneme.db")
	os.MkdirAll(backupDir, 0o700)
	files(t, backup, "old", "", "-shm") // not yet put back
	files(t, path, "old", "-wal")       // put back already
	files(t, path, "new", "", "-info")  // moved in
	os.WriteFile(filepath.Join(backupDir, markerName), []byte("2 db db-wal db-shm"), 0o600)
	for range 2 {
		if err := Recover(path, backupDir); err != nil {
			t.Fatal(err)
		}
		sameFiles(t, "after recovery", holds(path), "old", "", "-wal", "-shm")
		if Interrupted(backupDir) {
			t.Fatal("the marker is left")
		}
	}
}

// TestReplaceKeepsTheNewFiles: a swap that ends keeps the new files, the old
// ones in the backup, and no marker; Undo instead puts the old ones back.
func TestReplaceKeepsTheNewFiles(t *testing.T) {
	for _, undo := range []bool{false, true} {
		dir := t.TempDir()
		path, newPath, backupDir := filepath.Join(dir, "mneme.db"), filepath.Join(dir, "merge", "mneme.db"), filepath.Join(dir, "sync-backup")
		os.MkdirAll(filepath.Dir(newPath), 0o700)
		files(t, path, "old", "", "-wal")
		files(t, newPath, "new", "", "-wal", "-shm", "-info")
		w, err := Replace(path, newPath, backupDir)
		if err != nil {
			t.Fatal(err)
		}
		if undo {
			if err := w.Undo(); err != nil {
				t.Fatal(err)
			}
			sameFiles(t, "undone", holds(path), "old", "", "-wal")
		} else {
			if err := w.Done(); err != nil {
				t.Fatal(err)
			}
			sameFiles(t, "done", holds(path), "new", "", "-wal", "-info") // the WAL index is rebuilt on open
			sameFiles(t, "backup", holds(filepath.Join(backupDir, "mneme.db")), "old", "", "-wal")
		}
		if Interrupted(backupDir) {
			t.Fatal("the marker is left")
		}
	}
}
