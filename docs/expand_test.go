package docs

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

// tree writes files (path -> content) under a new temporary directory and
// returns it.
func tree(t *testing.T, files map[string]string) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestExpandHonoursGitignore(t *testing.T) {
	root := tree(t, map[string]string{
		".git/HEAD":               "ref: refs/heads/main\n",
		".gitignore":              "*.log\nbuild/\n/top-only.md\n",
		"notes/a.md":              "a",
		"notes/b.txt":             "b",
		"notes/debug.log":         "ignored by the root .gitignore",
		"notes/keep.log":          "re-included below",
		"notes/.gitignore":        "!keep.log\ndrafts/**\n",
		"notes/drafts/x.md":       "ignored by notes/.gitignore",
		"notes/build/out.md":      "ignored: build/ matches at any depth",
		"notes/top-only.md":       "not ignored: /top-only.md is anchored at the root",
		"notes/.hidden/secret.md": "hidden directory",
		"notes/.env":              "hidden file",
		"notes/sub/c.md":          "c",
		"notes/photo.png":         "png",
		"top-only.md":             "ignored",
	})
	got := Expand([]string{filepath.Join(root, "notes")})
	want := []Candidate{
		{Path: filepath.Join(root, "notes/a.md")},
		{Path: filepath.Join(root, "notes/b.txt")},
		{Path: filepath.Join(root, "notes/keep.log")},
		{Path: filepath.Join(root, "notes/photo.png"), Skip: "unsupported type .png"},
		{Path: filepath.Join(root, "notes/sub/c.md")},
		{Path: filepath.Join(root, "notes/top-only.md")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Expand =\n%+v\nwant\n%+v", got, want)
	}
}

func TestExpandArgumentsGlobsAndMissing(t *testing.T) {
	root := tree(t, map[string]string{
		"notes/one.md":  "1",
		"notes/two.md":  "2",
		"notes/.dot.md": "hidden",
		"notes/x.txt":   "x",
		"other.txt":     "o",
		"build/gen.md":  "named outright",
		".gitignore":    "build/\n",
	})
	t.Chdir(root)
	got := Expand([]string{
		"other.txt",
		"notes/*.md",
		"missing.md",
		"notes/one.md",  // named twice
		"./other.txt",   // the same file again
		"nothing/*.pdf", // a glob that matches nothing
		"build/gen.md",  // ignored, but named outright
		"notes",         // the directory: one.md and two.md are already in
	})
	want := []Candidate{
		{Path: filepath.Join(root, "other.txt")},
		{Path: filepath.Join(root, "notes/one.md")},
		{Path: filepath.Join(root, "notes/two.md")},
		{Path: filepath.Join(root, "missing.md"), Skip: "not found"},
		{Path: filepath.Join(root, "nothing/*.pdf"), Skip: "no files match"},
		{Path: filepath.Join(root, "build/gen.md")},
		{Path: filepath.Join(root, "notes/x.txt")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Expand =\n%+v\nwant\n%+v", got, want)
	}
}

func TestExpandUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	root := tree(t, map[string]string{"locked/a.md": "a", "secret.md": "s"})
	if err := os.Chmod(filepath.Join(root, "secret.md"), 0); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(root, "locked"), 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(root, "locked"), 0o755) })
	got := Expand([]string{root})
	want := []Candidate{
		{Path: filepath.Join(root, "locked"), Skip: "permission denied"},
		{Path: filepath.Join(root, "secret.md"), Skip: "permission denied"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Expand =\n%+v\nwant\n%+v", got, want)
	}
}

