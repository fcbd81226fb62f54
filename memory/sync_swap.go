package memory

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/mneme-dev/mneme/internal/flock"
)

// fileLock is an advisory lock (flock) on a file beside the database.
//
// Every open Store holds the lock file "<db>.lock" shared for as long as it
// is open; replacing the database files (after a sync conflict, or when a
// plain database becomes a replica) needs it exclusive, so it never
// happens under another mneme process that has the old files open. Sync
// rounds take "<db>.sync-lock" exclusive so that two processes never sync
// the same replica at once (each would act on stale sync metadata).
type fileLock struct {
	mu sync.Mutex
	f  *os.File
}

// openLockWait bounds how long opening waits for a merge in another process.
const openLockWait = 2 * time.Minute

// ErrBusy is returned when another mneme process holds what is needed.
var ErrBusy = errors.New("another mneme process is using the database")

// openFileLock opens path and takes it shared, waiting while another
// process holds it exclusive (a merge in progress).
func openFileLock(ctx context.Context, path string) (*fileLock, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	l := &fileLock{f: f}
	ctx, cancel := context.WithTimeout(ctx, openLockWait)
	defer cancel()
	if err := l.acquire(ctx, flock.Shared); err != nil {
		f.Close()
		return nil, fmt.Errorf("database is being merged by another mneme process: %w", err)
	}
	return l, nil
}

// acquire takes the lock in mode (LOCK_SH or LOCK_EX), polling until ctx
// ends; then it returns ErrBusy.
func (l *fileLock) acquire(ctx context.Context, mode int) error {
	err := flock.Acquire(ctx, l.f, mode, nil)
	if err != nil && ctx.Err() != nil {
		return ErrBusy
	}
	return err
}

// tryExclusive turns the shared lock exclusive if no other process holds
// it. On failure the lock is shared again. Callers serialise attempts
// across processes with the sync lock, so two upgrades never race.
func (l *fileLock) tryExclusive() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if flock.Try(l.f, flock.Exclusive) {
		return true
	}
	// flock may have dropped the shared lock while trying: take it back.
	l.acquire(context.Background(), flock.Shared)
	return false
}

// shared turns an exclusive lock back to shared.
func (l *fileLock) shared() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.acquire(context.Background(), flock.Shared)
}

// Close releases the lock.
func (l *fileLock) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Close()
}

