package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/memory/docstore"
)

// TestAttachTakesWhatDocsAddTakes: the chat's /attach adds a file, a
// directory or a glob as `mneme docs add` does, and says why not in the
// words docs add uses.
func TestAttachTakesWhatDocsAddTakes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	files := filepath.Join(t.TempDir(), "notes")
	for name, text := range map[string]string{"a.md": "# A\n\nalpha words", "sub/b.txt": "beta words", "photo.png": "\x89PNG"} {
		p := filepath.Join(files, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	a := newApp(strings.NewReader(""), &strings.Builder{}, &strings.Builder{}, envMap(map[string]string{
		"MNEME_DATA_DIR": dir, "MNEME_USER": "tester", "XDG_CONFIG_HOME": t.TempDir(), "OLLAMA_HOST": "127.0.0.1:1",
	}))
	s, err := a.open(ctx, config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ix, err := a.noteIndex(ctx, s, false)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()

	at, err := s.docAdder(ix, "").Attach(ctx, files)
	if err != nil || at.Outcome != docstore.Added || at.Doc.Title != "2 documents" || at.Doc.Chunks != 2 || at.Documents != 2 || at.Skipped != 1 {
		t.Fatalf("a directory: %+v %v", at, err)
	}
	at, err = s.docAdder(ix, "").Attach(ctx, filepath.Join(files, "*.md"))
	if err != nil || at.Outcome != docstore.Unchanged || at.Doc.Title != "A" || at.Documents != 1 {
		t.Fatalf("a glob of one unchanged file: %+v %v", at, err)
	}
	for path, want := range map[string]string{
		filepath.Join(files, "nothing.md"): "not found",
		filepath.Join(files, "photo.png"):  "unsupported type .png",
		filepath.Join(files, "*.pdf"):      "no files match",
		filepath.Join(dir, "mneme.db"):     "mneme's own data",
	} {
		if _, err := s.docAdder(ix, "").Attach(ctx, path); err == nil || err.Error() != want {
			t.Errorf("%s: %v, want %q", filepath.Base(path), err, want)
		}
	}
}