func TestExpandSkipsSpecialFiles(t *testing.T) {
	root := tree(t, map[string]string{"a.md": "a"})
	if err := os.Symlink(filepath.Join(root, "a.md"), filepath.Join(root, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(root, "loop")); err != nil {
		t.Fatal(err)
	}
	got := Expand([]string{root, "/dev/null"})
	want := []Candidate{
		{Path: filepath.Join(root, "a.md")},
		{Path: filepath.Join(root, "link.md"), Skip: "a link to " + filepath.Join(root, "a.md") + ", added once under that name"},
		{Path: "/dev/null", Skip: "not a regular file"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Expand =\n%+v\nwant\n%+v (link.md is a.md again, and said so; the link to a directory is not followed)", got, want)
	}
	// A link named first and its target: one file, under its real path.
	got = Expand([]string{filepath.Join(root, "link.md"), filepath.Join(root, "a.md")})
	if want := []Candidate{{Path: filepath.Join(root, "a.md")}}; !reflect.DeepEqual(got, want) {
		t.Errorf("Expand(link, target) = %+v, want %+v", got, want)
	}
}

// TestExpandLeavesLinksOutOfTheFolder: a folder's link to a file outside it
// (a secret elsewhere) is not added unless named outright; one to a file
// inside it is, the folder named through a link too.
func TestExpandLeavesLinksOutOfTheFolder(t *testing.T) {
	outside := tree(t, map[string]string{"id_ed25519.md": "secret"})
	root := tree(t, map[string]string{"notes/a.md": "a", "notes/sub/b.md": "b"})
	notes := filepath.Join(root, "notes")
	for link, target := range map[string]string{
		"notes/key.md":      filepath.Join(outside, "id_ed25519.md"),
		"notes/sub/also.md": filepath.Join(notes, "a.md"),
		"via":               notes,
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Fatal(err)
		}
	}
	want := []Candidate{
		{Path: filepath.Join(notes, "a.md")},
		{Path: filepath.Join(notes, "key.md"), Skip: SkipLinkOutside},
		{Path: filepath.Join(notes, "sub/also.md"), Skip: "a link to " + filepath.Join(notes, "a.md") + ", added once under that name"},
		{Path: filepath.Join(notes, "sub/b.md")},
	}
	if got := Expand([]string{notes}); !reflect.DeepEqual(got, want) {
		t.Errorf("Expand(folder) =\n%+v\nwant\n%+v", got, want)
	}
	if got := Expand([]string{filepath.Join(root, "via")}); len(got) != 4 || got[1].Skip != SkipLinkOutside || got[3].Skip != "" {
		t.Errorf("Expand(a link to the folder) = %+v", got)
	}
	if got := Expand([]string{filepath.Join(notes, "key.md")}); len(got) != 1 || got[0].Skip != "" || got[0].Path != filepath.Join(outside, "id_ed25519.md") {
		t.Errorf("Expand(the link named) = %+v", got)
	}
	// A pattern is not naming outright: its links stay in its folder.
	for _, pattern := range []string{filepath.Join(notes, "*.md"), filepath.Join(notes, "**", "*.md")} {
		got := Expand([]string{pattern})
		var kept []string
		for _, c := range got {
			if c.Skip == "" {
				kept = append(kept, c.Path)
			}
			if c.Path == filepath.Join(notes, "key.md") && c.Skip != SkipLinkOutside {
				t.Errorf("Expand(%q): key.md %+v", pattern, c)
			}
		}
		if len(kept) == 0 || slices.Contains(kept, filepath.Join(outside, "id_ed25519.md")) {
			t.Errorf("Expand(%q) = %+v", pattern, got)
		}
	}
}

// TestExpandGlobStar: "**" takes any number of directories, as a shell's
// globstar does, and leaves hidden directories out.
func TestExpandGlobStar(t *testing.T) {
	root := tree(t, map[string]string{
		"notes/a.md": "a", "notes/sub/b.md": "b", "notes/sub/deep/c.md": "c", "notes/sub/d.txt": "d",
		"notes/.hidden/h.md": "h",
	})
	got := Expand([]string{filepath.Join(root, "notes", "**", "*.md")})
	want := []Candidate{
		{Path: filepath.Join(root, "notes", "a.md")},
		{Path: filepath.Join(root, "notes", "sub", "b.md")},
		{Path: filepath.Join(root, "notes", "sub", "deep", "c.md")},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Expand(notes/**/*.md) =\n%+v\nwant\n%+v", got, want)
	}
	if got := Expand([]string{filepath.Join(root, "notes", "**", "*.pdf")}); len(got) != 1 || got[0].Skip != SkipNoMatch {
		t.Errorf("a ** glob that matches nothing: %+v", got)
	}
}
