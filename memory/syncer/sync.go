// Package syncer keeps a person's memory the same on every device through
// a libSQL sync server (Turso), offline first. It reaches the store and the
// search index through the small interfaces of deps.go.
package syncer

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// The database is a go-libsql "synced database" (offline writes): reads and
// writes are always local, and a sync either pushes the WAL frames written
// here since the last sync or pulls those the server has, never both. The
// store's long-lived handle never talks to the network (memory/store.go); every
// round opens a short-lived synced connector on the same files, which syncs
// once as it opens, and closes it. go-libsql's own background sync
// (WithSyncInterval) is never used: it prints errors to stdout.
//
// When two devices both wrote while apart, the server refuses the second
// push for good (there is no merge at the page level). The Syncer then
// rebuilds: it downloads the server's database into a new replica,
// re-applies by id the rows this device wrote since its last successful
// sync (the sync log, memory/synclog.go), pushes, and swaps the new
// replica in (merge.go, memory/swap.go). After any pull the derived search
// state (the keyword index, in-memory vectors) is brought up to date
// (derived.go, index.Index.Refresh).

// DefaultSyncInterval is how often a running mneme syncs on its own.
const DefaultSyncInterval = 5 * time.Minute

// Sync timings.
const (
	defaultDebounce = 2 * time.Second  // quiet time after a local change
	maxDebounce     = 15 * time.Second // sync at the latest this long after a change
	watchEvery      = 2 * time.Second  // how often the log and the replica are checked
	probeTimeout    = 5 * time.Second  // a server slower than this to say hello counts as offline
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
	// HTTPClient is used for the reachability probe (default: 5s timeout);
	// its Transport also carries go-libsql's transfers.
	HTTPClient *http.Client
	// StallTimeout is how long a transfer may go without moving 4 KiB
	// (minProgress) before the server counts as gone (0: 30s).
	StallTimeout time.Duration
	// OnMerge, when set, is told as each attempt at a merge with a fresh
	// copy of the server's database begins (a first sync, a conflict):
	// attempt of at most attempts. It can take a while on a large memory.
	OnMerge func(attempt, attempts int)
}

// Syncer syncs a Store with a server. Its methods are safe for concurrent
// use; rounds run one at a time (and one at a time across processes on the
// same data dir).
type Syncer struct {
	store   Store
	cfg     SyncConfig
	url     string // for go-libsql and the probe: http(s), no credentials
	display string // for people: no credentials, no query
	log     *slog.Logger
	http    *http.Client
	secrets []string // redacted from every message

	roundMu sync.Mutex
	// notMerged counts the rows of this device the round's merge could not
	// copy (under roundMu).
	notMerged int
	ix        atomic.Pointer[Index]
	kick      chan struct{}

	mu        sync.Mutex
	state     syncStateFile
	pending   int
	running   bool
	known     *fingerprints // what the attached index reflects
	knownInfo replicaInfo   // the replica position when known was taken
	lastSeq   int64         // newest log entry seen by the watcher
}

// NewSyncer prepares sync for store. It does not touch the network.
func NewSyncer(store Store, cfg SyncConfig) (*Syncer, error) {
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
	if cfg.StallTimeout <= 0 {
		cfg.StallTimeout = defaultStallTimeout
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
		sy.state = syncStateFile{URL: display, Rounds: Rounds{State: SyncNever}}
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
	if port := u.Port(); port != "" {
		if p, err := strconv.Atoi(port); err != nil || p < 1 || p > 65535 {
			return "", "", fmt.Errorf("sync URL %q: bad port %q: want 1-65535", redactURL(raw), port)
		}
	} else if strings.HasSuffix(u.Host, ":") {
		return "", "", fmt.Errorf("sync URL %q: empty port", redactURL(raw))
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
	return filepath.Join(filepath.Dir(sy.store.Path()), SyncStateFileName)
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
func (sy *Syncer) AttachIndex(ctx context.Context, ix Index) error {
	fp, err := takeFingerprints(ctx, sy.store)
	if err != nil {
		return err
	}
	info, _ := readReplicaInfo(sy.store.Path())
	sy.mu.Lock()
	sy.known, sy.knownInfo = fp, info
	sy.mu.Unlock()
	sy.ix.Store(&ix)
	if !sy.store.IsReplica() {
		return nil
	}
	mark, _ := ix.ReplicaMark()
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

// index is the attached index, or nil.
func (sy *Syncer) index() Index {
	if p := sy.ix.Load(); p != nil {
		return *p
	}
	return nil
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
	st := SyncStatus{URL: sy.display, Rounds: sy.state.Rounds, Pending: sy.pending, Replica: sy.store.IsReplica()}
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
	return sy.store.CountChangedRows(ctx, wm)
}
