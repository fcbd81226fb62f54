// Package memory owns mneme's local libSQL database: schema migrations,
// users, conversations and messages. Every query is scoped by user.
package memory

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mneme-dev/mneme/memory/internal/dbconn"
	"github.com/mneme-dev/mneme/memory/internal/dbfiles"
	"github.com/mneme-dev/mneme/memory/internal/sqlq"

	"github.com/google/uuid"
	libsql "github.com/tursodatabase/go-libsql" // also registers the "libsql" driver
)

// DBFileName is the database file inside the data dir.
const DBFileName = "mneme.db"

// busyTimeoutMS is how long a connection waits for another process's writer.
const busyTimeoutMS = dbconn.BusyTimeoutMS

// Store is the libSQL-backed store. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string
	// writeMu serialises this process's write transactions so they never
	// fight each other for the lock; busy_timeout covers other processes.
	writeMu sync.Mutex
	now     func() time.Time

	conn *dbconn.Connector
	key  string // encryption key at rest ("" for none); never logged
	// onWait is told when Open waits for another process (WithLockWait).
	onWait func()
	// readIfNewer opens a database of a newer schema read-only instead of
	// refusing it (ReadOnlyIfNewer).
	readIfNewer bool
	// replica is true when the file is a libSQL sync replica (it has a
	// <db>-info file beside it), false for a plain local database.
	replica atomic.Bool
	// readOnly, when set, is why writes are refused (a newer mneme's
	// schema arrived through sync).
	readOnly atomic.Pointer[error]
	lock     *dbfiles.Lock // shared while open; see swap.go
	swapMu   sync.Mutex    // held while the files are being replaced
	closing  atomic.Bool   // set by Close: no swap starts after it
}

// Option configures a Store.
type Option func(*Store)

// WithClock sets the clock used for timestamps (tests).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// WithEncryptionKey encrypts the database file at rest with key (SQLite3
// Multiple Ciphers inside libSQL, through PRAGMA hexkey on every
// connection). An existing database must have been created with the same
// key. A sync replica cannot be encrypted: see ErrEncryptedReplica.
func WithEncryptionKey(key string) Option { return func(s *Store) { s.key = key } }

// WithLockWait makes Open call said once if it has to wait for another
// process (a sync merge replacing the files), so that the user is told at
// once why nothing happens.
func WithLockWait(said func()) Option {
	return func(s *Store) { s.onWait = sync.OnceFunc(said) }
}

// ReadOnlyIfNewer opens a database written by a newer mneme (one with a
// migration this build does not know) read-only, for the commands that
// only read, instead of failing with ErrSchemaTooNew: every write then
// fails with ReadOnlyReason, which wraps ErrSchemaTooNew.
func ReadOnlyIfNewer() Option { return func(s *Store) { s.readIfNewer = true } }

// Open opens (creating if needed) the database at path and migrates it.
//
// A database with a <path>-info file beside it is a libSQL sync replica: it
// is opened through go-libsql's synced connector (whose files must never be
// touched by a plain SQLite connection, which would checkpoint the WAL that
// sync ships), with an address that is never reachable, so that opening
// never waits on or fails with the network. Syncing is the Syncer's job
// (memory/syncer). Any other database is a plain local file.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	s := &Store{path: path, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	// Wait a while for a merge in another process (it holds the lock exclusive).
	lctx, cancel := context.WithTimeout(ctx, openLockWait)
	lock, err := openLock(lctx, path, s.onWait)
	if err != nil && lctx.Err() != nil {
		err = fmt.Errorf("database is being merged by another mneme process: %w", ErrBusy)
	}
	cancel()
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	s.lock = lock
	if err := s.open(ctx); err != nil {
		lock.Close()
		return nil, err
	}
	return s, nil
}

// open opens the connector for the files at s.path, then migrates.
func (s *Store) open(ctx context.Context) error {
	replica := isReplica(s.path)
	if replica && s.key != "" {
		return fmt.Errorf("open store: %s is a sync replica, which cannot be encrypted: unset the encryption key (%w)", s.path, ErrEncryptedReplica)
	}
	if !replica {
		if err := s.checkReadable(ctx, s.path); err != nil {
			return fmt.Errorf("open store: %w", err)
		}
	}
	base, err := openBase(ctx, s.path, replica)
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	s.replica.Store(replica)
	s.conn = dbconn.New(base, s.key, LocalPath(s.path))
	s.db = sql.OpenDB(s.conn)
	if err := s.journalWAL(ctx, "main"); err != nil {
		return s.failOpen(ctx, s.explainOpenError(err))
	}
	if err := s.openLocal(ctx); err != nil {
		return s.failOpen(ctx, err)
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return fmt.Errorf("open store: %w", err)
	}
	if replica && s.ReadOnlyReason() == nil {
		if err := s.ensureSyncTriggers(ctx); err != nil {
			s.db.Close()
			return fmt.Errorf("open store: %w", err)
		}
	}
	return nil
}

