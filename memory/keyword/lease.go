package keyword

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/mneme-dev/mneme/internal/flock"
)

// Several mneme processes share one index directory: two chat screens, a
// script running `mneme ask`, a sync. Bleve's scorch store holds an
// exclusive file lock for as long as it is open, and a second bleve.Open
// blocks on it forever. So no process keeps the index open: each operation
// takes a lease on it. The first operation of a lease takes "<dir>.lock"
// (flock, polled, so that a cancelled context stops the wait) and opens the
// index; the index is closed and the lock released once nothing in the
// process has used it for Linger, and at the next idle moment once a lease
// has lasted MaxHold while another process waits (it says so by holding
// "<dir>.wait" shared), so that a long rebuild or a busy chat still lets
// the others in between two operations.

// LeaseOptions tunes how long a process keeps the shared index.
type LeaseOptions struct {
	// Linger keeps the index open this long after its last use, so that a
	// burst of operations (typing in the search box) opens it once.
	Linger time.Duration
	// MaxHold ends a lease that has lasted this long at its next idle
	// moment if another process is waiting; this one then stays away for
	// yieldGap, long enough for the waiting process to get the lock.
	MaxHold time.Duration
	// Wait bounds how long an operation without a context of its own
	// (Upsert, Delete, Meta…) waits for another process.
	Wait time.Duration
}

// DefaultLease is what Open uses.
var DefaultLease = LeaseOptions{Linger: 250 * time.Millisecond, MaxHold: time.Second, Wait: 30 * time.Second}

const (
	// yieldGap is how long a process that gave the lock up after MaxHold
	// stays away from it: several polls of a waiting process.
	yieldGap = 5 * flock.Poll
	// boltTimeout makes Bleve's own file lock fail instead of hanging
	// should anything ever open the index without our lock.
	boltTimeout = "10s"
)

// ErrBusy is returned when another process kept the index for longer than
// an operation could wait.
var ErrBusy = errors.New("keyword index busy in another mneme process")

// acquire returns the open index for one operation; release must follow.
func (ix *Index) acquire(ctx context.Context) (bleve.Index, error) {
	for {
		ix.mu.Lock()
		if ix.closed {
			ix.mu.Unlock()
			return nil, ErrClosed
		}
		// While draining (Reset, Close) no new work joins, but an operation
		// started inside a Hold must: the drain waits for that Hold. A lease
		// given up for a waiting process is not joined again: the next
		// operation waits its turn (it would otherwise keep the lease for
		// ever, one batch of an import after another).
		if ix.bi != nil && !ix.yielding && (!ix.draining || ix.users > 0) {
			ix.users++
			ix.gen++ // a pending linger timer is now stale
			bi := ix.bi
			ix.mu.Unlock()
			return bi, nil
		}
		ix.mu.Unlock()
		if err := ix.takeGate(ctx); err != nil {
			return nil, err
		}
		ix.closeYielded()
		ix.mu.Lock()
		ready := ix.bi != nil || ix.closed
		ix.mu.Unlock()
		if !ready {
			if err := ix.openLease(ctx); err != nil {
				ix.dropGate()
				return nil, err
			}
		}
		ix.dropGate()
	}
}

// checkOpen returns ErrClosed once Close was called.
func (ix *Index) checkOpen() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return ErrClosed
	}
	return nil
}

// release ends one operation's use of the index.
func (ix *Index) release() {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.users--
	if ix.users > 0 || ix.bi == nil {
		return
	}
	ix.gen++
	gen := ix.gen
	if time.Since(ix.since) >= ix.lease.MaxHold {
		if !ix.othersWaiting() {
			ix.since = time.Now() // nobody to make way for
		} else {
			ix.yieldUntil, ix.yielding = time.Now().Add(yieldGap), true
			go ix.expire(gen)
			return
		}
	}
	time.AfterFunc(ix.lease.Linger, func() { ix.expire(gen) })
}

// expire closes the index and releases the lock if it has not been used
// since release scheduled it (gen).
func (ix *Index) expire(gen uint64) {
	ix.gate <- struct{}{}
	defer ix.dropGate()
	ix.closeYielded()
	ix.mu.Lock()
	if ix.gen != gen || ix.users > 0 || ix.bi == nil {
		ix.mu.Unlock()
		return
	}
	bi := ix.bi
	ix.bi = nil
	ix.mu.Unlock()
	ix.closeLease(bi)
}

// closeYielded closes a lease given up for a waiting process, if it is
// still open. The gate is held.
func (ix *Index) closeYielded() {
	ix.mu.Lock()
	if !ix.yielding || ix.users > 0 || ix.bi == nil {
		ix.yielding = ix.yielding && ix.bi != nil
		ix.mu.Unlock()
		return
	}
	bi := ix.bi
	ix.bi, ix.yielding = nil, false
	ix.mu.Unlock()
	ix.closeLease(bi)
}

// with runs fn on the open index within one lease.
func (ix *Index) with(ctx context.Context, fn func(bleve.Index) error) error {
	bi, err := ix.acquire(ctx)
	if err != nil {
		return err
	}
	defer ix.release()
	return fn(bi)
}

