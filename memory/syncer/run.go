package syncer

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Trigger asks Run for a round soon (after the debounce).
func (sy *Syncer) Trigger() {
	select {
	case sy.kick <- struct{}{}:
	default:
	}
}

// Run syncs in the background until ctx ends: at once, then after local
// changes (debounced), every Interval, and sooner while offline. It also
// notices pulls made by another process (`mneme sync`) and updates the
// attached index. Errors go to the log and the status, never elsewhere.
func (sy *Syncer) Run(ctx context.Context) {
	sy.round(ctx)
	interval := sy.cfg.Interval
	var periodic <-chan time.Time
	if interval > 0 {
		t := time.NewTicker(interval)
		defer t.Stop()
		periodic = t.C
	}
	watch := time.NewTicker(watchEvery)
	defer watch.Stop()
	sy.lastSeq, _ = sy.store.MaxLogSeq(ctx)
	lastWAL := walSize(sy.store.Path())
	var dueAt, firstChange time.Time // pending debounce
	var waitingSince time.Time       // a due round waits for the index
	retry := time.Time{}
	backoff := offlineRetryMin
	for {
		select {
		case <-ctx.Done():
			return
		case <-sy.kick:
			now := time.Now()
			if firstChange.IsZero() {
				firstChange = now
			}
			dueAt = now.Add(sy.cfg.Debounce)
		case <-periodic:
			dueAt = time.Now()
		case <-watch.C:
			now := time.Now()
			// A local write: a row (the sync log grew) or derived state
			// such as turns and vectors (only the WAL grew).
			seq, err := sy.store.MaxLogSeq(ctx)
			if wal := walSize(sy.store.Path()); (err == nil && seq != sy.lastSeq) || wal != lastWAL {
				sy.lastSeq, lastWAL = seq, wal
				if firstChange.IsZero() {
					firstChange = now
				}
				dueAt = now.Add(sy.cfg.Debounce)
				sy.refreshPending(ctx)
			}
			if err := sy.catchUpIndex(ctx); err != nil {
				sy.log.Debug("sync: index catch-up", "err", err)
			}
			if !retry.IsZero() && now.After(retry) && dueAt.IsZero() {
				dueAt = now
			}
		}
		now := time.Now()
		if dueAt.IsZero() || (now.Before(dueAt) && (firstChange.IsZero() || now.Sub(firstChange) < maxDebounce)) {
			continue
		}
		if sy.indexBusy(ctx) {
			// Let the index derive turns and vectors first, so that they
			// travel with the rows: a device that pulls rows without them
			// derives them too, and two devices writing the same derived
			// rows is a conflict.
			if waitingSince.IsZero() {
				waitingSince = now
			}
			if now.Sub(waitingSince) < maxIndexWait {
				dueAt = now.Add(indexPoll)
				continue
			}
		}
		dueAt, firstChange, waitingSince = time.Time{}, time.Time{}, time.Time{}
		err := sy.round(ctx)
		switch {
		case errors.Is(err, ErrSyncOffline):
			retry = time.Now().Add(backoff)
			backoff = min(2*backoff, max(interval, offlineRetryMin))
		default:
			retry, backoff = time.Time{}, offlineRetryMin
		}
		sy.lastSeq, _ = sy.store.MaxLogSeq(ctx)
		lastWAL = walSize(sy.store.Path())
	}
}

// indexBusy reports whether the attached index still has work on rows
// written here: turns to derive, text to put in the keyword index, vectors
// to compute (while the embedding model answers).
func (sy *Syncer) indexBusy(ctx context.Context) bool {
	ix := sy.index()
	if ix == nil {
		return false
	}
	what, n := ix.Backlog(ctx)
	if n == 0 {
		return false
	}
	sy.log.Debug("sync: waiting for the index", "work", what, "n", n)
	ix.Notify() // the work may come from a writer that did not tell it
	return true
}

func (sy *Syncer) round(ctx context.Context) error {
	_, err := sy.SyncNow(ctx)
	return err
}

// Bounds of AfterChange.
const (
	afterChangeWait = 10 * time.Second
	// slowNotice is how long a command waits for the server in silence.
	slowNotice = 2 * time.Second
	// downWindow is how long after a failed round AfterChange waits only
	// slowNotice: not the whole wait again on every command while the
	// server is down.
	downWindow = 5 * time.Minute
)

// AfterChange syncs a command's change (a turn, a note, an import) while
// the command waits, within afterChangeWait (ctx ends the wait: Ctrl+C
// leaves the change for the next sync), and tells the user through say
// when it waits for the server and when it gave up (the change is kept
// and synced later). It returns the round's error.
func (sy *Syncer) AfterChange(ctx context.Context, say func(string)) error {
	wait := afterChangeWait
	st := sy.Status(ctx)
	down := (st.State == SyncOffline || st.State == SyncError) && st.LastAttempt != nil && time.Since(*st.LastAttempt) < downWindow
	if down {
		wait = slowNotice
	}
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	slow := time.AfterFunc(slowNotice, func() {
		if !down {
			say("waiting for the sync server (Ctrl+C leaves the change for the next sync)…")
		}
	})
	err := sy.Final(ctx)
	slow.Stop()
	switch {
	case errors.Is(err, ErrSyncOffline):
		say("the sync server is not answering; the change is kept here and synced later (mneme sync --status)")
	case errors.Is(err, context.DeadlineExceeded):
		say(fmt.Sprintf("the sync did not finish within %d s; the change is kept here and synced later (mneme sync --status)", int(wait.Seconds())))
	}
	return err
}

// Final syncs once more if anything is pending, within ctx (callers bound
// it), for use at exit. It returns the round's error.
func (sy *Syncer) Final(ctx context.Context) error {
	sy.refreshPending(ctx)
	sy.mu.Lock()
	pending := sy.pending
	sy.mu.Unlock()
	if pending == 0 && sy.store.IsReplica() && !sy.ahead() {
		return nil
	}
	done := make(chan error, 1)
	go func() { done <- sy.round(ctx) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		// The round's transfer ends with ctx (the relay cuts it); its
		// local work may outlast it: leave that to the exit.
		sy.log.Info("sync: exit without waiting for the last sync", "pending", pending)
		return ctx.Err()
	}
}
