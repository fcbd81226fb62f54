package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	libsql "github.com/tursodatabase/go-libsql"
)

// Sync keeps a person's memory the same on every device through a libSQL
// sync server (Turso), offline first.
//
// The database is a go-libsql "synced database" (offline writes): reads and
// writes are always local, and a sync either pushes the WAL frames written
// here since the last sync or pulls those the server has, never both. The
// store's long-lived handle never talks to the network (store.go); every
// round opens a short-lived synced connector on the same files, which syncs
// once as it opens, and closes it. go-libsql's own background sync
// (WithSyncInterval) is never used: it prints errors to stdout.
//
// When two devices both wrote while apart, the server refuses the second
// push for good (there is no merge at the page level). The Syncer then
// rebuilds: it downloads the server's database into a new replica,
// re-applies by id the rows this device wrote since its last successful
// sync (the sync log, sync_log.go), pushes, and swaps the new replica in
// (sync_merge.go, sync_swap.go). After any pull the derived search state
// (the keyword index, in-memory vectors) is brought up to date
// (sync_derived.go).

var (
	// ErrEncryptedReplica is returned when encryption at rest and sync are
	// both asked for: go-libsql's synced databases ignore the encryption
	// key (the WAL they ship stays plain text), so mneme refuses rather
	// than pretend.
	ErrEncryptedReplica = errors.New("encryption at rest cannot be combined with sync in this build: go-libsql's synced databases are not encrypted; unset the encryption key or the sync URL")
	// ErrBadKey is returned when the database cannot be read with the key given (or without one).
	ErrBadKey = errors.New("cannot read the database")
	// ErrSyncOffline is returned when the sync server cannot be reached.
	ErrSyncOffline = errors.New("sync server unreachable")
	// ErrSyncAuth is returned when the sync server refuses the token.
	ErrSyncAuth = errors.New("the sync server refused the token")
)

// DefaultSyncInterval is how often a running mneme syncs on its own.
const DefaultSyncInterval = 5 * time.Minute

// Sync timings.
const (
	defaultDebounce = 2 * time.Second  // quiet time after a local change
	maxDebounce     = 15 * time.Second // sync at the latest this long after a change
	watchEvery      = 2 * time.Second  // how often the log and the replica are checked
	probeTimeout    = 10 * time.Second
	offlineRetryMin = 15 * time.Second
	mergeAttempts   = 3
	syncLockWait    = 2 * time.Minute  // for another process's round
	maxIndexWait    = 30 * time.Second // longest a push waits for the index
	indexPoll       = 500 * time.Millisecond
)

// SyncConfig configures a Syncer.
type SyncConfig struct {
	// URL is the server: libsql://, https:// or http:// (tests).
	URL string
	// Token authenticates (Turso: `turso db tokens create`); it is never
	// logged or shown.
	Token string
	// Interval is how often Run syncs; 0 means DefaultSyncInterval, a
	// negative value turns periodic sync off.
	Interval time.Duration
	// Debounce is the quiet time after a local change before Run syncs (0: 2s).
	Debounce time.Duration
	// EncryptionKey is set when the store is encrypted at rest, which
	// sync refuses (ErrEncryptedReplica). Only its presence is used.
	EncryptionKey bool
	Log           *slog.Logger
	// HTTPClient is used for the reachability probe (default: 10s timeout).
	HTTPClient *http.Client
}

// Syncer syncs a Store with a server. Its methods are safe for concurrent
// use; rounds run one at a time (and one at a time across processes on the
// same data dir).
type Syncer struct {
	store   *Store
	cfg     SyncConfig
	url     string // for go-libsql and the probe: http(s), no credentials
	display string // for people: no credentials, no query
	log     *slog.Logger
	http    *http.Client
	secrets []string // redacted from every message

	roundMu sync.Mutex
	ix      atomic.Pointer[Index]
	kick    chan struct{}

	mu        sync.Mutex
	state     syncStateFile
	pending   int
	running   bool
	known     *fingerprints // what the attached index reflects
	knownInfo replicaInfo   // the replica position when known was taken
	lastSeq   int64         // newest log entry seen by the watcher
}

