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
// size and time (every commit goes there first) and its header (a
// restarted WAL has new salts); the wal-index (-shm) header, whose change
// counter and last valid frame move with every commit, so that two
// commits within one tick of a coarse file clock still differ. Whatever
// changes the files without changing a row only costs one full catch-up.

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
	local := strings.TrimSuffix(c.db, ".db") + "-local.db"
	for _, db := range []string{c.db, local} {
		for _, suf := range []string{"", "-wal", "-shm"} {
			fi, err := os.Stat(db + suf)
			if os.IsNotExist(err) {
				b.WriteString(";-")
				continue
			}
			if err != nil {
				return ""
			}
			var ino uint64
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				ino = uint64(st.Ino)
			}
			switch suf {
			case "": // every commit goes to the WAL; checkpoints write here again and again
				fmt.Fprintf(&b, ";%d.%d", ino, fi.Size())
			case "-wal":
				fmt.Fprintf(&b, ";%d.%d.%d", ino, fi.Size(), fi.ModTime().UnixNano())
			} // the wal-index is rewritten by every first opener and marked by readers: only its header counts
			// The WAL's header; the wal-index's (its first copy).
			if head := map[string]int{"-wal": 32, "-shm": 48}[suf]; head > 0 {
				h, err := readHead(db+suf, head)
				if err != nil {
					return ""
				}
				fmt.Fprintf(&b, ";%x", h)
			}
		}
	}
	return b.String()
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
