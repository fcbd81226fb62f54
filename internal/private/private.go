// Package private keeps mneme's files owner-only (the database, its logs,
// the index and backups hold a person's conversations), and makes the
// throwaway dirs of runs that keep nothing.
package private

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mneme-dev/mneme/internal/flock"
)

// Dir makes dir (and its parents) if needed, and makes it owner-only when
// others can enter it (made by hand, or by an older mneme): they could
// read the files in it.
func Dir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	if fi, err := os.Stat(dir); err == nil && fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("data dir %s is readable by other users and cannot be made private: %w", dir, err)
		}
	}
	return nil
}

// Wide lists the files and directories under dir that other users may
// read or enter (mneme makes them owner-only; older versions, a copy or a
// restore may not have).
func Wide(dir string) []string {
	var wide []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if fi, err := d.Info(); err == nil && fi.Mode().Perm()&0o077 != 0 {
			wide = append(wide, p)
		}
		return nil
	})
	return wide
}

// liveLock is the file a throwaway dir's user holds locked.
const liveLock = "live.lock"

// Throwaway makes a new owner-only temporary dir named prefix…, for a run
// that keeps nothing (an incognito chat); remove closes it and removes
// it. A lock in it says it is in use: a process killed outright (SIGKILL,
// a crash) drops it, and the next Throwaway of the same prefix removes
// what that run left, which must not stay on disk. Other users' dirs are
// not readable, and are left alone.
func Throwaway(prefix string) (dir string, remove func(), err error) {
	sweep(prefix)
	dir, err = os.MkdirTemp("", prefix) // mode 0700
	if err != nil {
		return "", nil, err
	}
	// The lock is taken before the file has its name: a sweep that sees
	// the name sees it locked (one that ran first finds no lock file, and
	// leaves the dir alone).
	live, err := os.OpenFile(filepath.Join(dir, liveLock+".new"), os.O_CREATE|os.O_RDWR, 0o600)
	if err == nil && !flock.Try(live, flock.Exclusive) {
		live.Close()
		err = errors.New("cannot lock it")
	}
	if err == nil {
		if err = os.Rename(live.Name(), filepath.Join(dir, liveLock)); err != nil {
			live.Close()
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", nil, err
	}
	return dir, func() { live.Close(); os.RemoveAll(dir) }, nil
}

// sweep removes the throwaway dirs of prefix whose lock is free.
func sweep(prefix string) {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), prefix+"*"))
	for _, dir := range dirs {
		f, err := os.OpenFile(filepath.Join(dir, liveLock), os.O_RDWR, 0)
		if err != nil {
			continue // another user's, or one still being made
		}
		if flock.Try(f, flock.Exclusive) {
			os.RemoveAll(dir)
		}
		f.Close()
	}
}