// NewSyncer prepares sync for store. It does not touch the network.
func NewSyncer(store *Store, cfg SyncConfig) (*Syncer, error) {
	u, display, err := NormalizeSyncURL(cfg.URL)
	if err != nil {
		return nil, err
	}
	if cfg.Interval == 0 {
		cfg.Interval = DefaultSyncInterval
	}
	if cfg.Debounce <= 0 {
		cfg.Debounce = defaultDebounce
	}
	sy := &Syncer{store: store, cfg: cfg, url: u, display: display, log: cfg.Log, http: cfg.HTTPClient,
		kick: make(chan struct{}, 1)}
	if sy.log == nil {
		sy.log = slog.New(slog.DiscardHandler)
	}
	if sy.http == nil {
		sy.http = &http.Client{Timeout: probeTimeout}
	}
	if cfg.Token != "" {
		sy.secrets = append(sy.secrets, cfg.Token)
	}
	if parsed, err := url.Parse(cfg.URL); err == nil {
		if p, ok := parsed.User.Password(); ok && p != "" {
			sy.secrets = append(sy.secrets, p)
		}
		for _, vs := range parsed.Query() {
			sy.secrets = append(sy.secrets, vs...)
		}
	}
	sy.state, _ = readSyncState(sy.statePath())
	if sy.state.URL != display {
		// Another server: what was known about the old one does not hold.
		sy.state = syncStateFile{URL: display, State: SyncNever}
	}
	sy.refreshPending(context.Background())
	return sy, nil
}

// NormalizeSyncURL checks a sync server address and returns the form
// go-libsql is given (libsql:// becomes https://, credentials and query
// dropped) and the form shown to people.
func NormalizeSyncURL(raw string) (syncURL, display string, err error) {
	raw = strings.TrimSpace(raw)
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "", "", fmt.Errorf("sync URL %q: want libsql://HOST or https://HOST", redactURL(raw))
	}
	switch u.Scheme {
	case "libsql", "https":
		u.Scheme = "https"
	case "http":
	default:
		return "", "", fmt.Errorf("sync URL %q: scheme must be libsql, https or http", redactURL(raw))
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	u.Path = strings.TrimRight(u.Path, "/")
	return u.String(), u.String(), nil
}

// redactURL drops credentials and the query from a URL for messages.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable)"
	}
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return u.String()
}

func (sy *Syncer) statePath() string {
	return filepath.Join(filepath.Dir(sy.store.path), SyncStateFileName)
}

// URL is the server address as shown to people.
func (sy *Syncer) URL() string { return sy.display }

// redact removes the token (and any credential of the URL) from s.
func (sy *Syncer) redact(s string) string {
	for _, sec := range sy.secrets {
		if len(sec) >= 4 {
			s = strings.ReplaceAll(s, sec, "[redacted]")
		}
	}
	return s
}

// cleanError makes a go-libsql or HTTP error a one-line message without secrets.
func (sy *Syncer) cleanError(err error) string {
	msg := err.Error()
	// go-libsql: "failed to sync database \nerror code = 1: Error syncing database: sync error: ..."
	if i := strings.LastIndex(msg, "sync error: "); i >= 0 {
		msg = msg[i+len("sync error: "):]
	}
	msg = strings.Join(strings.Fields(msg), " ")
	return sy.redact(msg)
}

// AttachIndex makes rounds keep ix up to date with what they pull. It
// remembers what ix reflects now; if the replica moved while no index was
// attached (another process pulled and could not update it), the keyword
// index is brought up to date now.
func (sy *Syncer) AttachIndex(ctx context.Context, ix *Index) error {
	fp, err := takeFingerprints(ctx, sy.store)
	if err != nil {
		return err
	}
	info, _ := readReplicaInfo(sy.store.path)
	sy.mu.Lock()
	sy.known, sy.knownInfo = fp, info
	sy.mu.Unlock()
	sy.ix.Store(ix)
	if !sy.store.IsReplica() {
		return nil
	}
	mark, _ := ix.kw.Meta(kwMetaSyncMark)
	switch mark {
	case info.String():
		return nil
	case "":
		// Never marked: the index was made before this device synced (its
		// first sync updates it) or is new (the worker indexes everything).
		sy.noteKnown(ctx, fp, info)
		return nil
	}
	// Pulled without this index: make sure everything in the store is in it.
	sy.log.Info("sync: bringing the keyword index up to date with the replica", "mark", mark, "replica", info.String())
	return sy.reconcileAll(ctx, ix, info)
}

