package memory

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/flock"
	"github.com/mneme-dev/mneme/memory/internal/dbconn"
	"github.com/mneme-dev/mneme/memory/internal/dbfiles"
)

// openLockWait bounds how long opening waits for a merge in another process.
const openLockWait = 2 * time.Minute

// TryExclusive takes the store's hold on its files exclusive, which
// SwapDatabase needs, if no other process has them open; EndExclusive
// makes it shared again. Callers serialise attempts across processes with
// the sync lock (LockSync).
func (s *Store) TryExclusive() bool { return s.lock.TryExclusive() }

// EndExclusive makes the hold TryExclusive took shared again.
func (s *Store) EndExclusive() { s.lock.Shared() }

// HoldWrites runs fn while this process's writers wait: sync runs
// go-libsql's own connection (which has no busy timeout) and replaces the
// files inside it.
func (s *Store) HoldWrites(fn func() error) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	return fn()
}

// LockSync takes the store's sync lock ("<db>.sync-lock") exclusive,
// waiting until ctx ends, so that two processes never sync the same
// replica at once. Close releases it.
func (s *Store) LockSync(ctx context.Context) (io.Closer, error) {
	l, err := dbfiles.OpenLock(ctx, s.path+".sync-lock", flock.Exclusive)
	if err != nil && ctx.Err() != nil {
		return nil, ErrBusy
	}
	return l, err
}

// replicaSuffixes are the files of a replica: the database, its WAL (which
// holds every change since the generation began), the WAL index and the
// sync metadata.
var replicaSuffixes = []string{"", "-wal", "-shm", "-info"}

// drainWait bounds how long a swap waits for readers to finish.
const drainWait = 10 * time.Second

// SwapDatabase replaces the open database with the replica at newPath,
// moving the current files to backupDir. The caller holds the writes
// (HoldWrites) and the exclusive lock (TryExclusive). Connections are drained first: new ones wait, open ones
// are closed as their users return them.
func (s *Store) SwapDatabase(newPath, backupDir string) error {
	s.swapMu.Lock()
	defer s.swapMu.Unlock()
	if s.closing.Load() {
		return fmt.Errorf("swap database: the store is closing: %w", ErrBusy)
	}
	c := s.conn
	c.Lock()
	s.db.SetMaxIdleConns(0)
	defer s.db.SetMaxIdleConns(2) // database/sql's default
	deadline := time.Now().Add(drainWait)
	for c.Live() > 0 {
		if time.Now().After(deadline) {
			c.Unlock()
			return fmt.Errorf("swap database: %d connections still in use: %w", c.Live(), ErrBusy)
		}
		time.Sleep(flock.Poll)
	}
	defer c.Unlock()
	// go-libsql closes files in the background after Close returns; moving
	// or reopening them before then leaves a handle on the wrong files.
	old := dbfiles.WatchAll(dbfiles.IDs(s.path))
	dbconn.CloseBase(c.Base())
	old.Wait()
	dbfiles.WaitClosed(dbfiles.IDs(newPath))
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
	base, err := openBase(context.Background(), s.path, true) // under the exclusive lock: no one to wait for
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
	c.SetBase(base)
	s.replica.Store(true)
	return nil
}

// reopenBase reopens the files at s.path after a failed swap (the caller
// holds the connector's Lock) and returns cause.
func (s *Store) reopenBase(cause error) error {
	replica := isReplica(s.path)
	base, err := openBase(context.Background(), s.path, replica)
	if err != nil {
		return errors.Join(cause, fmt.Errorf("reopen: %w", err))
	}
	s.conn.SetBase(base)
	s.replica.Store(replica)
	return cause
}

// BackupDirName is the directory beside the database where SwapDatabase
// callers keep the replaced files.
const BackupDirName = "sync-backup"

// swapMarker is in the backup directory while a swap moves files.
const swapMarker = "SWAPPING"

// WaitClosed waits until this process has no descriptor open on the
// database files at path (go-libsql closes them in the background).
func WaitClosed(path string) { dbfiles.WaitClosed(dbfiles.IDs(path)) }

// OpenHere counts this process's descriptors on the database files at path.
func OpenHere(path string) int { return len(dbfiles.WatchAll(dbfiles.IDs(path)).Open()) }

// CloseAndWait closes the store and waits for go-libsql to close its
// files, which it does in the background: a connection closing takes the
// database file's lock, and go-libsql's own sync connection, which has no
// busy timeout, would meet it.
func (s *Store) CloseAndWait() error {
	ids := dbfiles.IDs(s.path)
	err := s.Close()
	dbfiles.WaitClosed(ids)
	return err
}

// recoverSwap rolls back a swap that a crash interrupted, putting the
// backed-up files back. (The merged copy was pushed before the swap
// began; the next sync merges again, idempotently.) The marker says how
// far the swap got: "1" while old files move to the backup (what is in
// place is old), "2" once they all have (what is in place is new).
func recoverSwap(path string) error {
	backupDir := filepath.Join(filepath.Dir(path), BackupDirName)
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

func renameIfExists(from, to string) error {
	err := os.Rename(from, to)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	return err
}
