// Package private keeps mneme's files owner-only: the database, its logs,
// the index and backups hold a person's conversations.
package private

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