// Status reports the state of sync; it counts pending rows in the store.
func (sy *Syncer) Status(ctx context.Context) SyncStatus {
	sy.refreshPending(ctx)
	return sy.snapshot()
}

// Label is Status().Label() without touching the store, for status bars.
func (sy *Syncer) Label() string { return sy.snapshot().Label() }

func (sy *Syncer) snapshot() SyncStatus {
	sy.mu.Lock()
	defer sy.mu.Unlock()
	st := SyncStatus{
		URL: sy.display, State: sy.state.State, Pending: sy.pending, Replica: sy.store.IsReplica(),
		LastAttempt: sy.state.LastAttempt, LastSuccess: sy.state.LastSuccess, LastError: sy.state.LastError,
		LastConflict: sy.state.LastConflict, Message: sy.state.Message,
	}
	if st.State == "" {
		st.State = SyncNever
	}
	if sy.running {
		st.State = SyncRunning
	} else if st.State == SyncSynced && st.Pending > 0 {
		st.State = SyncPending
	} else if st.State == SyncPending && st.Pending == 0 {
		st.State = SyncSynced
	}
	if ro := sy.store.ReadOnlyReason(); ro != nil {
		st.State, st.LastError = SyncError, ro.Error()
	}
	return st
}

// refreshPending counts the rows written here that the server lacks.
func (sy *Syncer) refreshPending(ctx context.Context) {
	n, err := sy.countPending(ctx)
	if err != nil {
		sy.log.Debug("sync: pending count", "err", err)
		return
	}
	sy.mu.Lock()
	sy.pending = n
	sy.mu.Unlock()
}

func (sy *Syncer) countPending(ctx context.Context) (int, error) {
	if !sy.store.IsReplica() {
		// A plain database: everything in it goes to the server at the
		// first sync.
		return countTrackedRows(ctx, sy.store)
	}
	sy.mu.Lock()
	wm := sy.state.Watermark
	sy.mu.Unlock()
	return sy.store.countChangedRows(ctx, wm)
}

