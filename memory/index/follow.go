package index

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/mneme-dev/mneme/internal/flock"
	"github.com/mneme-dev/mneme/memory"
)

// Bulk work (an import, a reindex) indexes thousands of turns in one
// process. Another process's command (a search, a memory add) must not
// take that work on itself, chasing it batch after batch: while a bulk
// job runs, it holds "<dir>/keyword.bulk" shared, and other processes'
// Syncs leave the turns it has not indexed yet to it (BehindBulk says so).

const bulkName = "keyword.bulk"

// followPart is how many conversations a Follower indexes between two
// chances for another process to take the keyword index (about a tenth of
// a second of work).
const followPart = 100

// markBulk says, until release, that this process does bulk work.
func (ix *Index) markBulk() (release func()) {
	f, err := os.OpenFile(filepath.Join(ix.dir, bulkName), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		ix.log.Warn("bulk marker", "err", err)
		return func() {}
	}
	// othersBulk's probe holds it exclusive for an instant: wait that out.
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if err := flock.Acquire(ctx, f, flock.Shared, nil); err != nil {
		ix.log.Warn("bulk marker", "err", err)
	}
	ix.mu.Lock()
	ix.bulk++
	ix.mu.Unlock()
	return sync.OnceFunc(func() {
		ix.mu.Lock()
		ix.bulk--
		ix.mu.Unlock()
		f.Close() // and the lock with it
	})
}

// othersBulk reports whether another process does bulk work now. A
// process doing bulk work itself does all of its own Syncs.
func (ix *Index) othersBulk() bool {
	ix.mu.Lock()
	own := ix.bulk > 0
	ix.mu.Unlock()
	if own {
		return false
	}
	f, err := os.OpenFile(filepath.Join(ix.dir, bulkName), os.O_RDWR, 0o600)
	if err != nil {
		return false // never made: no bulk work ever ran here
	}
	defer f.Close()
	return !flock.Try(f, flock.Exclusive)
}

// BehindBulk reports whether the last Sync left turns to another
// process's bulk work (an import, a reindex): they are not found yet.
func (ix *Index) BehindBulk() bool { return ix.behindBulk.Load() }

// Rebuilding reports whether a reindex runs now: the index answers as it
// was, and turns written since the reindex began are found once it is done.
func (ix *Index) Rebuilding() bool { return ix.kw.Rebuilding() }

// Follower keeps the index up with a writer that stores a batch at a time
// (an import): each batch is indexed in the background while the next is
// stored, so that storing (SQLite) and indexing (Bleve) share the cores,
// and an interrupted import leaves what it stored searchable.
type Follower struct {
	ix               *Index
	wake, quit, done chan struct{}
	stopOnce         sync.Once
}

// Follow starts following a bulk writer; Batch after each batch it
// stores, Stop at its end.
func (ix *Index) Follow(ctx context.Context) *Follower {
	f := &Follower{ix: ix, wake: make(chan struct{}, 1), quit: make(chan struct{}), done: make(chan struct{})}
	unmark := ix.markBulk()
	go func() {
		defer close(f.done)
		defer unmark()
		// The keyword index stays open from batch to batch (but for another
		// process waiting for it): closed and reopened between batches while
		// Bleve merges, it was seen to lose a segment.
		var release func()
		defer func() {
			if release != nil {
				release()
			}
		}()
		for {
			select {
			case <-f.wake:
			case <-f.quit:
				return
			}
			// A part at a time: between parts another process waiting for
			// the keyword index gets it.
			for more := true; more && ctx.Err() == nil; {
				if release == nil {
					release, _ = ix.kw.Keep(ctx) // on failure, the Sync waits for the index itself
				}
				var err error
				if more, err = ix.SyncNotified(ctx, followPart); err != nil && ctx.Err() == nil {
					ix.log.Warn("indexing a bulk write", "err", err) // the writer's last Sync says it
					more = false
				}
				if release != nil && ix.kw.Yield() {
					release()
					release = nil
				}
			}
		}
	}()
	return f
}

// Batch has the conversations of a stored batch indexed.
func (f *Follower) Batch(refs []memory.ConversationRef) {
	f.ix.Notify(refs...)
	select {
	case f.wake <- struct{}{}:
	default: // a wake-up is pending: its part takes these too
	}
}

// Stop ends the following; it returns once no Sync runs.
func (f *Follower) Stop() {
	f.stopOnce.Do(func() { close(f.quit) })
	<-f.done
}