// checkReadable reads an existing database through a read-only connection
// with the key (if any) before anything opens it for writing. A connection
// that cannot decrypt the file must never be the one that checkpoints the
// WAL when it closes: it would write pages it decrypted wrongly (tested:
// a wrong-key open racing a close destroyed the database). Read-only
// connections never checkpoint.
func (s *Store) checkReadable(ctx context.Context, path string) error {
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		return nil // nothing to protect yet
	}
	base, err := dbconn.Open(dbconn.FileDSN(path, "mode=ro"))
	if err != nil {
		return err
	}
	defer dbconn.CloseBase(base)
	probe := dbconn.New(base, s.key, "")
	conn, err := probe.Connect(ctx)
	if err != nil {
		return s.explainOpenError(err)
	}
	defer conn.Close()
	if err := dbconn.Pragma(ctx, conn, "SELECT COUNT(*) FROM sqlite_master"); err != nil {
		return s.explainOpenError(err)
	}
	return nil
}

// failOpen closes what open opened and returns err, unless a damaged local
// state file (local.go: a rebuildable bookkeeping) failed it: that is set
// aside, once no other mneme has it open, and the store opened again.
// Checked on a failure only: on every open it cost each command 8 ms.
func (s *Store) failOpen(ctx context.Context, err error) error {
	s.db.Close()
	local := LocalPath(s.path)
	if lerr := s.checkReadable(ctx, local); lerr == nil || !errors.Is(lerr, ErrBadKey) && !strings.Contains(lerr.Error(), "malformed") {
		return fmt.Errorf("open store: %w", err) // the local state reads: not it
	}
	if !s.lock.TryExclusive() {
		return fmt.Errorf("open store: %s, this device's search bookkeeping, is damaged: close the other mneme processes and run again, and it is made anew", local)
	}
	err = setAside(local)
	s.lock.Shared()
	if err != nil {
		return fmt.Errorf("open store: %w", err)
	}
	return s.open(ctx)
}

// setAside renames a damaged local state file under its time (an earlier
// one is kept too), and drops its WAL.
func setAside(local string) error {
	os.Remove(local + "-wal")
	os.Remove(local + "-shm")
	return os.Rename(local, local+".damaged-"+time.Now().Format("20060102-150405"))
}

// explainOpenError turns SQLite's "file is not a database" into advice
// about the encryption key (which it never names).
func (s *Store) explainOpenError(err error) error {
	if !strings.Contains(err.Error(), "file is not a database") {
		return err
	}
	if s.key != "" {
		return fmt.Errorf("%w: the encryption key does not open %s (wrong key, or the database was created without encryption)", ErrBadKey, s.path)
	}
	return fmt.Errorf("%w: %s is encrypted (set MNEME_ENCRYPTION_KEY) or is not a database", ErrBadKey, s.path)
}

// offlineURL is a sync address that refuses connections at once. The
// synced connector syncs when it is opened and treats a refused
// connection as "nothing to do", so the long-lived handle opens offline.
const offlineURL = "http://127.0.0.1:0"

// isReplica reports whether path is a libSQL sync replica.
func isReplica(path string) bool {
	if _, err := os.Stat(path + "-info"); err != nil {
		return false
	}
	if _, err := os.Stat(path); err != nil {
		// Metadata without a database (a crash while bootstrapping): the
		// connector refuses it, so start over as a plain database.
		os.Remove(path + "-info")
		return false
	}
	return true
}

