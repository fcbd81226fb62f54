package dbfiles

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// A catch-up of the search index (index.Sync) that finds nothing to do
// still reads every turn's keyword mark and every conversation's last
// message: ~300 ms at 100k turns, before every search. So a catch-up that
// saw the files of the store and of its local state unchanged from start
// to end records their State (Clean.Record), and the next one, in any
// process, skips the reading while the files are still in that state.
//
// The state is read before the catch-up's queries: a commit they did not
// see came later and changed it. It holds, for the database and for the
// local state file: the database's identity and size; the WAL's identity,
// size and time (every commit goes there first, appending frames, so two
// commits within one tick of a coarse file clock still differ in size)
// and its header (a restarted WAL has new salts); see fileState for an
// empty WAL. The wal-index (-shm) is never opened: see fileState. Whatever changes the files without
// changing a row only costs one full catch-up.

// stateFormat starts a state; a new meaning of it takes a new format.
const stateFormat = "v1"

// Clean is the record of the last state a catch-up found clean, kept in a
// file; the zero value records nothing.
type Clean struct{ db, record string }

// NewClean keeps the record for the database at dbPath in the file record.
func NewClean(dbPath, record string) Clean { return Clean{db: dbPath, record: record} }

// State describes the files as they are now ("" when one cannot be read:
// it matches no record).
func (c Clean) State() string {
	if c.db == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString(stateFormat)
	for _, db := range []string{c.db, strings.TrimSuffix(c.db, ".db") + "-local.db"} {
		if !fileState(&b, db) {
			return ""
		}
	}
	return b.String()
}

// fileState describes one database. While its WAL holds frames, every
// commit changes the WAL, and a checkpoint that empties it changes the
// state too: the database file's time is left out, as checkpoints of the
// same frames write it again and again. An empty WAL (or none: processes
// create and remove it as they come and go) holds nothing, and the
// database file's time then tells whether a checkpoint wrote to it.
func fileState(b *strings.Builder, db string) bool {
	stat := func(p string) (ino uint64, size, mtime int64, ok bool) {
		fi, err := os.Stat(p)
		if os.IsNotExist(err) {
			return 0, 0, 0, true
		}
		if err != nil {
			return 0, 0, 0, false
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			ino = uint64(st.Ino)
		}
		return ino, fi.Size(), fi.ModTime().UnixNano(), true
	}
	ino, size, mtime, ok := stat(db)
	wino, wsize, wmtime, wok := stat(db + "-wal")
	if !ok || !wok {
		return false
	}
	if wsize == 0 {
		fmt.Fprintf(b, ";%d.%d.%d;-", ino, size, mtime)
		return true
	}
	fmt.Fprintf(b, ";%d.%d;%d.%d.%d", ino, size, wino, wsize, wmtime)
	// The WAL's header, and the wal-index's (its first copy): the
	// wal-index is rebuilt by every first opener and marked by readers.
	// The WAL's header only: never the wal-index (-shm). SQLite holds its
	// locks there with fcntl, which a process drops on every descriptor
	// of the file when it closes any one of them, so opening and closing
	// the -shm here would take this process's locks away from under its
	// own connections (other processes then reset the index while they
	// use it, and crash on it: SIGBUS). The WAL carries no lock. Within
	// one WAL, commits only append frames (its size grows); a restarted
	// WAL has new salts in its header.
	head, err := readHead(db+"-wal", 32)
	if err != nil && !os.IsNotExist(err) {
		return false
	}
	fmt.Fprintf(b, ";%x", head)
	return true
}

func readHead(path string, n int) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, n)
	k, err := io.ReadFull(f, buf)
	if err == io.ErrUnexpectedEOF || err == io.EOF {
		err = nil
	}
	return buf[:k], err
}

// Matches says whether state, read now, is the recorded one.
func (c Clean) Matches(state string) bool {
	if state == "" || c.record == "" {
		return false
	}
	rec, err := os.ReadFile(c.record)
	return err == nil && string(rec) == state
}

// Record records state, read before a catch-up that changed nothing. A
// failure only costs the next catch-up its reading.
func (c Clean) Record(state string) {
	if state == "" || c.record == "" {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(c.record), filepath.Base(c.record)+".*")
	if err != nil {
		return
	}
	_, err = tmp.WriteString(state)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), c.record)
	}
	if err != nil {
		os.Remove(tmp.Name())
	}
}
