// Package fileatomic replaces files whole or not at all.
package fileatomic

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes path through a temporary file in the same
// directory that replaces it only once write has succeeded: a failure or a
// crash keeps the file that was there (an export). The directory must
// exist: a mistyped path is an error, not a new folder. A path that is not
// a regular file (a pipe, /dev/stdout, a device) is written to as it is,
// never replaced, also through a link (/dev/stderr). A link to a file is
// refused: followed, one planted in /tmp would have mneme replace the file
// it names (WriteLinked follows the user's own).
func Write(path string, mode os.FileMode, write func(io.Writer) error) (err error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		if to, err := os.Stat(path); err == nil && !to.IsDir() && !to.Mode().IsRegular() {
			return writeInPlace(path, write) // a pipe or a device: nothing to replace
		}
		return fmt.Errorf("%s is a link: name the file it stands for", path)
	}
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("%s is a folder", path)
	} else if err == nil && !fi.Mode().IsRegular() {
		return writeInPlace(path, write)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil {
		return fmt.Errorf("folder %s: %w", filepath.Dir(path), err)
	} else if !fi.IsDir() {
		return fmt.Errorf("%s is not a folder", filepath.Dir(path))
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := tmp.Chmod(mode); err != nil {
		return err
	}
	if err := buffered(tmp, write); err != nil {
		return err
	}
	if err := tmp.Sync(); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// WriteLinked is Write for a file the user may keep elsewhere through a
// link (a config.toml in a dotfiles folder): the file the links name is
// replaced, even one not written yet, and the links stay.
func WriteLinked(path string, mode os.FileMode, write func(io.Writer) error) error {
	for range 40 { // as the kernel's limit on links in a row
		target, err := os.Readlink(path)
		if err != nil {
			break // not a link (or nothing there yet)
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(filepath.Dir(path), target)
		}
		path = target
	}
	return Write(path, mode, write)
}

// writeInPlace writes to what path is (a pipe, a device) without
// replacing it.
func writeInPlace(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	return errors.Join(buffered(f, write), f.Close())
}

// buffered runs write on f through a buffer, flushed at the end.
func buffered(f *os.File, write func(io.Writer) error) error {
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		return err
	}
	return bw.Flush()
}
