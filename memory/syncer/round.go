package syncer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
	libsql "github.com/tursodatabase/go-libsql"
)

// SyncReport says what a round moved.
type SyncReport struct {
	// Pushed counts local rows sent to the server.
	Pushed int `json:"pushed"`
	// Received describes what arrived from other devices.
	Received Changes `json:"received"`
	// Merged is set when the round rebuilt the replica from the server: a
	// conflict (both sides wrote while apart) or a plain database's first sync.
	Merged    bool `json:"merged,omitempty"`
	Conflict  bool `json:"conflict,omitempty"`
	Reapplied int  `json:"reapplied,omitempty"`
	// NotMerged counts rows of this device a merge could not copy (the
	// log says which and why; the database before the merge stays in
	// sync-backup/ until the next one).
	NotMerged int           `json:"not_merged,omitempty"`
	Duration  time.Duration `json:"duration_ns"`
}

// String is one line about the round for people.
func (r SyncReport) String() string {
	var parts []string
	switch {
	case r.Conflict && r.Received.Empty():
		// Nothing arrived from another device: the server was ahead with
		// this device's own changes (a push whose answer was lost).
		parts = append(parts, fmt.Sprintf("the server already had this device's last push (its answer was lost): rebuilt from the server and re-applied %d local changes", r.Reapplied))
	case r.Conflict && r.Reapplied == 0:
		// Nothing of this device's to re-apply: it did not write meanwhile.
		parts = append(parts, "the server's copy had moved on from this one (another device joined or rebuilt it): rebuilt from the server; no local change was waiting")
	case r.Conflict:
		parts = append(parts, fmt.Sprintf("both devices wrote while apart: rebuilt from the server and re-applied %d local changes", r.Reapplied))
	case r.Merged:
		parts = append(parts, fmt.Sprintf("joined the synced memory: copied %d local rows into it", r.Reapplied))
	case r.Pushed > 0:
		parts = append(parts, fmt.Sprintf("sent %d local changes", r.Pushed))
	}
	if s := r.Received.String(); s != "" {
		parts = append(parts, "received "+s)
	}
	if r.NotMerged > 0 {
		parts = append(parts, fmt.Sprintf("%s of this device could not be merged (mneme.log says which; the database before the merge is in sync-backup/ until the next one)",
			text.Count(r.NotMerged, "row", "rows")))
	}
	if len(parts) == 0 {
		return "already up to date"
	}
	return strings.Join(parts, "; ")
}

// SyncNow runs one round: it pushes local changes or pulls remote ones,
// resolves a conflict by rebuilding, and updates the attached index. An
// unreachable server gives an error wrapping ErrSyncOffline.
func (sy *Syncer) SyncNow(ctx context.Context) (rep SyncReport, err error) {
	sy.roundMu.Lock()
	defer sy.roundMu.Unlock()
	start := time.Now()
	sy.setRunning(true)
	defer func() {
		rep.Duration = time.Since(start)
		sy.finish(ctx, start, rep, err)
	}()
	if sy.cfg.EncryptionKey {
		return rep, memory.ErrEncryptedReplica
	}
	lctx, cancel := context.WithTimeout(ctx, syncLockWait)
	lock, err := sy.store.LockSync(lctx)
	cancel()
	if err != nil {
		return rep, fmt.Errorf("sync: waiting for another mneme's sync: %w", err)
	}
	defer lock.Close()
	sy.reloadState()
	if err := sy.probe(ctx); err != nil {
		return rep, err
	}
	if !sy.store.IsReplica() {
		return sy.rebuild(ctx, true)
	}
	if err := sy.catchUpIndex(ctx); err != nil {
		sy.log.Warn("sync: index catch-up", "err", err)
	}
	sy.mu.Lock()
	wm := sy.state.Watermark
	sy.mu.Unlock()

	// In-process writers wait while go-libsql inserts pulled frames (its
	// connection has no busy timeout), and while the store is described
	// before and after, so that what changed came from the server.
	var pre, post *fingerprints
	var pendingBefore int
	var maxSeq int64
	var infoBefore, infoAfter replicaInfo
	err = sy.store.HoldWrites(func() (err error) {
		pre, post, pendingBefore, maxSeq, infoBefore, infoAfter, err = sy.exchange(ctx, wm)
		return err
	})
	if isConflict(err) {
		sy.log.Info("sync: conflict: both this device and another wrote since the last sync; rebuilding from the server", "pending", pendingBefore)
		return sy.rebuild(ctx, false)
	}
	if err != nil {
		return rep, err
	}
	rep.Received = diffFingerprints(pre, post)
	moved := infoAfter != infoBefore
	if pendingBefore > 0 && !moved {
		// Nothing went out although rows were pending: either another
		// process pushed them already, or the server went away during the
		// round (go-libsql reports a push that cannot connect as success).
		if err := sy.probe(ctx); err != nil {
			return rep, err
		}
	}
	if moved && rep.Received.Empty() {
		rep.Pushed = pendingBefore
	}
	sy.mu.Lock()
	sy.state.Watermark = maxSeq
	sy.mu.Unlock()
	if moved {
		sy.afterPull(ctx, pre, post, infoAfter)
	}
	// The log is never pruned here: deleting entries is a write, which
	// would make this device "ahead" after every sync and turn the other
	// device's next push into a conflict. It grows by one short row per
	// row written.
	return rep, nil
}