// lockSync takes the store's sync lock exclusive, waiting until ctx ends.
func (s *Store) lockSync(ctx context.Context) (*fileLock, error) {
	f, err := os.OpenFile(s.path+".sync-lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	l := &fileLock{f: f}
	if err := l.acquire(ctx, flock.Exclusive); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// replicaSuffixes are the files of a replica: the database, its WAL (which
// holds every change since the generation began), the WAL index and the
// sync metadata.
var replicaSuffixes = []string{"", "-wal", "-shm", "-info"}

// drainWait bounds how long a swap waits for readers to finish.
const drainWait = 10 * time.Second

// swapDatabase replaces the open database with the replica at newPath,
// moving the current files to backupDir. The caller holds writeMu and the
// exclusive lock. Connections are drained first: new ones wait, open ones
// are closed as their users return them.
func (s *Store) swapDatabase(newPath, backupDir string) error {
	s.swapMu.Lock()
	defer s.swapMu.Unlock()
	if s.closing.Load() {
		return fmt.Errorf("swap database: the store is closing: %w", ErrBusy)
	}
	c := s.conn
	c.mu.Lock()
	s.db.SetMaxIdleConns(0)
	defer s.db.SetMaxIdleConns(2) // database/sql's default
	deadline := time.Now().Add(drainWait)
	for c.live.Load() > 0 {
		if time.Now().After(deadline) {
			c.mu.Unlock()
			return fmt.Errorf("swap database: %d connections still in use: %w", c.live.Load(), ErrBusy)
		}
		time.Sleep(flock.Poll)
	}
	defer c.mu.Unlock()
	// go-libsql closes files in the background after Close returns; moving
	// or reopening them before then leaves a handle on the wrong files.
	old := watchAll(fileIDs(s.path))
	closeBase(c.base)
	old.wait()
	waitClosed(fileIDs(newPath))
	if err := os.RemoveAll(backupDir); err != nil {
		return s.reopenBase(fmt.Errorf("swap database: %w", err))
	}
	if err := os.MkdirAll(backupDir, 0o700); err != nil {
		return s.reopenBase(fmt.Errorf("swap database: %w", err))
	}
	// Until the marker is gone the move is incomplete: a crash in between
	// is rolled back when the store is next opened (recoverSwap).
	marker := filepath.Join(backupDir, swapMarker)
	if err := writeSynced(marker, "1"); err != nil {
		return s.reopenBase(fmt.Errorf("swap database: %w", err))
	}
	backup := filepath.Join(backupDir, filepath.Base(s.path))
	for _, suf := range replicaSuffixes {
		if err := renameIfExists(s.path+suf, backup+suf); err != nil {
			return s.reopenBase(fmt.Errorf("swap database: %w", err))
		}
	}
	// Phase 2: every old file is in the backup; new ones move in.
	if err := writeSynced(marker, "2"); err != nil {
		return s.reopenBase(fmt.Errorf("swap database: %w", err))
	}
	for _, suf := range replicaSuffixes {
		if suf == "-shm" {
			os.Remove(newPath + suf) // rebuilt from the WAL on open
			continue
		}
		if err := renameIfExists(newPath+suf, s.path+suf); err != nil {
			// Put the old files back.
			for _, suf := range replicaSuffixes {
				os.Remove(s.path + suf)
				renameIfExists(backup+suf, s.path+suf)
			}
			return s.reopenBase(fmt.Errorf("swap database: %w", err))
		}
	}
	base, err := openBase(s.path, true)
	if err != nil {
		for _, suf := range replicaSuffixes {
			os.Remove(s.path + suf)
			renameIfExists(backup+suf, s.path+suf)
		}
		os.Remove(marker)
		return s.reopenBase(fmt.Errorf("swap database: open new replica: %w", err))
	}
	if err := os.Remove(marker); err != nil {
		return fmt.Errorf("swap database: %w", err)
	}
	c.base = base
	s.replica.Store(true)
	return nil
}

// reopenBase reopens the files at s.path after a failed swap (the caller
// holds c.mu) and returns cause.
func (s *Store) reopenBase(cause error) error {
	replica := isReplica(s.path)
	base, err := openBase(s.path, replica)
	if err != nil {
		return errors.Join(cause, fmt.Errorf("reopen: %w", err))
	}
	s.conn.base = base
	s.replica.Store(replica)
	return cause
}

// swapMarker is in the backup directory while a swap moves files.
const swapMarker = "SWAPPING"

// recoverSwap rolls back a swap that a crash interrupted, putting the
// backed-up files back. (The merged copy was pushed before the swap
// began; the next sync merges again, idempotently.) The marker says how
// far the swap got: "1" while old files move to the backup (what is in
// place is old), "2" once they all have (what is in place is new).
func recoverSwap(path string) error {
	backupDir := filepath.Join(filepath.Dir(path), backupDirName)
	marker := filepath.Join(backupDir, swapMarker)
	phase, err := os.ReadFile(marker)
	if err != nil {
		return nil
	}
	backup := filepath.Join(backupDir, filepath.Base(path))
	for _, suf := range replicaSuffixes {
		if strings.TrimSpace(string(phase)) == "2" {
			if err := os.Remove(path + suf); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("roll back an interrupted sync merge: %w", err)
			}
		}
		if err := renameIfExists(backup+suf, path+suf); err != nil {
			return fmt.Errorf("roll back an interrupted sync merge: %w", err)
		}
	}
	return os.Remove(marker)
}

// writeSynced writes a small file and flushes it to disk.
func writeSynced(path, content string) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(content); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// fileID identifies a file whatever its name.
type fileID struct{ dev, ino uint64 }

// fileIDs identifies a database's files (database, WAL, WAL index).
func fileIDs(path string) []fileID {
	var out []fileID
	for _, suf := range []string{"", "-wal", "-shm"} {
		if fi, err := os.Stat(path + suf); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				out = append(out, fileID{uint64(st.Dev), uint64(st.Ino)})
			}
		}
	}
	return out
}

// closeWait bounds how long waitClosed waits.
const closeWait = 3 * time.Second

// closeWatch waits for this process's file descriptors on some files to
// close: go-libsql closes its files in the background after Close returns.
type closeWatch struct {
	ids      map[fileID]bool
	baseline map[string]bool // descriptors not to wait for
}

// watchAll starts a watch that waits for every descriptor on ids.
func watchAll(ids []fileID) *closeWatch {
	w := &closeWatch{ids: map[fileID]bool{}, baseline: map[string]bool{}}
	for _, id := range ids {
		w.ids[id] = true
	}
	return w
}

// open lists the descriptors open on the files (none where /proc is missing).
func (w *closeWatch) open() []string {
	if runtime.GOOS != "linux" || len(w.ids) == 0 {
		return nil
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		fi, err := os.Stat("/proc/self/fd/" + e.Name())
		if err != nil {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && w.ids[fileID{uint64(st.Dev), uint64(st.Ino)}] {
			out = append(out, e.Name())
		}
	}
	return out
}

// wait returns once no descriptor but the baseline is open on the files.
// Where descriptors cannot be listed (no /proc), it waits a fixed while.
func (w *closeWatch) wait() {
	if len(w.ids) == 0 {
		return
	}
	if runtime.GOOS != "linux" {
		time.Sleep(300 * time.Millisecond)
		return
	}
	deadline := time.Now().Add(closeWait)
	for time.Now().Before(deadline) {
		extra := false
		for _, fd := range w.open() {
			if !w.baseline[fd] {
				extra = true
				break
			}
		}
		if !extra {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// waitClosed waits until this process has no descriptor open on ids.
func waitClosed(ids []fileID) { watchAll(ids).wait() }

func renameIfExists(from, to string) error {
	err := os.Rename(from, to)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
