// Package dbfiles watches a database's files by identity: go-libsql closes
// its files in the background after Close returns, and moving or reopening
// them before then leaves a handle on the wrong files.
package dbfiles

import (
	"os"
	"runtime"
	"syscall"
	"time"
)

// ID identifies a file whatever its name.
type ID struct{ dev, ino uint64 }

// IDs identifies a database's files (database, WAL, WAL index).
func IDs(path string) []ID {
	var out []ID
	for _, suf := range []string{"", "-wal", "-shm"} {
		if fi, err := os.Stat(path + suf); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				out = append(out, ID{uint64(st.Dev), uint64(st.Ino)})
			}
		}
	}
	return out
}

// closeWait bounds how long Wait waits.
const closeWait = 3 * time.Second

// Watch waits for this process's file descriptors on some files to close.
type Watch struct {
	ids      map[ID]bool
	baseline map[string]bool // descriptors not to wait for
}

// WatchAll starts a watch that waits for every descriptor on ids.
func WatchAll(ids []ID) *Watch {
	w := &Watch{ids: map[ID]bool{}, baseline: map[string]bool{}}
	for _, id := range ids {
		w.ids[id] = true
	}
	return w
}

// Open lists the descriptors open on the files (none where /proc is missing).
func (w *Watch) Open() []string {
	if runtime.GOOS != "linux" || len(w.ids) == 0 {
		return nil
	}
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		fi, err := os.Stat("/proc/self/fd/" + e.Name())
		if err != nil {
			continue
		}
		if st, ok := fi.Sys().(*syscall.Stat_t); ok && w.ids[ID{uint64(st.Dev), uint64(st.Ino)}] {
			out = append(out, e.Name())
		}
	}
	return out
}

// Wait returns once no descriptor but the baseline is open on the files.
// Where descriptors cannot be listed (no /proc), it waits a fixed while.
func (w *Watch) Wait() {
	if len(w.ids) == 0 {
		return
	}
	if runtime.GOOS != "linux" {
		time.Sleep(300 * time.Millisecond)
		return
	}
	deadline := time.Now().Add(closeWait)
	for time.Now().Before(deadline) {
		extra := false
		for _, fd := range w.Open() {
			if !w.baseline[fd] {
				extra = true
				break
			}
		}
		if !extra {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// WaitClosed waits until this process has no descriptor open on ids.
func WaitClosed(ids []ID) { WatchAll(ids).Wait() }
