package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/fakeollama"
)

// A full backup goes out of one data dir and into an empty one through the
// binary: conversations, imported ones included, and tagged notes come
// back, search finds them, the backup of the restored dir is the same, and
// restoring again adds nothing.
func TestBackupRestoresIntoAnEmptyDataDir(t *testing.T) {
	t.Parallel() // own data dirs and fake Ollama
	srv := fakeollama.New(t)
	a := newDevice(t, srv.Host())
	a.mustOK("", "ask", "I keep bees on my balcony")
	a.mustOK("", "memory", "add", "--tag", "hobby", "I keep bees on my balcony")
	a.mustOK("", "import", "importer/testdata/claude.json")
	docs := t.TempDir()
	writeFiles(t, docs, map[string]string{"hives.md": "# Hives\n\n## Winter\nWrap the hives in straw before the first frost.\n"})
	a.mustOK("", "docs", "add", "--collection", "garden", docs)

	file := filepath.Join(t.TempDir(), "backup.jsonl")
	a.mustOK("", "export", "--all", "-o", file)
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("backup file: %v, %v", fi, err)
	}
	for _, args := range [][]string{{"export", "--all", "--format", "markdown"}, {"export", "--all", "--conversation", "abcd"}} {
		if r := a.mneme("", args...); r.code != 2 || !strings.Contains(r.stderr, "--all") {
			t.Fatalf("mneme %v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}

	b := newDevice(t, srv.Host())
	r := b.mustOK("", "import", file)
	if !strings.Contains(r.stdout, "Restored from the backup: 1 note, 0 summaries and 1 document") {
		t.Fatalf("restore: %s\nstderr: %s", r.stdout, r.stderr)
	}
	stamp := regexp.MustCompile(`"exported_at":"[^"]*"`)
	backup := func(d *device) string {
		return stamp.ReplaceAllString(d.mustOK("", "export", "--all").stdout, "")
	}
	want := backup(a)
	if got := backup(b); got != want {
		t.Fatalf("the restored dir's backup differs:\n%s\nwant\n%s", got, want)
	}
	// -o /dev/stdout (and -o -) is standard output, as the README says.
	for _, out := range []string{"/dev/stdout", "-"} {
		if got := stamp.ReplaceAllString(b.mustOK("", "export", "--all", "-o", out).stdout, ""); got != want {
			t.Fatalf("export --all -o %s wrote:\n%s", out, got)
		}
	}
	if r := b.mustOK("", "memory", "list", "--tag", "hobby"); !strings.Contains(r.stdout, "bees") {
		t.Fatalf("memory list --tag hobby:\n%s", r.stdout)
	}
	if hits := b.search("blight"); len(hits) == 0 || hits[0].Title != "Tomato blight" {
		t.Fatalf("search blight: %+v", hits)
	}
	if r := b.mustOK("", "memory", "search", "balcony bees"); !strings.Contains(r.stdout, "I keep bees on my balcony") {
		t.Fatalf("memory search:\n%s", r.stdout)
	}
	if hits := b.docHits("straw frost"); len(hits) == 0 || hits[0].Heading != "Hives › Winter" || hits[0].Collection != "garden" {
		t.Fatalf("docs search straw frost: %+v", hits)
	}

	r = b.mustOK("", "import", file)
	if !strings.Contains(r.stdout, "Nothing new: all ") || !strings.Contains(r.stdout, "0 notes, 0 summaries and 0 documents") {
		t.Fatalf("restore again: %s", r.stdout)
	}
	if got := backup(b); got != want {
		t.Fatalf("restoring again changed the backup:\n%s", got)
	}
}