// withIndex is with for operations that take no context: the wait for
// another process is bounded by the lease's Wait.
func (ix *Index) withIndex(fn func(bleve.Index) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), ix.lease.Wait)
	defer cancel()
	return ix.with(ctx, fn)
}

// Hold keeps the index for the whole of fn, so that what fn does to the
// index and to the records that describe it (a batch indexed, then marked
// as indexed in the database) happens without another process in between.
// The operations inside fn join the lease.
func (ix *Index) Hold(ctx context.Context, fn func() error) error {
	return ix.with(ctx, func(bleve.Index) error { return fn() })
}

// Keep keeps the index open in this process until release is called, so
// that work coming a batch at a time (an import) does not close and
// reopen it between batches: Bleve closed while it merges segments, again
// and again, was seen to lose one. The keeper must let go when Yield says
// so, as a long Hold does, and may Keep again after.
func (ix *Index) Keep(ctx context.Context) (release func(), err error) {
	ctx, cancel := context.WithTimeout(ctx, ix.lease.Wait) // as long as any operation waits
	defer cancel()
	if _, err := ix.acquire(ctx); err != nil {
		return nil, err
	}
	var once sync.Once
	return func() { once.Do(ix.release) }, nil
}

// Yield reports whether a keeper should let go now: it has had the index
// longer than MaxHold, and another process waits for it.
func (ix *Index) Yield() bool {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.bi != nil && time.Since(ix.since) >= ix.lease.MaxHold && ix.othersWaiting()
}

func (ix *Index) takeGate(ctx context.Context) error {
	select {
	case ix.gate <- struct{}{}:
		return nil
	case <-ctx.Done():
		return leaseErr(ctx)
	}
}

func (ix *Index) dropGate() { <-ix.gate }

// openLease takes the lock file and opens the index. The gate is held.
func (ix *Index) openLease(ctx context.Context) error {
	ix.mu.Lock()
	wait := time.Until(ix.yieldUntil)
	ix.mu.Unlock()
	if wait > 0 {
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return leaseErr(ctx)
		}
	}
	if err := ix.lockFile(ctx); err != nil {
		return err
	}
	bi, err := ix.openBleve()
	if err != nil {
		ix.unlockFile()
		return err
	}
	ix.mu.Lock()
	ix.bi, ix.since, ix.yielding = bi, time.Now(), false
	ix.mu.Unlock()
	return nil
}

// closeLease closes bi and releases the lock file. The gate is held.
func (ix *Index) closeLease(bi bleve.Index) {
	if err := bi.Close(); err != nil {
		ix.closeErr = err
	}
	ix.unlockFile()
}

// drain stops new operations from joining the lease and waits until the
// current ones are done. The gate is held; undrain must follow.
func (ix *Index) drain(ctx context.Context) error {
	ix.mu.Lock()
	ix.draining = true
	ix.mu.Unlock()
	for {
		ix.mu.Lock()
		n := ix.users
		ix.mu.Unlock()
		if n == 0 {
			return nil
		}
		select {
		case <-ctx.Done():
			ix.undrain()
			return leaseErr(ctx)
		case <-time.After(time.Millisecond):
		}
	}
}

func (ix *Index) undrain() {
	ix.mu.Lock()
	ix.draining = false
	ix.mu.Unlock()
}

// lockFile takes "<dir>.lock" exclusively, polling until ctx ends. While
// it waits it holds "<dir>.wait" shared, which tells the holder that
// someone is waiting (othersWaiting).
func (ix *Index) lockFile(ctx context.Context) error {
	if ix.lockf == nil {
		if err := os.MkdirAll(filepath.Dir(ix.dir), 0o700); err != nil {
			return fmt.Errorf("keyword: %w", err)
		}
		f, err := os.OpenFile(ix.dir+".lock", os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			return fmt.Errorf("keyword: lock: %w", err)
		}
		w, err := os.OpenFile(ix.dir+".wait", os.O_CREATE|os.O_RDWR, 0o600)
		if err != nil {
			f.Close()
			return fmt.Errorf("keyword: lock: %w", err)
		}
		ix.lockf, ix.waitf = f, w
	}
	waiting := false
	defer func() {
		if waiting {
			flock.Unlock(ix.waitf)
		}
	}()
	err := flock.Acquire(ctx, ix.lockf, flock.Exclusive, func() {
		if !waiting {
			waiting = flock.Try(ix.waitf, flock.Shared)
		}
	})
	switch {
	case err == nil:
		return nil
	case ctx.Err() != nil:
		return leaseErr(ctx)
	}
	return fmt.Errorf("keyword: lock: %w", err)
}

// othersWaiting reports whether another process waits for the index: it
// then holds "<dir>.wait" shared.
func (ix *Index) othersWaiting() bool {
	if ix.waitf == nil {
		return false
	}
	if !flock.Try(ix.waitf, flock.Exclusive) {
		return true
	}
	flock.Unlock(ix.waitf)
	return false
}

func (ix *Index) unlockFile() {
	if ix.lockf != nil {
		flock.Unlock(ix.lockf)
	}
}

// leaseErr says why waiting for the index ended: the caller gave up, or
// another process kept it too long.
func leaseErr(ctx context.Context) error {
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%w: %w", ErrBusy, ctx.Err())
	}
	return ctx.Err()
}