// exchange runs go-libsql's sync on the store's files and describes the
// store before and after. The caller holds the store's writes.
func (sy *Syncer) exchange(ctx context.Context, watermark int64) (pre, post *fingerprints, pending int, maxSeq int64, before, after replicaInfo, err error) {
	if pre, err = takeFingerprints(ctx, sy.store); err != nil {
		return
	}
	if pending, err = sy.store.CountChangedRows(ctx, watermark); err != nil {
		return
	}
	before, _ = readReplicaInfo(sy.store.Path())
	if err = sy.syncFiles(ctx, sy.store.Path()); err != nil {
		switch {
		case errors.Is(err, ErrSyncOffline): // it says which server, and how
		case errors.Is(err, ErrSyncLocked) || ctx.Err() != nil:
			err = fmt.Errorf("sync: %w", err)
		case !isConflict(err):
			err = fmt.Errorf("sync: %s", sy.cleanError(err))
		}
		return
	}
	after, _ = readReplicaInfo(sy.store.Path())
	if maxSeq, err = sy.store.MaxLogSeq(ctx); err != nil {
		return
	}
	post, err = takeFingerprints(ctx, sy.store)
	return
}

// reloadState takes the state file's watermark: another process (`mneme
// sync` beside a running chat) may have synced since this one last did.
// Rounds hold the sync lock, so the file is not being written.
func (sy *Syncer) reloadState() {
	st, err := readSyncState(sy.statePath())
	if err != nil || st.URL != sy.display {
		return
	}
	sy.mu.Lock()
	if st.Watermark > sy.state.Watermark {
		sy.state.Watermark = st.Watermark
	}
	if st.LastSuccess != nil && (sy.state.LastSuccess == nil || st.LastSuccess.After(*sy.state.LastSuccess)) {
		sy.state.LastSuccess = st.LastSuccess
	}
	if st.LastConflict != nil && (sy.state.LastConflict == nil || st.LastConflict.After(*sy.state.LastConflict)) {
		sy.state.LastConflict, sy.state.Message = st.LastConflict, st.Message
	}
	sy.mu.Unlock()
}

// ahead reports whether the replica may hold frames the server lacks
// (derived rows such as turns and vectors are not in the sync log). It
// errs on the side of yes.
func (sy *Syncer) ahead() bool {
	info, ok := readReplicaInfo(sy.store.Path())
	if !ok {
		return true
	}
	return walSize(sy.store.Path()) > 32+info.DurableFrameNo*walFrameSize
}

// walFrameSize is a WAL frame: a 24-byte header and a 4096-byte page.
const walFrameSize = 24 + 4096

