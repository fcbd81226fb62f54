package syncserver

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	libsql "github.com/tursodatabase/go-libsql"
)

// replica is a go-libsql synced database on disk. Every sync opens a
// short-lived connector on the files (go-libsql syncs once when it opens),
// as mneme does.
type replica struct {
	t    *testing.T
	path string
	url  string
}

func (r replica) sync() error {
	c, err := libsql.NewSyncedDatabaseConnector(r.path, r.url)
	if err != nil {
		return err
	}
	return c.Close()
}

func (r replica) exec(q string, args ...any) {
	r.t.Helper()
	db := r.open()
	defer db.Close()
	if _, err := db.Exec(q, args...); err != nil {
		r.t.Fatal(err)
	}
}

func (r replica) count() int {
	r.t.Helper()
	db := r.open()
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM t").Scan(&n); err != nil {
		r.t.Fatal(err)
	}
	return n
}

// open opens the replica without syncing (an address that refuses
// connections makes go-libsql's sync at open a no-op).
func (r replica) open() *sql.DB {
	r.t.Helper()
	c, err := libsql.NewSyncedDatabaseConnector(r.path, "http://127.0.0.1:0")
	if err != nil {
		r.t.Fatal(err)
	}
	return sql.OpenDB(c)
}

func TestReplicasExchangeRowsAndConflict(t *testing.T) {
	s := New(t)
	dir := t.TempDir()
	a := replica{t, filepath.Join(dir, "a.db"), s.URL}
	b := replica{t, filepath.Join(dir, "b.db"), s.URL}
	if err := a.sync(); err != nil { // bootstraps from the empty export
		t.Fatal(err)
	}
	a.exec("CREATE TABLE t (id TEXT PRIMARY KEY, v TEXT)")
	a.exec("INSERT INTO t VALUES ('a1', 'from a')")
	if err := a.sync(); err != nil {
		t.Fatal(err)
	}
	if s.Frames() == 0 {
		t.Fatal("A's push stored no frames")
	}
	if err := b.sync(); err != nil {
		t.Fatal(err)
	}
	if n := b.count(); n != 1 {
		t.Fatalf("B has %d rows after pulling", n)
	}
	b.exec("INSERT INTO t VALUES ('b1', 'from b')")
	if err := b.sync(); err != nil {
		t.Fatal(err)
	}
	if err := a.sync(); err != nil {
		t.Fatal(err)
	}
	if n := a.count(); n != 2 {
		t.Fatalf("A has %d rows after pulling", n)
	}

	// Down: go-libsql reports nothing (a push that cannot connect is
	// "nothing to do"), which is why mneme probes the server itself.
	s.Down()
	a.exec("INSERT INTO t VALUES ('a2', 'offline')")
	b.exec("INSERT INTO t VALUES ('b2', 'offline')")
	if err := a.sync(); err != nil {
		t.Fatalf("sync with the server down: %v", err)
	}
	if err := s.Up(); err != nil {
		t.Fatal(err)
	}
	if err := a.sync(); err != nil {
		t.Fatal(err)
	}
	// B wrote too: its push is refused, and stays refused.
	for i := 0; i < 2; i++ {
		if err := b.sync(); err == nil || !strings.Contains(err.Error(), "conflict") {
			t.Fatalf("B's sync after both wrote: %v", err)
		}
	}
	if s.Conflicts() != 2 {
		t.Fatalf("conflicts = %d", s.Conflicts())
	}
	// A fresh replica gets everything A pushed.
	c := replica{t, filepath.Join(dir, "c.db"), s.URL}
	if err := c.sync(); err != nil {
		t.Fatal(err)
	}
	if n := c.count(); n != 3 {
		t.Fatalf("a new replica has %d rows", n)
	}
}

func TestTokenRequired(t *testing.T) {
	s := New(t)
	s.Token = "secret"
	r := replica{t, filepath.Join(t.TempDir(), "r.db"), s.URL}
	if err := r.sync(); err == nil {
		t.Fatal("bootstrap without the token succeeded")
	}
	c, err := libsql.NewSyncedDatabaseConnector(r.path, s.URL, libsql.WithAuthToken("secret"))
	if err != nil {
		t.Fatal(err)
	}
	c.Close()
}
