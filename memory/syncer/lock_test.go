package syncer

import (
	"context"
	"errors"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/syncserver"
	"github.com/mneme-dev/mneme/memory"
)

// lockSignal is a log handler that reports each "database is locked"
// retry of a sync on a channel.
type lockSignal struct{ retries chan int }

func (h *lockSignal) Enabled(context.Context, slog.Level) bool { return true }
func (h *lockSignal) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h *lockSignal) WithGroup(string) slog.Handler            { return h }
func (h *lockSignal) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, "database is locked") {
		select {
		case h.retries <- 1:
		default:
		}
	}
	return nil
}

// lockedPull prepares B with a conversation to pull from A, gives B a
// Syncer whose retries are signalled, and takes B's write lock through a
// connection of its own (as another process's writer would).
func lockedPull(t *testing.T) (b *syncDevice, sig *lockSignal, release func()) {
	t.Helper()
	ctx := context.Background()
	srv := syncserver.New(t)
	a := newSyncDevice(t, "A", srv, "")
	b = newSyncDevice(t, "B", srv, "")
	chat(t, a.store, "alice", "First", "a kitten named Pixel", "cute")
	a.drain()
	a.sync()
	b.sync()
	b.drain()
	chat(t, a.store, "alice", "Second", "the engine of my car", "noisy")
	a.drain()
	a.sync()

	sig = &lockSignal{retries: make(chan int, 1)}
	sy, err := NewSyncer(b.store, SyncConfig{URL: srv.URL, Log: slog.New(sig)})
	if err != nil {
		t.Fatal(err)
	}
	if err := sy.AttachIndex(ctx, b.ix); err != nil {
		t.Fatal(err)
	}
	b.sy = sy
	conn, err := b.store.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	var done bool
	release = func() {
		if !done {
			done = true
			conn.ExecContext(ctx, "ROLLBACK")
			conn.Close()
		}
	}
	t.Cleanup(release)
	return b, sig, release
}

type syncResult struct {
	rep SyncReport
	err error
	at  time.Time
}

func syncAsync(ctx context.Context, sy *Syncer) chan syncResult {
	out := make(chan syncResult, 1)
	go func() {
		rep, err := sy.SyncNow(ctx)
		out <- syncResult{rep, err, time.Now()}
	}()
	return out
}

// waitRetry waits for the sync to report that it found the database
// locked; the sync must not have finished before.
func waitRetry(t *testing.T, sig *lockSignal, res chan syncResult) {
	t.Helper()
	select {
	case <-sig.retries:
	case r := <-res:
		t.Fatalf("the sync ended without meeting the lock: %+v, %v", r.rep, r.err)
	case <-time.After(time.Minute):
		t.Fatal("no retry within a minute")
	}
}

// TestSyncRetriesWhileLocked: a pull that finds the database locked by
// another writer (go-libsql's sync connection has no busy timeout) waits
// and tries again, and the conversation arrives once the lock is gone.
func TestSyncRetriesWhileLocked(t *testing.T) {
	b, sig, release := lockedPull(t)
	res := syncAsync(context.Background(), b.sy)
	waitRetry(t, sig, res)
	release()
	r := <-res
	if r.err != nil {
		t.Fatalf("sync after the lock went: %v", r.err)
	}
	if r.rep.Received.Conversations != 1 {
		t.Fatalf("received %+v", r.rep.Received)
	}
	if got := b.titles(); !slices.Equal(got, []string{"First", "Second"}) {
		t.Fatalf("B lists %q", got)
	}
}

// TestSyncLockedGivesUp: a lock that never goes ends the sync with
// ErrSyncLocked after the bounded retries, and a later sync succeeds.
func TestSyncLockedGivesUp(t *testing.T) {
	b, _, release := lockedPull(t)
	start := time.Now()
	_, err := b.sy.SyncNow(context.Background())
	if !errors.Is(err, ErrSyncLocked) {
		t.Fatalf("sync under a lasting lock: %v", err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("gave up after %s", d)
	}
	if st := b.sy.Status(context.Background()); st.State != SyncError || !strings.Contains(st.LastError, "locked") {
		t.Fatalf("status %+v", st)
	}
	release()
	if rep := b.sync(); rep.Received.Conversations != 1 {
		t.Fatalf("received %+v", rep.Received)
	}
}

// TestSyncLockedCancel: cancelling (SIGINT in `mneme sync`) while a sync
// waits for a lock ends it within 2 s; nothing is lost for the next sync.
func TestSyncLockedCancel(t *testing.T) {
	b, sig, release := lockedPull(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	res := syncAsync(ctx, b.sy)
	waitRetry(t, sig, res)
	cancelled := time.Now()
	cancel()
	var r syncResult
	select {
	case r = <-res:
	case <-time.After(10 * time.Second):
		t.Fatal("the sync did not end within 10 s of the cancel")
	}
	if d := r.at.Sub(cancelled); d > 2*time.Second {
		t.Fatalf("the sync ended %s after the cancel", d)
	}
	if !errors.Is(r.err, context.Canceled) {
		t.Fatalf("cancelled sync: %v", r.err)
	}
	release()
	if rep := b.sync(); rep.Received.Conversations != 1 {
		t.Fatalf("received %+v", rep.Received)
	}
	if got := b.titles(); !slices.Equal(got, []string{"First", "Second"}) {
		t.Fatalf("B lists %q", got)
	}
}

// TestOpenReplicaWaitsForAWriter: opening a synced store while another
// process writes to it waits for the writer, as every query does, instead
// of failing with go-libsql's "failed to sync database: database is
// locked" (a memory add lost beside a chat and a sync).
func TestOpenReplicaWaitsForAWriter(t *testing.T) {
	ctx := context.Background()
	srv := syncserver.New(t)
	a := newSyncDevice(t, "A", srv, "")
	chat(t, a.store, "alice", "First", "a kitten named Pixel", "cute")
	a.drain()
	a.sync()
	path := a.store.Path()
	if !a.store.IsReplica() {
		t.Fatal("not a replica after sync")
	}
	conn, err := a.store.DB().Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var mode string
	if err := conn.QueryRowContext(ctx, "PRAGMA main.locking_mode = EXCLUSIVE").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.ExecContext(ctx, "BEGIN EXCLUSIVE"); err != nil {
		t.Fatal(err)
	}
	// While another process's sync inserting frames holds the file (an
	// exclusive lock stands in for it), an open waits (here until its
	// deadline) rather than failing at once.
	short, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
	_, err = memory.Open(short, path)
	cancel()
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("open beside a writer: %v, want it to wait", err)
	}
	conn.ExecContext(ctx, "ROLLBACK")
	// The exclusive lock goes with the next read in normal locking mode.
	if err := conn.QueryRowContext(ctx, "PRAGMA main.locking_mode = NORMAL").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRowContext(ctx, "SELECT COUNT(*) FROM sqlite_master").Scan(new(int)); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	s, err := memory.Open(ctx, path)
	if err != nil {
		t.Fatalf("open once the writer is done: %v", err)
	}
	s.Close()
}
