// Package dbconn is mneme's go-libsql connector: every connection gets
// the encryption key, a busy timeout, foreign keys and the local state
// file, and the connections are counted so that the database under them
// can be replaced (a sync's swap).
package dbconn

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// BusyTimeoutMS is how long a connection waits for another process's writer.
const BusyTimeoutMS = 10_000

// New wraps base; key is the encryption key ("" for none), local the
// local state file attached to every connection as "local" ("" for none).
func New(base driver.Connector, key, local string) *Connector {
	return &Connector{base: base, key: key, local: local}
}

// Lock holds new connections back while the base is replaced; Live says
// how many are still open on the old one.
func (c *Connector) Lock() { c.mu.Lock() }

// Unlock lets connections be made again.
func (c *Connector) Unlock() { c.mu.Unlock() }

// Live is how many connections are open on the base.
func (c *Connector) Live() int64 { return c.live.Load() }

// Base is the go-libsql connector (the caller holds Lock to replace it).
func (c *Connector) Base() driver.Connector { return c.base }

// SetBase replaces the go-libsql connector; the caller holds Lock.
func (c *Connector) SetBase(base driver.Connector) { c.base = base }

// FileDSN is the DSN of the database file at path, with query (such as
// "mode=ro"; "" for none). The path is escaped as an SQLite URI's: a "?"
// or "#" in a folder's name started the query or the fragment (the
// database of ~/C#/mneme was ~/C), "%" began an escape, and a control
// character or a byte that is not UTF-8 (a folder named in Latin-1) was
// refused by go-libsql's URL parser.
func FileDSN(path, query string) string {
	var b strings.Builder
	b.WriteString("file:")
	for i := 0; i < len(path); i++ {
		switch c := path[i]; {
		case c == '%' || c == '?' || c == '#' || c < 0x20 || c >= 0x7f: // and bytes of another encoding than UTF-8
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			b.WriteByte(c)
		}
	}
	if query != "" {
		b.WriteString("?" + query)
	}
	return b.String()
}

// Open opens go-libsql's connector for a DSN.
func Open(dsn string) (driver.Connector, error) {
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
	return dc.OpenConnector(dsn)
}

// Connector wraps go-libsql's connector so that every pooled connection
// gets the encryption key and a busy_timeout (DSN parameters are ignored by
// go-libsql). Its base can be replaced while the store is open (the
// store's swap), so it counts the connections it handed out.
type Connector struct {
	mu    sync.RWMutex // held for writing while the base is replaced
	base  driver.Connector
	key   string
	local string       // the local state file attached as "local" (local.go); "" for none
	live  atomic.Int64 // connections open on base
}

func (c *Connector) Connect(ctx context.Context) (driver.Conn, error) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	conn, err := c.base.Connect(ctx)
	// Connecting to a replica can meet a lock held by a sync inserting
	// frames (go-libsql has no busy timeout there): wait as a query would.
	for deadline := time.Now().Add(BusyTimeoutMS * time.Millisecond); err != nil &&
		strings.Contains(err.Error(), "database is locked") && time.Now().Before(deadline); {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
		conn, err = c.base.Connect(ctx)
	}
	if err != nil {
		return nil, err
	}
	if c.key != "" {
		// Must come first. The error would quote the statement, and with
		// it the key: say nothing about it.
		if err := Pragma(ctx, conn, "PRAGMA hexkey = '"+hex.EncodeToString([]byte(c.key))+"'"); err != nil {
			conn.Close()
			return nil, errors.New("the encryption key was not accepted")
		}
	}
	for _, p := range []string{
		fmt.Sprintf("PRAGMA busy_timeout = %d", BusyTimeoutMS),
		"PRAGMA foreign_keys = ON",
	} {
		if err := Pragma(ctx, conn, p); err != nil {
			conn.Close()
			return nil, fmt.Errorf("%s: %w", p, err)
		}
	}
	if c.local != "" {
		if err := attachLocal(ctx, conn, c.local); err != nil {
			conn.Close()
			return nil, fmt.Errorf("attach local state: %w", err)
		}
	}
	c.live.Add(1)
	return &countedConn{Conn: conn, c: c}, nil
}

// countedConn is a go-libsql connection that tells its connector when it
// closes. It forwards every interface go-libsql's connection implements.
type countedConn struct {
	driver.Conn
	c      *Connector
	closed atomic.Bool
}

func (cc *countedConn) Close() error {
	if cc.closed.CompareAndSwap(false, true) {
		defer cc.c.live.Add(-1)
	}
	return cc.Conn.Close()
}

func (cc *countedConn) ExecContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Result, error) {
	return cc.Conn.(driver.ExecerContext).ExecContext(ctx, q, args)
}

func (cc *countedConn) QueryContext(ctx context.Context, q string, args []driver.NamedValue) (driver.Rows, error) {
	return cc.Conn.(driver.QueryerContext).QueryContext(ctx, q, args)
}

func (cc *countedConn) PrepareContext(ctx context.Context, q string) (driver.Stmt, error) {
	return cc.Conn.(driver.ConnPrepareContext).PrepareContext(ctx, q)
}

func (cc *countedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return cc.Conn.(driver.ConnBeginTx).BeginTx(ctx, opts)
}

// Pragma runs a PRAGMA on a raw connection. Some pragmas answer with a row,
// which go-libsql's Exec rejects, so it is run as a query and drained.
func Pragma(ctx context.Context, conn driver.Conn, stmt string) error {
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

func (c *Connector) Driver() driver.Driver {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return c.base.Driver()
}

// Close releases the native database handle once database/sql is done with it.
func (c *Connector) Close() error {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return CloseBase(c.base)
}

// CloseBase releases a go-libsql connector's native handle.
func CloseBase(base driver.Connector) error {
	if cl, ok := base.(io.Closer); ok {
		return cl.Close()
	}
	return nil
}

// attachLocal attaches the local state file (as "local") to a new connection.
func attachLocal(ctx context.Context, conn driver.Conn, path string) error {
	ex, ok := conn.(driver.ExecerContext)
	if !ok {
		return fmt.Errorf("libsql connection cannot execute")
	}
	// As a URI, as the main database is opened: a path that is not UTF-8
	// could not be bound as text.
	_, err := ex.ExecContext(ctx, `ATTACH DATABASE ? AS local`, []driver.NamedValue{{Ordinal: 1, Value: FileDSN(path, "")}})
	return err
}
