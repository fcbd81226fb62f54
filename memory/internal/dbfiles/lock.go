package dbfiles

import (
	"context"
	"fmt"
	"os"
	"sync"

	"github.com/mneme-dev/mneme/internal/flock"
)

// Lock is an advisory lock (flock) on a file beside the database.
//
// Every open store holds the lock file "<db>.lock" shared for as long as it
// is open; replacing the database files (after a sync conflict, or when a
// plain database becomes a replica) needs it exclusive, so it never
// happens under another mneme process that has the old files open. Sync
// rounds take "<db>.sync-lock" exclusive so that two processes never sync
// the same replica at once (each would act on stale sync metadata).
type Lock struct {
	mu sync.Mutex
	f  *os.File
}

// OpenLock opens path and takes it in mode (flock.Shared or
// flock.Exclusive), waiting until ctx ends; waiting (when not nil) is
// called while it waits.
func OpenLock(ctx context.Context, path string, mode int, waiting func()) (*Lock, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock: %w", err)
	}
	l := &Lock{f: f}
	if err := flock.Acquire(ctx, f, mode, waiting); err != nil {
		f.Close()
		return nil, err
	}
	return l, nil
}

// TryLock opens path and takes it in mode if no other process stops it
// (ok false: the lock is not held).
func TryLock(path string, mode int) (l *Lock, ok bool, err error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, false, fmt.Errorf("lock: %w", err)
	}
	if !flock.Try(f, mode) {
		f.Close()
		return nil, false, nil
	}
	return &Lock{f: f}, true, nil
}

// TryExclusive turns the shared lock exclusive if no other process holds
// it. On failure the lock is shared again. Callers serialise attempts
// across processes with the sync lock, so two upgrades never race.
func (l *Lock) TryExclusive() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if flock.Try(l.f, flock.Exclusive) {
		return true
	}
	// flock may have dropped the shared lock while trying: take it back.
	flock.Acquire(context.Background(), l.f, flock.Shared, nil)
	return false
}

// Shared turns an exclusive lock back to shared.
func (l *Lock) Shared() {
	l.mu.Lock()
	defer l.mu.Unlock()
	flock.Acquire(context.Background(), l.f, flock.Shared, nil)
}

// Close releases the lock.
func (l *Lock) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.f.Close()
}
