package dbfiles

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// A swap replaces the database files at a path with others (a sync
// merge's result): the old files move to a backup directory, then the new
// ones in. A marker in the backup directory says how far it got, so that
// whatever stops it (a failed rename, a crash) is rolled back, at once or
// when the database is next opened (Recover), never leaving a mix.

// Suffixes are the files of a replica: the database, its WAL (which holds
// every change since the generation began), the WAL index and the sync
// metadata.
var Suffixes = []string{"", "-wal", "-shm", "-info"}

// markerName is in the backup directory while a swap moves files. It
// holds "1" while the old files move out, then "2" and the old files'
// names ("db", "db-wal", …) while the new ones move in. A bare "2" (an
// older mneme's) stands for every file.
const markerName = "SWAPPING"

// Swap is a replacement under way: Done keeps the new files, Undo puts the
// old ones back.
type Swap struct {
	path, backup, marker string
	old                  []string // suffixes of the old files, in the backup
}

// Replace moves the files at path to backupDir (emptied first) and those at
// newPath in their place (its WAL index is dropped: rebuilt on open). On
// failure the old files are back at path and no marker is left.
func Replace(path, newPath, backupDir string) (*Swap, error) {
	return replace(path, newPath, backupDir, os.Rename)
}

// replace is Replace with its renames done by rename.
func replace(path, newPath, backupDir string, rename func(from, to string) error) (*Swap, error) {
	if err := os.RemoveAll(backupDir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(backupDir, 0o700); err != nil {
		return nil, err
	}
	w := &Swap{path: path, backup: filepath.Join(backupDir, filepath.Base(path)), marker: filepath.Join(backupDir, markerName)}
	if err := writeSynced(w.marker, "1"); err != nil {
		return nil, err
	}
	for _, suf := range Suffixes {
		err := rename(path+suf, w.backup+suf)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, errors.Join(err, w.rollBack(false))
		}
		w.old = append(w.old, suf)
	}
	phase2 := "2"
	for _, suf := range w.old {
		phase2 += " db" + suf
	}
	if err := writeSynced(w.marker, phase2); err != nil {
		return nil, errors.Join(err, w.rollBack(false))
	}
	for _, suf := range Suffixes {
		if suf == "-shm" {
			os.Remove(newPath + suf)
			continue
		}
		if err := rename(newPath+suf, path+suf); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, errors.Join(err, w.rollBack(true))
		}
	}
	return w, nil
}

// Done ends the swap, keeping the new files.
func (w *Swap) Done() error { return os.Remove(w.marker) }

// Undo puts the old files back (the new ones would not open) and ends the
// swap.
func (w *Swap) Undo() error { return w.rollBack(true) }

// rollBack puts the old files back: in moved, some new ones may have moved
// in, which go. Only once every old file is back does the marker go; until
// then, the next Recover finishes the job (a file already back has no copy
// left in the backup, and is left alone).
func (w *Swap) rollBack(moved bool) error {
	var errs []error
	for _, suf := range Suffixes {
		kept := slices.Contains(w.old, suf)
		_, err := os.Stat(w.backup + suf)
		inBackup := err == nil
		if moved && (inBackup || !kept) {
			if err := os.Remove(w.path + suf); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, err)
				continue
			}
		}
		if inBackup {
			errs = append(errs, os.Rename(w.backup+suf, w.path+suf))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("roll back an interrupted sync merge: %w", err)
	}
	return os.Remove(w.marker)
}

// Interrupted reports whether a swap of the database files at path, with
// its backup in backupDir, was stopped before its end (its marker is left).
func Interrupted(backupDir string) bool {
	_, err := os.Stat(filepath.Join(backupDir, markerName))
	return err == nil
}

// Recover rolls back a swap a crash stopped, if any: the old files go back
// in place. The caller holds the database's lock exclusive: two processes
// recovering at once would each undo the other's work.
func Recover(path, backupDir string) error {
	w := &Swap{path: path, backup: filepath.Join(backupDir, filepath.Base(path)), marker: filepath.Join(backupDir, markerName)}
	b, err := os.ReadFile(w.marker)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("roll back an interrupted sync merge: %w", err)
	}
	words := strings.Fields(string(b))
	if len(words) == 0 || words[0] != "2" {
		return w.rollBack(false)
	}
	w.old = Suffixes
	if len(words) > 1 {
		w.old = nil
		for _, name := range words[1:] {
			w.old = append(w.old, strings.TrimPrefix(name, "db"))
		}
	}
	return w.rollBack(true)
}

// writeSynced writes a small file whole or not at all (through a
// temporary one), flushed to disk.
func writeSynced(path, content string) error {
	f, err := os.OpenFile(path+".tmp", os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(content)
	if err == nil {
		err = f.Sync()
	}
	if err := errors.Join(err, f.Close()); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}