// openBase opens go-libsql's connector for path.
func openBase(ctx context.Context, path string, replica bool) (driver.Connector, error) {
	if !replica {
		return dbconn.Open(dbconn.FileDSN(path, ""))
	}
	// Opening syncs (offline: nothing to do), which meets a lock held by
	// another process's writer or sync with no busy timeout: wait for it,
	// as a query would, instead of failing the command.
	deadline := time.Now().Add(dbconn.BusyTimeoutMS * time.Millisecond)
	for {
		c, err := libsql.NewSyncedDatabaseConnector(path, offlineURL)
		if err == nil || !strings.Contains(err.Error(), "database is locked") || time.Now().After(deadline) {
			return c, err
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// Path is the database file path.
func (s *Store) Path() string { return s.path }

// IsReplica reports whether the database is a sync replica.
func (s *Store) IsReplica() bool { return s.replica.Load() }

// Close closes the database. (go-libsql closes the files in the
// background, shortly after.)
func (s *Store) Close() error {
	// A swap of the files (swap.go) finishes first; none starts after.
	s.closing.Store(true)
	s.swapMu.Lock()
	defer s.swapMu.Unlock()
	err := s.db.Close()
	if s.lock != nil {
		s.lock.Close()
	}
	return err
}

// SetReadOnly makes every later write fail with err (nil allows writes
// again): sync stops writes when a newer mneme's schema arrived.
func (s *Store) SetReadOnly(err error) {
	if err == nil {
		s.readOnly.Store(nil)
		return
	}
	s.readOnly.Store(&err)
}

// ReadOnlyReason is why writes are refused, or nil.
func (s *Store) ReadOnlyReason() error {
	if p := s.readOnly.Load(); p != nil {
		return *p
	}
	return nil
}

// Execer is what a write transaction body may use.
type Execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// write runs fn in a BEGIN IMMEDIATE transaction on one pinned connection,
// serialised within the process. IMMEDIATE takes the write lock up front,
// so a transaction that reads before it writes waits on busy_timeout instead
// of failing with "database is locked" when another process writes.
func (s *Store) write(ctx context.Context, fn func(tx Execer) error) (err error) {
	if ro := s.ReadOnlyReason(); ro != nil {
		return ro
	}
	return s.transact(ctx, fn)
}

// writeLocal is write for local state only (local.go), which a read-only
// store (a newer mneme's schema) still keeps.
func (s *Store) writeLocal(ctx context.Context, fn func(tx Execer) error) error {
	return s.transact(ctx, fn)
}

// WriteLocal is Write for tables of the local state only (local.*), which
// a read-only store still keeps.
func (s *Store) WriteLocal(ctx context.Context, fn func(tx Execer) error) error {
	return s.writeLocal(ctx, fn)
}

func (s *Store) transact(ctx context.Context, fn func(tx Execer) error) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	conn, err := s.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		return err
	}
	if err := fn(conn); err != nil {
		// Roll back even if ctx was cancelled, or the connection stays in a transaction.
		conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return err
	}
	if _, err := conn.ExecContext(context.WithoutCancel(ctx), "COMMIT"); err != nil {
		conn.ExecContext(context.WithoutCancel(ctx), "ROLLBACK")
		return err
	}
	return nil
}

// Write runs fn in a write transaction: BEGIN IMMEDIATE on one
// connection, serialised with this process's other writes, refused while
// the store is read-only. Sync's merge writes rows of any table with it.
func (s *Store) Write(ctx context.Context, fn func(tx Execer) error) error { return s.write(ctx, fn) }

// DB is the database handle, for reads no method covers: sync reads the
// rows of every table by name. It stays the same when sync replaces the
// files. Write with Write.
func (s *Store) DB() *sql.DB { return s.db }

// Now is the store's clock.
func (s *Store) Now() time.Time { return s.now() }

// ChangeMark describes the database files as they are now: it differs
// from an earlier mark once any process has committed a write (a commit
// appends to the WAL; a checkpoint writes the database file). It only
// stats the files, so it is cheap enough to poll.
func (s *Store) ChangeMark() string {
	var b strings.Builder
	for _, p := range []string{s.path, s.path + "-wal"} {
		if fi, err := os.Stat(p); err == nil {
			fmt.Fprintf(&b, "%d.%d;", fi.Size(), fi.ModTime().UnixNano())
		} else {
			b.WriteString("-;")
		}
	}
	return b.String()
}

// NewID returns a new globally unique, time-ordered id (UUIDv7).
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

func (s *Store) nowMS() int64 { return s.now().UnixMilli() }

func fromMS(ms int64) time.Time { return time.UnixMilli(ms) }

// rowScanner is what scan functions read a row from.
type rowScanner interface{ Scan(...any) error }

// queryRows runs q and scans every row with scan.
func queryRows[T any](ctx context.Context, db Execer, scan func(rowScanner) (T, error), q string, args ...any) ([]T, error) {
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// byID maps rows by their id.
func byID[T any](rows []T, id func(T) string) map[string]T {
	out := make(map[string]T, len(rows))
	for _, r := range rows {
		out[id(r)] = r
	}
	return out
}

// idSet runs q, which selects one id column, and returns the ids as a set.
func (s *Store) idSet(ctx context.Context, q string, args ...any) (map[string]bool, error) {
	ids, err := sqlq.Strings(s.db.QueryContext(ctx, q, args...))
	out := make(map[string]bool, len(ids))
	for _, id := range ids {
		out[id] = true
	}
	return out, err
}

// count runs q, which selects one number; what names it in an error.
func (s *Store) count(ctx context.Context, what, q string, args ...any) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("%s: %w", what, err)
	}
	return n, nil
}

// journalWAL puts schema's file in WAL mode. SQLite answers a journal mode
// change with "database is locked" at once, without its busy handler, while
// another process creates or changes the same file (several mneme
// processes starting on a new data dir), so it is tried again for as long
// as busy_timeout.
func (s *Store) journalWAL(ctx context.Context, schema string) error {
	deadline := time.Now().Add(busyTimeoutMS * time.Millisecond)
	for {
		var mode string
		err := s.db.QueryRowContext(ctx, "PRAGMA "+schema+".journal_mode=WAL").Scan(&mode)
		if err == nil || !strings.Contains(err.Error(), "database is locked") || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}
