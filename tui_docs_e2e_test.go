package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/docstore"
	"github.com/mneme-dev/mneme/memory/index"
)

// End-to-end flows of documents in the chat screen: the model searches
// them with file_search, its answer lists the sources, and a source opens
// its passage.

const boilerPassage = "To reset the boiler, hold the red button for ten seconds until the light blinks twice."

// seedDocument adds a document to the device's store and keyword index,
// as `mneme docs add` would, before mneme starts.
func (d *device) seedDocument(path, heading, text string) {
	d.t.Helper()
	ctx := context.Background()
	dir := filepath.Join(d.home, "data")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		d.t.Fatal(err)
	}
	store, err := memory.Open(ctx, filepath.Join(dir, memory.DBFileName))
	if err != nil {
		d.t.Fatal(err)
	}
	defer store.Close()
	ix, err := index.OpenIndex(ctx, store, dir, index.IndexOptions{})
	if err != nil {
		d.t.Fatal(err)
	}
	defer ix.Close()
	_, _, err = ix.AddDocument(ctx, docstore.New{UserID: "tester", Path: path, Title: "Boiler manual", Type: "markdown",
		Size: int64(len(text)), Hash: docstore.HashBytes([]byte(text)), Pieces: []docstore.Piece{{Heading: heading, Text: text}}})
	if err != nil {
		d.t.Fatal(err)
	}
}

// scriptFileSearch makes the fake model search the documents, then
// answer citing the first passage.
func scriptFileSearch(srv *fakeollama.Server) {
	srv.Script(
		fakeollama.Reply{ToolCalls: []api.ToolCall{fakeollama.ToolCall("file_search", map[string]any{"query": "reset the boiler"})}},
		fakeollama.Say("Hold the red button for ten seconds [1]."),
	)
}

// askAndOpenTheSource asks about the boiler, waits for the sources line,
// and reads the passage through ctrl+r and Enter; the viewer shows title
// ("": any) and the passage's heading and path.
func askAndOpenTheSource(t *testing.T, term *terminal, sourceLine, title string) {
	t.Helper()
	term.typeText("how do I reset the boiler?")
	term.keys("Enter")
	term.waitText("Hold the red button for ten seconds [1].")
	s := term.waitText(sourceLine)
	if strings.Index(s, sourceLine) < strings.Index(s, "Hold the red button for ten seconds [1].") {
		t.Fatalf("the sources are not under the answer:\n%s", s)
	}
	term.waitIdle()
	term.keys("C-r")
	term.waitText("Sources · of the last answer")
	term.keys("Enter")
	term.waitFor("the passage with its title, heading and path", func(s string) bool {
		return strings.Contains(s, "[1] "+title) && strings.Contains(s, "Reset") &&
			strings.Contains(s, "boiler.md\n") && strings.Contains(s, "until the light blinks twice.")
	})
	term.keys("Escape")
	term.waitText("Sources · of the last answer")
	term.keys("Escape")
	term.waitFor("the chat", func(s string) bool { return !strings.Contains(s, "Sources · of") && strings.Contains(s, sourceLine) })
}

// TestTUISourcesOpenThePassage: with a document added, the model's
// file_search finds it, the answer lists it as [1], and ctrl+r then Enter
// shows the passage.
func TestTUISourcesOpenThePassage(t *testing.T) {
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	d.seedDocument(filepath.Join(d.home, "boiler.md"), "Reset", boilerPassage)
	scriptFileSearch(srv)
	term := startTerminal(t, 100, 30, d.env())
	term.waitText("fake-chat")
	askAndOpenTheSource(t, term, "Sources  [1] boiler.md › Reset", "Boiler manual")
	term.keys("C-c")
	if code := term.exitStatus(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// TestTUIAttachReadsTheFileToAModelWithoutTools: with a model that
// cannot search, /attach then a question that names nothing in the file
// sends the file's text in the prompt (the model was told of the file
// only, and never saw it).
func TestTUIAttachReadsTheFileToAModelWithoutTools(t *testing.T) {
	srv := fakeollama.New(t, fakeollama.WithModels(fakeollama.Model{Name: "plain", Capabilities: []string{"completion"}},
		fakeollama.Model{Name: fakeollama.DefaultEmbedModel, Capabilities: []string{"embedding"}}))
	d := newDevice(t, srv.Host())
	d.extra = []string{"MNEME_MODEL=plain"}
	if err := os.WriteFile(filepath.Join(d.home, "garden.txt"), []byte("The gate code is 4711.\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	term := startTerminal(t, 100, 30, d.env())
	term.waitText("plain")
	term.typeText("/attach ~/garden.txt")
	term.keys("Enter")
	term.waitText("📎 added garden.txt · ")
	term.typeText("What does it say?")
	term.keys("Enter")
	term.waitText("What does it say?")
	term.waitIdle()
	req := srv.LastRequest()
	if len(req.Messages) == 0 || !strings.Contains(req.Messages[0].Content, "The gate code is 4711.") || len(req.Tools) != 0 {
		t.Fatalf("the model was not given the attached file: %+v", req.Messages)
	}
	term.keys("C-c")
	if code := term.exitStatus(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// TestTUIAttachThenCite: /attach FILE adds it with a receipt, the next
// request tells the model, its file_search finds the file, and the source
// opens the passage.
func TestTUIAttachThenCite(t *testing.T) {
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	if err := os.WriteFile(filepath.Join(d.home, "boiler.md"), []byte("# Reset\n\n"+boilerPassage+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	term := startTerminal(t, 100, 30, d.env())
	term.waitText("fake-chat")
	term.typeText("/attach ~/boiler.md")
	term.keys("Enter")
	term.waitText("📎 added boiler.md · ")
	scriptFileSearch(srv)
	askAndOpenTheSource(t, term, "Sources  [1] boiler.md", "")

	var told bool
	for _, req := range srv.Requests() {
		// Named, and its passage read into the prompt: a model that does
		// not call file_search sees it too.
		if len(req.Messages) > 0 && strings.Contains(req.Messages[0].Content, "The user attached these documents") &&
			strings.Contains(req.Messages[0].Content, "boiler.md") && strings.Contains(req.Messages[0].Content, boilerPassage) {
			told = true
		}
	}
	if !told {
		t.Fatal("no request told the model about the attached document, with its passage")
	}
	term.keys("C-c")
	if code := term.exitStatus(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}
