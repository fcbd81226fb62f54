package docs

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/internal/sanitize/hostile"
	"github.com/mneme-dev/mneme/memory/docstore"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tui/internal/paneltest"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/styles"
)

// fakeLibrary is a user's documents in memory; searches answer from a
// table by query.
type fakeLibrary struct {
	mu       sync.Mutex
	docs     []docstore.Document
	chunks   map[string][]docstore.Chunk
	hits     map[string][]index.DocHit
	searched []string
	removed  []string
}

func (f *fakeLibrary) ListDocuments(_ context.Context, user string) ([]docstore.Document, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if user != testUser {
		return nil, nil
	}
	return slices.Clone(f.docs), nil
}

func (f *fakeLibrary) SearchDocs(_ context.Context, q index.DocQuery) ([]index.DocHit, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.searched = append(f.searched, q.Text)
	return f.hits[q.Text], nil
}

func (f *fakeLibrary) DocumentChunks(_ context.Context, _, id string) ([]docstore.Chunk, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.chunks[id], nil
}

func (f *fakeLibrary) RemoveDocuments(_ context.Context, _ string, ids []string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.removed = append(f.removed, ids...)
	f.docs = slices.DeleteFunc(f.docs, func(d docstore.Document) bool { return slices.Contains(ids, d.ID) })
	return nil
}

func newLibrary() *fakeLibrary {
	added := time.Date(2026, 3, 12, 9, 0, 0, 0, time.UTC)
	return &fakeLibrary{
		docs: []docstore.Document{
			{ID: "d1", Path: "/home/alice/manuals/boiler.pdf", Title: "Boiler manual", Type: "pdf", Chunks: 12, AddedAt: added},
			{ID: "d2", Path: "/home/alice/notes.md", Title: "", Type: "markdown", Chunks: 1, AddedAt: added},
		},
		chunks: map[string][]docstore.Chunk{"d1": {
			{Number: 0, Page: 1, Heading: "Safety", Text: "Keep children away from the boiler."},
			{Number: 1, Page: 3, Heading: "Reset", Text: "Hold the red button for ten seconds."},
		}},
		hits: map[string][]index.DocHit{"reset": {{DocumentID: "d1", Path: "/home/alice/manuals/boiler.pdf", Title: "Boiler manual",
			Page: 3, Heading: "Reset", Chunk: 1, Snippet: "Hold the red button for ten seconds to reset it.",
			Passage: "Hold the red button for ten seconds to reset it. The light blinks twice."}}},
	}
}

func newBrowser(t *testing.T, lib Library, w, h int) *component[Browser] {
	st := styles.New(true)
	clock := paneltest.NewClock()
	b := NewBrowser(&st, Config{Library: lib, UserID: testUser, Now: clock.Now, Tick: clock.Tick})
	b.SetSize(w, h)
	c := newComponent(t, b, Browser.Update, Browser.Owns)
	var cmd tea.Cmd
	c.M, cmd = c.M.Open()
	c.Push(cmd)
	c.RunAll()
	return c
}

