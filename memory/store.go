// Package memory owns mneme's local libSQL database: schema migrations,
// users, conversations and messages. Every query is scoped by user.
package memory

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/google/uuid"
	_ "github.com/tursodatabase/go-libsql" // registers the "libsql" driver
)

// DBFileName is the database file inside the data dir.
const DBFileName = "mneme.db"

// busyTimeoutMS is how long a connection waits for another process's writer.
const busyTimeoutMS = 10_000

// Store is the libSQL-backed store. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string
	// writeMu serialises this process's write transactions so they never
	// fight each other for the lock; busy_timeout covers other processes.
	writeMu sync.Mutex
	now     func() time.Time
}

// Option configures a Store.
type Option func(*Store)

// WithClock sets the clock used for timestamps (tests).
func WithClock(now func() time.Time) Option { return func(s *Store) { s.now = now } }

// Open opens (creating if needed) the database at path and migrates it.
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	conn, err := openConnector("file:" + path)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	s := &Store{db: sql.OpenDB(conn), path: path, now: time.Now}
	for _, o := range opts {
		o(s)
	}
	var mode string
	if err := s.db.QueryRowContext(ctx, "PRAGMA journal_mode=WAL").Scan(&mode); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("open store: wal: %w", err)
	}
	if err := s.migrate(ctx); err != nil {
		s.db.Close()
		return nil, fmt.Errorf("open store: %w", err)
	}
	return s, nil
}

// Path is the database file path.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }

// openConnector wraps go-libsql's connector so that every pooled connection
// gets a busy_timeout (DSN parameters are ignored by go-libsql).
func openConnector(dsn string) (driver.Connector, error) {
	probe, err := sql.Open("libsql", dsn)
	if err != nil {
		return nil, err
	}
	drv := probe.Driver()
	probe.Close()
	dc, ok := drv.(driver.DriverContext)
	if !ok {
		return nil, errors.New("libsql driver has no connector")
	}
	base, err := dc.OpenConnector(dsn)
	if err != nil {
		return nil, err
	}
	return &pragmaConnector{base: base}, nil
}

type pragmaConnector struct{ base driver.Connector }

func (c *pragmaConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.base.Connect(ctx)
	if err != nil {
		return nil, err
	}
	for _, p := range []string{
		fmt.Sprintf("PRAGMA busy_timeout = %d", busyTimeoutMS),
		"PRAGMA foreign_keys = ON",
	} {
		if err := pragma(ctx, conn, p); err != nil {
			conn.Close()
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	return conn, nil
}

// pragma runs a PRAGMA on a raw connection. Some pragmas answer with a row,
// which go-libsql's Exec rejects, so it is run as a query and drained.
func pragma(ctx context.Context, conn driver.Conn, stmt string) error {
	q, ok := conn.(driver.QueryerContext)
	if !ok {
		return errors.New("libsql connection cannot query")
	}
	rows, err := q.QueryContext(ctx, stmt, nil)
	if err != nil {
		return err
	}
	defer rows.Close()
	dest := make([]driver.Value, len(rows.Columns()))
	for rows.Next(dest) == nil {
	}
	return nil
}

func (c *pragmaConnector) Driver() driver.Driver { return c.base.Driver() }

// Close releases the native database handle once database/sql is done with it.
func (c *pragmaConnector) Close() error {
	if cl, ok := c.base.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

// execer is what a write transaction body may use.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// write runs fn in a BEGIN IMMEDIATE transaction on one pinned connection,
// serialised within the process. IMMEDIATE takes the write lock up front,
// so a transaction that reads before it writes waits on busy_timeout instead
// of failing with "database is locked" when another process writes.
func (s *Store) write(ctx context.Context, fn func(tx execer) error) (err error) {
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

// NewID returns a new globally unique, time-ordered id (UUIDv7).
func NewID() string { return uuid.Must(uuid.NewV7()).String() }

func (s *Store) nowMS() int64 { return s.now().UnixMilli() }

func fromMS(ms int64) time.Time { return time.UnixMilli(ms) }
