package fileatomic

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// A failed export keeps the file that was there; a good one replaces it,
// owner-only, and leaves no temporary file behind.
func TestExportFileIsReplacedOnlyWhenComplete(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "backup.jsonl")
	if err := os.WriteFile(path, []byte("last week's backup\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	failed := errors.New("database went away")
	err := Write(path, 0o600, func(w io.Writer) error {
		io.WriteString(w, "half of a new export")
		return failed
	})
	if !errors.Is(err, failed) {
		t.Fatalf("err = %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != "last week's backup\n" {
		t.Fatalf("the old export was lost: %q", data)
	}
	if err := Write(path, 0o600, func(w io.Writer) error {
		_, err := io.WriteString(w, "today's backup\n")
		return err
	}); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(path); string(data) != "today's backup\n" || fi.Mode().Perm() != 0o600 {
		t.Fatalf("export %q, mode %v", data, fi.Mode().Perm())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("files left beside the export: %v", entries)
	}
}

// A mistyped folder is an error, not a new folder (mneme export -o
// /nonexistent/dir/f.jsonl).
func TestWriteIntoAMissingFolderCreatesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "typo", "deeper", "backup.jsonl")
	err := Write(path, 0o600, func(w io.Writer) error {
		_, err := io.WriteString(w, "data")
		return err
	})
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "typo")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a folder was created: %v", err)
	}
}