// TestBrowserListsSearchesAndReads: the documents are listed with their
// type, passages and date; / searches their passages and shows snippets;
// Enter reads the passage found, or a whole document, in the viewer.
func TestBrowserListsSearchesAndReads(t *testing.T) {
	lib := newLibrary()
	c := newBrowser(t, lib, 80, 16)
	v := c.M.View()
	requireSize(t, v, 80, 16)
	requireShows(t, v, "Documents · 2 documents", "Boiler manual", "pdf · 12 passages · added 2d ago",
		"/home/alice/manuals/boiler.pdf", "notes.md", "markdown · 1 passage")
	requireGolden(t, "docs_browser_80x16", v)

	c.Send(keyRune('/'))
	c.TypeText("reset")
	c.RunAll()
	if got := lib.searched; len(got) != 1 || got[0] != "reset" {
		t.Fatalf("searched %q, want one search for the whole word after the pause", got)
	}
	v = c.M.View()
	requireShows(t, v, "1 passage found", "Boiler manual · p. 3 · Reset", "Hold the red button for ten seconds to reset it.")
	c.Send(keyEnter) // leaves the search box
	c.Send(keyEnter) // reads the passage
	v = c.M.View()
	requireSize(t, v, 80, 16)
	requireShows(t, v, "Boiler manual", "p. 3 · Reset", "/home/alice/manuals/boiler.pdf", "The light blinks twice.")
	c.Send(keyEsc)
	requireShows(t, c.M.View(), "1 passage found")
	c.Send(keyEsc) // clears the search
	requireShows(t, c.M.View(), "2 documents", "notes.md")

	c.Send(keyEnter) // the whole boiler manual
	requireShows(t, c.M.View(), "Reading…")
	c.RunAll()
	v = c.M.View()
	requireShows(t, v, "— p. 1 · Safety —", "Keep children away", "— p. 3 · Reset —", "Hold the red button")
	c.Send(keyEsc)
	c.Send(keyEsc)
	c.RunAll()
	if len(sent[panel.CloseOverlayMsg](c)) != 1 {
		t.Fatalf("Esc did not close the browser: %v", c.Out)
	}
}

// TestBrowserRemovesAfterYes: d asks; n keeps the document; y removes it
// through the library, and the list no longer shows it.
func TestBrowserRemovesAfterYes(t *testing.T) {
	lib := newLibrary()
	c := newBrowser(t, lib, 80, 16)
	c.Send(keyRune('d'))
	v := c.M.View()
	requireSize(t, v, 80, 16)
	requireShows(t, v, "Remove “Boiler manual” (12 passages) from your documents? y/n")
	c.Send(keyRune('n'))
	c.RunAll()
	if len(lib.removed) != 0 || strings.Contains(plain(c.M.View()), "Remove “") {
		t.Fatalf("n removed the document, or still asks: %v", lib.removed)
	}
	c.Send(keyRune('d'))
	c.Send(keyRune('y'))
	c.RunAll()
	if len(lib.removed) != 1 || lib.removed[0] != "d1" {
		t.Fatalf("removed %v, want [d1]", lib.removed)
	}
	v = c.M.View()
	requireShows(t, v, "Removed “Boiler manual”.", "1 document", "notes.md")
	if strings.Contains(plain(v), "boiler.pdf") {
		t.Fatalf("the removed document is still listed:\n%s", plain(v))
	}
}

// TestBrowserHostileText: a document's title, path and type, and a
// passage found, never draw their escapes.
func TestBrowserHostileText(t *testing.T) {
	for _, p := range hostile.Payloads {
		t.Run(p.Name, func(t *testing.T) {
			lib := &fakeLibrary{docs: []docstore.Document{{ID: "d", Path: "/p-" + p.Raw, Title: "t-" + p.Raw, Type: "x-" + p.Raw, Chunks: 1}},
				hits: map[string][]index.DocHit{"q": {{DocumentID: "d", Path: "/p-" + p.Raw, Title: "t-" + p.Raw, Snippet: "s-" + p.Raw, Passage: "s-" + p.Raw}}}}
			c := newBrowser(t, lib, 200, 12)
			for _, want := range []string{"t-" + p.Readable, "/p-" + p.Readable, "x-" + p.Readable} {
				requireSafe(t, c.M.View(), want, p.Hidden)
			}
			c.Send(keyRune('/'))
			c.TypeText("q")
			c.RunAll()
			requireSafe(t, c.M.View(), "s-"+p.Readable, p.Hidden)
		})
	}
}

func requireSafe(t *testing.T, view, want, hidden string) {
	t.Helper()
	view = sgr.ReplaceAllString(view, "")
	if bad := hostile.Unsafe(view); bad != "" {
		t.Fatal(bad)
	}
	flat := strings.Join(strings.Fields(view), "")
	if !strings.Contains(flat, want) {
		t.Errorf("%q not shown:\n%s", want, view)
	}
	if hidden != "" && strings.Contains(flat, hidden) {
		t.Errorf("%q shown:\n%s", hidden, view)
	}
}
