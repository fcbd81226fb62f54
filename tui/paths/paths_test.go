package paths

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// tree makes files and folders (names ending in "/") under a new folder.
func tree(t *testing.T, names ...string) string {
	t.Helper()
	root := t.TempDir()
	for _, n := range names {
		p := filepath.Join(root, n)
		if n[len(n)-1] == '/' {
			if err := os.MkdirAll(p, 0o700); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func names(cs []Candidate) []string {
	var out []string
	for _, c := range cs {
		out = append(out, c.Name)
	}
	return out
}

func TestCompleteListsFoldersFirstThenFilesThatBeginWithTheTypedName(t *testing.T) {
	root := tree(t, "boiler.pdf", "books/", "notes.md", ".bashrc", "bin/")
	got := Complete(root+"/b", 10)
	if want := []string{"bin/", "books/", "boiler.pdf"}; !slices.Equal(names(got), want) {
		t.Fatalf("candidates of %q = %v, want %v", root+"/b", names(got), want)
	}
	if got[1].Path != root+"/books/" || !got[1].Dir || got[2].Dir {
		t.Errorf("books/ completes to %q (dir %v), boiler.pdf dir %v", got[1].Path, got[1].Dir, got[2].Dir)
	}
	if p := CommonPrefix(got); p != root+"/b" {
		t.Errorf("common prefix %q, want %q", p, root+"/b")
	}
	if p := CommonPrefix(Complete(root+"/bo", 10)); p != root+"/bo" {
		t.Errorf("common prefix of bo… = %q", p)
	}
	if p := CommonPrefix(Complete(root+"/no", 10)); p != root+"/notes.md" {
		t.Errorf("the one candidate of no… completes to %q", p)
	}
}

func TestCompleteShowsHiddenEntriesOnlyWhenADotIsTyped(t *testing.T) {
	root := tree(t, ".bashrc", "b.txt")
	if got := names(Complete(root+"/", 10)); !slices.Equal(got, []string{"b.txt"}) {
		t.Errorf("without a dot: %v", got)
	}
	if got := names(Complete(root+"/.", 10)); !slices.Equal(got, []string{".bashrc"}) {
		t.Errorf("with a dot: %v", got)
	}
}

func TestCompleteLeadsWithTheExactNameAndKeepsToTheLimit(t *testing.T) {
	root := tree(t, "a.md", "a.md.bak", "a.mdx/")
	got := Complete(root+"/a.md", 10)
	if want := []string{"a.md", "a.mdx/", "a.md.bak"}; !slices.Equal(names(got), want) {
		t.Errorf("candidates %v, want %v", names(got), want)
	}
	if got := Complete(root+"/a", 2); len(got) != 2 {
		t.Errorf("limit 2 gave %d", len(got))
	}
}

func TestCompleteSkipsNamesATerminalCannotShowAndUnreadableFolders(t *testing.T) {
	root := tree(t, "ok.txt", "evil\x1b[2J.txt", "bidi\u202e.txt")
	if got := names(Complete(root+"/", 10)); !slices.Equal(got, []string{"ok.txt"}) {
		t.Errorf("candidates %v, want only ok.txt", got)
	}
	if got := Complete(root+"/missing/", 10); len(got) != 0 {
		t.Errorf("a missing folder gave %v", got)
	}
}

func TestCompleteReadsHomeForTilde(t *testing.T) {
	home := tree(t, "manuals/")
	t.Setenv("HOME", home)
	got := Complete("~/ma", 10)
	if len(got) != 1 || got[0].Path != "~/manuals/" {
		t.Fatalf("~/ma completes to %+v, want ~/manuals/", got)
	}
}

func TestCommonPrefixNeverEndsInsideACharacter(t *testing.T) {
	cs := []Candidate{{Path: "caf\u00e9"}, {Path: "caf\u00e8"}} // é and è share their first byte
	if p := CommonPrefix(cs); p != "caf" {
		t.Errorf("common prefix %q, want caf", p)
	}
}

func TestCreateMakesANewFileWhereTyped(t *testing.T) {
	root := tree(t, "docs/", "taken.md")
	t.Setenv("HOME", root)
	for typed, want := range map[string]string{
		"~/new/dir/x.md":           filepath.Join(root, "new", "dir", "x.md"),  // a folder not there yet is made
		`"~/with space/y.md"`:      filepath.Join(root, "with space", "y.md"),  // quoted
		root + "/docs":             filepath.Join(root, "docs", "default.md"),  // an existing folder
		root + "/fresh/":           filepath.Join(root, "fresh", "default.md"), // a folder by its slash
		"'" + root + "/docs/z.md'": filepath.Join(root, "docs", "z.md"),
	} {
		f, abs, err := Create(typed, "default.md")
		if err != nil {
			t.Fatalf("%s: %v", typed, err)
		}
		f.Close()
		if abs != want {
			t.Errorf("%s made %s, want %s", typed, abs, want)
		}
		if fi, err := os.Stat(want); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v %v", want, fi, err)
		}
	}
	if f, abs, err := Create("~", "default.md"); err != nil || abs != filepath.Join(root, "default.md") {
		t.Errorf("~ made %s, %v", abs, err)
	} else {
		f.Close()
	}
	if _, _, err := Create(root+"/taken.md", "default.md"); err == nil {
		t.Error("an existing file was opened to be written over")
	}
	// The name chosen for a folder is never one already taken.
	for _, want := range []string{"default-2.md", "default-3.md"} {
		f, abs, err := Create("~", "default.md")
		if err != nil || abs != filepath.Join(root, want) {
			t.Fatalf("the default name again made %s, %v; want %s", abs, err, want)
		}
		f.Close()
	}
}

func TestCompleteFindsEveryNameOfALargeFolder(t *testing.T) {
	root := t.TempDir()
	for i := 1; i <= 5000; i++ {
		if err := os.WriteFile(filepath.Join(root, fmt.Sprintf("f%d.txt", i)), nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	if got := names(Complete(root+"/f4999", 10)); !slices.Equal(got, []string{"f4999.txt"}) {
		t.Errorf("f4999: %v", got)
	}
	if got := Complete(root+"/f123", 10); len(got) == 0 || got[0].Name != "f123.txt" {
		t.Errorf("f123 begins with %v, want f123.txt first", names(got))
	}
	if got := Complete("~", 10); len(got) != 1 || got[0].Path != "~/" {
		t.Errorf("~ completes to %+v", got)
	}
}
