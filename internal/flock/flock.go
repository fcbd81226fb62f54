// Package flock takes advisory file locks (flock) shared between mneme
// processes, waiting in a way a context can cancel.
package flock

import (
	"context"
	"errors"
	"os"
	"syscall"
	"time"
)

// Poll is how often a lock held by another process is tried again.
const Poll = 10 * time.Millisecond

// Modes.
const (
	Shared    = syscall.LOCK_SH
	Exclusive = syscall.LOCK_EX
)

// Try takes the lock on f in mode without waiting; false if another
// process holds it.
func Try(f *os.File, mode int) bool {
	return syscall.Flock(int(f.Fd()), mode|syscall.LOCK_NB) == nil
}

// Acquire takes the lock on f in mode, trying again every Poll until ctx
// ends (then it returns ctx.Err()). waiting, if not nil, is called each
// time the lock is found held.
func Acquire(ctx context.Context, f *os.File, mode int, waiting func()) error {
	for {
		err := syscall.Flock(int(f.Fd()), mode|syscall.LOCK_NB)
		if err == nil {
			return nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			return err
		}
		if waiting != nil {
			waiting()
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(Poll):
		}
	}
}

// Unlock releases the lock on f.
func Unlock(f *os.File) { _ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