func walSize(path string) int64 {
	fi, err := os.Stat(path + "-wal")
	if err != nil {
		return 0
	}
	return fi.Size()
}

// Retries of a go-libsql sync that finds the database locked.
const (
	lockAttempts   = 8
	lockBackoff    = 50 * time.Millisecond
	maxLockBackoff = time.Second // 3.55 s of waiting in all
)

// syncFiles runs go-libsql's sync on the replica at path (see
// syncFilesOnce), again while it fails because the database is locked:
// up to lockAttempts times with a growing wait between, ending early with
// ctx's error when ctx ends.
//
// go-libsql's sync runs on a connection of its own, which it opens inside
// the native library (libsql's sync_offline: db.connect()) and which
// Go never sees: neither go-libsql nor libsql's C API offers a way to set
// its busy_timeout, and SQLite has no process-wide default. So where every
// connection of the store waits up to busyTimeoutMS for a lock, this one
// fails at once with "database is locked"; the retry stands in for the
// busy handler it lacks. ctx ends a call's transfer (syncFilesOnce's
// relay) and the waits between attempts.
func (sy *Syncer) syncFiles(ctx context.Context, path string) error {
	wait := lockBackoff
	for attempt := 1; ; attempt++ {
		err := sy.syncFilesOnce(ctx, path)
		if err == nil || !isLocked(err) {
			return err
		}
		if attempt == lockAttempts {
			return fmt.Errorf("%w (%d attempts): %s", ErrSyncLocked, attempt, sy.cleanError(err))
		}
		// Which connections hold the lock cannot be asked of SQLite; the
		// descriptors this process has on the files say whether it is
		// one of ours.
		sy.log.Info("sync: database is locked; trying again", "attempt", attempt, "wait", wait,
			"file", filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), "open_here", memory.OpenHere(path))
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for the database lock: %w", ctx.Err())
		case <-time.After(wait):
		}
		wait = min(2*wait, maxLockBackoff)
	}
}

// syncFilesOnce runs one go-libsql sync on the replica at path: it opens a
// synced connector (which bootstraps a missing replica from the server and
// then pushes or pulls) and closes it. It talks to the server through a
// relay: a transfer the server cut or left silent, or ctx ending, ends the
// call with an error (go-libsql alone would wait for ever, or take a
// download cut half-way for one that was complete).
func (sy *Syncer) syncFilesOnce(ctx context.Context, path string) error {
	r, err := startRelay(ctx, sy.url, sy.cfg.Token, sy.http.Transport, sy.cfg.StallTimeout)
	if err != nil {
		return err
	}
	c, err := libsql.NewSyncedDatabaseConnector(path, r.url, libsql.WithAuthToken(r.key))
	if err == nil {
		err = c.Close()
	}
	cut := r.Close()
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case cut != nil:
		return fmt.Errorf("%w: %s stopped answering during the sync (%s)", ErrSyncOffline, sy.display, sy.cleanError(cut))
	case err != nil && strings.Contains(err.Error(), "invalid length of frames"):
		// A pull whose answer the server cut where its length was not
		// given (the relay saw it end): frames came in part.
		return fmt.Errorf("%w: %s cut its answer during the sync", ErrSyncOffline, sy.display)
	}
	return err
}

// isLocked reports whether go-libsql's sync failed on a lock another
// connection holds: SQLITE_BUSY on a read or a write ("database is
// locked"), or, for a pull, the write lock of another writer, which
// libsql reports as "wal_insert_begin failed" (tested: a transaction held
// open with BEGIN IMMEDIATE gives exactly that).
func isLocked(err error) bool {
	if err == nil {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "database is locked") || strings.Contains(msg, "wal_insert_begin failed")
}

func isConflict(err error) bool { return err != nil && strings.Contains(err.Error(), "conflict") }

