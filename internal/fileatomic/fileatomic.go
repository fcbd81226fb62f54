// Package fileatomic replaces files whole or not at all.
package fileatomic

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Write writes path through a temporary file in the same
// directory that replaces it only once write has succeeded: a failure or a
// crash keeps the file that was there (an export, the config file). The
// directory must exist: a mistyped path is an error, not a new folder. A
// link is followed (the file it names is replaced, the link stays), and a
// path that is not a regular file (a pipe, /dev/stdout, a device) is
// written to as it is, never replaced.
func Write(path string, mode os.FileMode, write func(io.Writer) error) (err error) {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
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
	bw := bufio.NewWriter(tmp)
	if err := write(bw); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
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

// writeInPlace writes to what path is (a pipe, a device) without
// replacing it.
func writeInPlace(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		f.Close()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
