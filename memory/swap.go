package memory

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
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
	l, err := dbfiles.OpenLock(ctx, s.path+".sync-lock", flock.Exclusive, nil)
	if err != nil && ctx.Err() != nil {
		return nil, ErrBusy
	}
	return l, err
}

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
	// A swap stopped half-way (here, or by a crash: recoverSwap) is rolled
	// back: never a mix of old and new files.
	w, err := dbfiles.Replace(s.path, newPath, backupDir)
	if err != nil {
		return s.reopenBase(fmt.Errorf("swap database: %w", err))
	}
	base, err := openBase(context.Background(), s.path, true) // under the exclusive lock: no one to wait for
	if err != nil {
		return s.reopenBase(errors.Join(fmt.Errorf("swap database: open new replica: %w", err), w.Undo()))
	}
	c.SetBase(base)
	s.replica.Store(true)
	if err := w.Done(); err != nil {
		return fmt.Errorf("swap database: %w", err)
	}
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

// openLock takes the store's lock ("<db>.lock") shared, waiting until ctx
// ends; waiting (when not nil) is called while it waits for another
// process (a merge holds the lock exclusive). A swap a crash stopped (its
// marker left) is first rolled back under the lock exclusive: two
// processes opening at once after the crash never both do, and one that
// waited for it opens what the other put back.
func openLock(ctx context.Context, path string, waiting func()) (*dbfiles.Lock, error) {
	backupDir := filepath.Join(filepath.Dir(path), BackupDirName)
	for {
		if !dbfiles.Interrupted(backupDir) {
			l, err := dbfiles.OpenLock(ctx, path+".lock", flock.Shared, waiting)
			if err != nil || !dbfiles.Interrupted(backupDir) {
				return l, err
			}
			l.Close() // a swap stopped while this waited for the lock
		}
		l, ok, err := dbfiles.TryLock(path+".lock", flock.Exclusive)
		if err != nil {
			return nil, err
		}
		if ok {
			if err := dbfiles.Recover(path, backupDir); err != nil {
				l.Close()
				return nil, err
			}
			l.Shared()
			return l, nil
		}
		if waiting != nil {
			waiting()
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(flock.Poll):
		}
	}
}

// BackupDirName is the directory beside the database where SwapDatabase
// callers keep the replaced files.
const BackupDirName = "sync-backup"

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