// probe checks that the server answers and accepts the token. go-libsql
// treats an unreachable server as "nothing to sync", so this is how a
// round knows it is offline.
func (sy *Syncer) probe(parent context.Context) error {
	ctx, cancel := context.WithTimeout(parent, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, sy.url+"/info", nil)
	if err != nil {
		return err
	}
	if sy.cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+sy.cfg.Token)
	}
	resp, err := sy.http.Do(req)
	if err != nil && parent.Err() != nil {
		return parent.Err() // stopped or out of time, not offline
	}
	if err != nil {
		return fmt.Errorf("%w: %s", ErrSyncOffline, sy.display)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return fmt.Errorf("%w (HTTP %d): create one with `turso db tokens create` and run `mneme sync init`", ErrSyncAuth, resp.StatusCode)
	case resp.StatusCode/100 != 2:
		return fmt.Errorf("sync server %s answered HTTP %d", sy.display, resp.StatusCode)
	}
	var info struct {
		Generation *int64 `json:"current_generation"`
	}
	if json.Unmarshal(body, &info) != nil || info.Generation == nil {
		return fmt.Errorf("sync server %s does not speak the libSQL sync protocol (GET /info)", sy.display)
	}
	return nil
}

func (sy *Syncer) setRunning(v bool) {
	sy.mu.Lock()
	sy.running = v
	sy.mu.Unlock()
}

// finish records the outcome of a round in the state file and the log.
func (sy *Syncer) finish(ctx context.Context, start time.Time, rep SyncReport, err error) {
	ctx = context.WithoutCancel(ctx)
	sy.refreshPending(ctx)
	sy.mu.Lock()
	now := time.Now()
	sy.running = false
	sy.state.URL = sy.display
	wasDown, downSince := sy.state.State == SyncOffline || sy.state.State == SyncError, sy.state.LastAttempt
	sy.state.LastAttempt = &start
	switch {
	case errors.Is(err, context.DeadlineExceeded) && wasDown:
		// Out of the short wait a command gives a server found silent:
		// still down, since the round that found it so, so that the next
		// commands wait as short (they waited 5 s every other time).
		sy.state.LastAttempt = downSince
	case err == nil:
		sy.state.LastSuccess = &now
		sy.state.LastError = ""
		sy.state.State = SyncSynced
		if sy.pending > 0 {
			sy.state.State = SyncPending
		}
		if rep.Conflict {
			sy.state.LastConflict = &now
		}
		if rep.Conflict || rep.Merged {
			sy.state.Message = rep.String()
		} else if sy.state.Message != "" && sy.state.LastConflict != nil && now.Sub(*sy.state.LastConflict) > time.Hour {
			sy.state.Message = ""
		}
	case errors.Is(err, ErrSyncOffline):
		sy.state.State = SyncOffline
		sy.state.LastError = sy.redact(err.Error())
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		// Stopped (Ctrl+C, the chat closing) or out of the time a command
		// gives it: not a failure of sync's.
		sy.state.State = SyncInterrupted
		sy.state.LastError = "stopped before the end (interrupted, or out of time); the next sync does it again"
	case errors.Is(err, memory.ErrBusy):
		// A merge waits for the other mnemes on this device to close.
		sy.state.State = SyncPending
		sy.state.LastError = sy.redact(err.Error())
	default:
		sy.state.State = SyncError
		sy.state.LastError = sy.redact(err.Error())
	}
	st := sy.state
	sy.mu.Unlock()
	if werr := writeSyncState(sy.statePath(), st); werr != nil {
		sy.log.Warn("sync: state file", "err", werr)
	}
	switch {
	case err == nil && rep.Pushed == 0 && rep.Received.Empty() && !rep.Merged:
		sy.log.Debug("sync: up to date", "url", sy.display, "took", rep.Duration.Round(time.Millisecond))
	case err == nil:
		sy.log.Info("sync: done", "url", sy.display, "summary", rep.String(), "pending", sy.pending, "took", rep.Duration.Round(time.Millisecond))
	case errors.Is(err, ErrSyncOffline):
		sy.log.Info("sync: offline", "url", sy.display)
	case errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		sy.log.Info("sync: interrupted", "url", sy.display, "err", err)
	default:
		sy.log.Warn("sync: failed", "url", sy.display, "err", sy.redact(err.Error()))
	}
}
