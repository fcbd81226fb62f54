package fileatomic

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
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

// The user's own link is followed and stays a link (a config file kept in
// dotfiles), even to a file not written yet; an export refuses a link (one
// planted in /tmp would have it replace the file it names); a pipe is
// written to, never replaced by a plain file; a folder is refused.
func TestWriteKeepsLinksDevicesAndFolders(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "dotfiles-config.toml")
	if err := os.WriteFile(target, []byte("old\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "config.toml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	write := func(text string) func(io.Writer) error {
		return func(w io.Writer) error {
			_, err := io.WriteString(w, text)
			return err
		}
	}
	if err := Write(link, 0o600, write("export\n")); err == nil || !strings.Contains(err.Error(), "is a link") {
		t.Fatalf("an export through a link: %v", err)
	}
	if err := WriteLinked(link, 0o600, write("new\n")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", fi.Mode(), err)
	}
	if data, _ := os.ReadFile(target); string(data) != "new\n" {
		t.Fatalf("the linked file holds %q", data)
	}
	dangling := filepath.Join(dir, "first.toml")
	if err := os.Symlink("not-yet.toml", dangling); err != nil {
		t.Fatal(err)
	}
	if err := WriteLinked(dangling, 0o600, write("first\n")); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(filepath.Join(dir, "not-yet.toml")); string(data) != "first\n" {
		t.Fatalf("the file a dangling link names holds %q", data)
	}
	if fi, err := os.Lstat(dangling); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the dangling link was replaced: %v", err)
	}
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o600); err != nil {
		t.Fatal(err)
	}
	read := make(chan string)
	go func() {
		data, _ := os.ReadFile(pipe) // blocks until the writer opens it
		read <- string(data)
	}()
	if err := Write(pipe, 0o600, write("through the pipe\n")); err != nil {
		t.Fatal(err)
	}
	if got := <-read; got != "through the pipe\n" {
		t.Fatalf("the reader of the pipe got %q", got)
	}
	if fi, err := os.Lstat(pipe); err != nil || fi.Mode()&os.ModeNamedPipe == 0 {
		t.Fatalf("the pipe was replaced: %v %v", fi.Mode(), err)
	}
	// A link to a pipe (as /dev/stdout is) is written through: there is
	// no file it could have mneme replace.
	toPipe := filepath.Join(dir, "stdout")
	if err := os.Symlink(pipe, toPipe); err != nil {
		t.Fatal(err)
	}
	go func() {
		data, _ := os.ReadFile(pipe)
		read <- string(data)
	}()
	if err := Write(toPipe, 0o600, write("through the link\n")); err != nil {
		t.Fatal(err)
	}
	if got := <-read; got != "through the link\n" {
		t.Fatalf("the reader of the linked pipe got %q", got)
	}
	if fi, err := os.Lstat(toPipe); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link to the pipe was replaced: %v", err)
	}
	if err := Write(dir, 0o600, write("x")); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Fatalf("writing over a folder: %v", err)
	}
}
