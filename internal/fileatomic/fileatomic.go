// Package fileatomic replaces files whole or not at all.
package fileatomic

import (
	"bufio"
	"io"
	"os"
	"path/filepath"
)

// Write writes path through a temporary file in the same
// directory that replaces it only once write has succeeded: a failure or a
// crash keeps the file that was there (an export, the config file).
func Write(path string, mode os.FileMode, write func(io.Writer) error) (err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
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