// SyncReport says what a round moved.
type SyncReport struct {
	// Pushed counts local rows sent to the server.
	Pushed int `json:"pushed"`
	// Received describes what arrived from other devices.
	Received Changes `json:"received"`
	// Merged is set when the round rebuilt the replica from the server: a
	// conflict (both sides wrote while apart) or a plain database's first sync.
	Merged    bool          `json:"merged,omitempty"`
	Conflict  bool          `json:"conflict,omitempty"`
	Reapplied int           `json:"reapplied,omitempty"`
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
		return rep, ErrEncryptedReplica
	}
	lctx, cancel := context.WithTimeout(ctx, syncLockWait)
	lock, err := sy.store.lockSync(lctx)
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
	sy.store.writeMu.Lock()
	pre, post, pendingBefore, maxSeq, infoBefore, infoAfter, err := sy.exchange(ctx, wm)
	sy.store.writeMu.Unlock()
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
// store before and after. The caller holds writeMu.
func (sy *Syncer) exchange(ctx context.Context, watermark int64) (pre, post *fingerprints, pending int, maxSeq int64, before, after replicaInfo, err error) {
	if pre, err = takeFingerprints(ctx, sy.store); err != nil {
		return
	}
	if pending, err = sy.store.countChangedRows(ctx, watermark); err != nil {
		return
	}
	before, _ = readReplicaInfo(sy.store.path)
	if err = sy.syncFiles(ctx, sy.store.path); err != nil {
		switch {
		case errors.Is(err, ErrSyncLocked) || ctx.Err() != nil:
			err = fmt.Errorf("sync: %w", err)
		case !isConflict(err):
			err = fmt.Errorf("sync: %s", sy.cleanError(err))
		}
		return
	}
	after, _ = readReplicaInfo(sy.store.path)
	if maxSeq, err = sy.store.maxLogSeq(ctx); err != nil {
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
	info, ok := readReplicaInfo(sy.store.path)
	if !ok {
		return true
	}
	return walSize(sy.store.path) > 32+info.DurableFrameNo*walFrameSize
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
// busy handler it lacks. A go-libsql call in progress cannot be
// interrupted; the waits between attempts can.
func (sy *Syncer) syncFiles(ctx context.Context, path string) error {
	wait := lockBackoff
	for attempt := 1; ; attempt++ {
		err := sy.syncFilesOnce(path)
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
			"file", filepath.Base(filepath.Dir(path))+"/"+filepath.Base(path), "open_here", len(watchAll(fileIDs(path)).open()))
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
// then pushes or pulls) and closes it.
func (sy *Syncer) syncFilesOnce(path string) error {
	var opts []libsql.Option
	if sy.cfg.Token != "" {
		opts = append(opts, libsql.WithAuthToken(sy.cfg.Token))
	}
	c, err := libsql.NewSyncedDatabaseConnector(path, sy.url, opts...)
	if err != nil {
		return err
	}
	return c.Close()
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
func (sy *Syncer) probe(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, sy.url+"/info", nil)
	if err != nil {
		return err
	}
	if sy.cfg.Token != "" {
		req.Header.Set("Authorization", "Bearer "+sy.cfg.Token)
	}
	resp, err := sy.http.Do(req)
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
	sy.state.LastAttempt = &start
	switch {
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
	default:
		sy.log.Warn("sync: failed", "url", sy.display, "err", sy.redact(err.Error()))
	}
}

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
	sy.lastSeq, _ = sy.store.maxLogSeq(ctx)
	lastWAL := walSize(sy.store.path)
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
			seq, err := sy.store.maxLogSeq(ctx)
			if wal := walSize(sy.store.path); (err == nil && seq != sy.lastSeq) || wal != lastWAL {
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
		sy.lastSeq, _ = sy.store.maxLogSeq(ctx)
		lastWAL = walSize(sy.store.path)
	}
}

// indexBusy reports whether the attached index still has work on rows
// written here: turns to derive, text to put in the keyword index, vectors
// to compute (while the embedding model answers).
func (sy *Syncer) indexBusy(ctx context.Context) bool {
	ix := sy.ix.Load()
	if ix == nil {
		return false
	}
	busy := func(what string, n int, err error) bool {
		if err != nil || n == 0 {
			return false
		}
		sy.log.Debug("sync: waiting for the index", "work", what, "n", n)
		ix.Notify() // the work may come from a writer that did not tell it
		return true
	}
	stale, err := sy.store.StaleConversations(ctx)
	if busy("turns", len(stale), err) {
		return true
	}
	turns, err := sy.store.TurnsNeedingKeywordIndex(ctx, "", 1)
	if busy("turn keywords", len(turns), err) {
		return true
	}
	notes, err := sy.store.notesNeedingKeywordIndex(ctx, 1)
	if busy("note keywords", len(notes), err) {
		return true
	}
	model := ix.EmbedModelName()
	if model == "" || ix.EmbedError() != nil {
		return false
	}
	n, err := sy.store.CountTurnsNeedingEmbedding(ctx, model)
	if busy("turn vectors", n, err) {
		return true
	}
	notes, err = sy.store.notesNeedingEmbedding(ctx, model, 1)
	return busy("note vectors", len(notes), err)
}

func (sy *Syncer) round(ctx context.Context) error {
	_, err := sy.SyncNow(ctx)
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
		// go-libsql's sync cannot be cancelled: leave it to the exit.
		sy.log.Info("sync: exit without waiting for the last sync", "pending", pending)
		return ctx.Err()
	}
}
