package tui

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/sanitize/hostile"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/docstore"
	"github.com/mneme-dev/mneme/memory/index"
)

var (
	keyCtrlR = tea.KeyPressMsg{Code: 'r', Mod: tea.ModCtrl}

	resetCite = agent.Citation{N: 1, DocumentID: "d1", Path: "/home/alice/manuals/boiler.pdf", Title: "Boiler manual",
		Page: 3, Heading: "Reset", Chunk: 4, Passage: "To reset the boiler, hold the red button for ten seconds until the light blinks twice."}
	installCite = agent.Citation{N: 2, DocumentID: "d2", Path: "/home/alice/notes.md", Title: "Notes", Heading: "Install",
		Passage: "Install the thermostat on an inside wall, away from radiators."}
	unusedCite = agent.Citation{N: 3, DocumentID: "d3", Path: "/home/alice/recipes.txt", Passage: "Bake for forty minutes."}
)

// citingRunner answers after a file_search call that gave cites.
func citingRunner(store *memory.Store, answer string, cites ...agent.Citation) *fakeRunner {
	r := newFakeRunner(store)
	r.tools = []agent.ToolActivity{{ID: "call-1", Name: "file_search", Args: `{"query":"reset the boiler"}`, Done: true,
		Result: `{"results":[]}`, Citations: cites}}
	r.deltas2 = []string{answer}
	return r
}

// TestSourcesUnderTheAnswerOpenThePassage: the passages an answer cites
// are listed under it, by their numbers; ctrl+r lists them, Enter reads
// one in full, Esc goes back to the list and again to the chat.
func TestSourcesUnderTheAnswerOpenThePassage(t *testing.T) {
	store := openStore(t)
	r := citingRunner(store, "Hold the red button [1]. Put the thermostat inside [2].", resetCite, installCite, resetCite, unusedCite)
	h := newHarness(t, config(store, r, readyProbe))
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.typeText("how do I reset the boiler?")
	h.send(keyEnter)
	h.runUntilIdle()
	h.runUntilShown("Sources  [1] boiler.pdf · p. 3 · Reset   [2] notes.md › Install")
	if h.shows("recipes.txt") || strings.Count(h.screen(), "boiler.pdf") != 1 {
		t.Fatalf("an uncited or repeated passage is listed:\n%s", h.screen())
	}
	if !h.shows("ctrl+r sources") {
		t.Fatalf("the help line does not offer the sources:\n%s", h.screen())
	}

	h.send(keyCtrlR)
	h.runUntilShown("Sources · of the last answer", "[1] boiler.pdf · p. 3 · Reset", "[2] notes.md › Install")
	h.send(keyEnter)
	h.runUntilShown("[1] Boiler manual", "p. 3 · Reset", "/home/alice/manuals/boiler.pdf",
		"To reset the boiler, hold the red button for ten seconds until the light blinks twice.")
	h.send(keyEsc)
	h.runUntilShown("Sources · of the last answer")
	h.send(keyEsc)
	h.runUntil("the chat", func() bool { return !h.shows("Sources · of") && h.shows("Hold the red button [1]") })

	h.typeText("/sources")
	h.send(keyEnter)
	h.runUntilShown("Sources · of the last answer")
}

// TestAnswerWithoutMarksListsEverySource: an answer that cites no number
// still lists the passages it was given.
func TestAnswerWithoutMarksListsEverySource(t *testing.T) {
	store := openStore(t)
	h := newHarness(t, config(store, citingRunner(store, "Hold the red button.", resetCite, installCite), readyProbe))
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.typeText("reset?")
	h.send(keyEnter)
	h.runUntilIdle()
	h.runUntilShown("Sources  [1] boiler.pdf · p. 3 · Reset   [2] notes.md › Install")
}

// TestSourcesAfterReload: a conversation loaded from the store lists the
// sources of each answer again, from its stored file_search results.
func TestSourcesAfterReload(t *testing.T) {
	store := openStore(t)
	ctx := context.Background()
	conv := must[memory.Conversation](t)(store.CreateConversation(ctx, testUser, "Boiler"))
	out, _ := json.Marshal(map[string]any{"query": "reset", "results": []map[string]any{
		{"n": 1, "document_id": "d1", "path": resetCite.Path, "title": resetCite.Title, "heading": "Reset", "page": 3, "chunk": 4,
			"passage": resetCite.Passage, "score": 0.9},
	}})
	for _, m := range []memory.Message{
		{Role: memory.RoleUser, Content: "how do I reset the boiler?"},
		{Role: memory.RoleAssistant, ToolCalls: []memory.ToolCall{{ID: "c1", Name: "file_search", Arguments: json.RawMessage(`{"query":"reset"}`)}}},
		{Role: memory.RoleTool, ToolCallID: "c1", ToolName: "file_search", Content: string(out)},
		{Role: memory.RoleAssistant, Content: "Hold the red button for ten seconds [1]."},
		{Role: memory.RoleUser, Content: "thanks"},
		{Role: memory.RoleAssistant, Content: "You are welcome."},
	} {
		m.ConversationID = conv.ID
		if _, err := store.AppendMessage(ctx, testUser, m); err != nil {
			t.Fatal(err)
		}
	}
	cfg := config(store, newFakeRunner(store), readyProbe)
	cfg.ConversationID = conv.ID
	h := newHarness(t, cfg)
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.runUntilShown("You are welcome.", "Sources  [1] boiler.pdf · p. 3 · Reset")
	s := h.screen()
	if strings.Index(s, "Sources  [1]") < strings.Index(s, "Hold the red button") || strings.Index(s, "Sources  [1]") > strings.Index(s, "thanks") {
		t.Fatalf("the sources are not under their answer:\n%s", s)
	}
	h.send(keyCtrlR)
	h.send(keyEnter)
	h.runUntilShown("[1] Boiler manual", "until the light blinks twice.")
}

// boilerManual is what attaching ~/boiler.pdf adds.
var boilerManual = AttachResult{Title: "Boiler manual", Path: "/home/alice/boiler.pdf", Passages: 12, Outcome: "added", IDs: []string{"b1"}}

// TestAttachTellsTheNextRun: /attach adds the document in a command and
// shows a receipt; the next prompt's run is told about it, the one after
// is not. A failure says why.
func TestAttachTellsTheNextRun(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "ok")
	cfg := config(store, r, readyProbe)
	var mu sync.Mutex
	var asked []string
	cfg.Attach = func(_ context.Context, path string) (AttachResult, error) {
		mu.Lock()
		asked = append(asked, path)
		mu.Unlock()
		if strings.HasSuffix(path, "secret.pdf") {
			return AttachResult{}, errors.New("skipped: encrypted PDF")
		}
		if strings.HasSuffix(path, "*.md") { // one of the three was there already
			return AttachResult{Title: "3 documents", Path: "/home/alice/notes", Passages: 7, Outcome: "added", Documents: 3, Unchanged: 1,
				IDs: []string{"n1", "n2", "n3"}}, nil
		}
		return boilerManual, nil
	}
	h := newHarness(t, cfg)
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.typeText("/attach '~/boiler.pdf'")
	h.send(keyEnter)
	h.runUntilShown("📎 added boiler.pdf · 12 passages")
	h.typeText("/attach secret.pdf")
	h.send(keyEnter)
	h.runUntilShown("📎 secret.pdf: skipped: encrypted PDF")
	if got := h.m.input.Value(); got != "/attach secret.pdf" {
		t.Fatalf("the input after a failed /attach: %q; want it back, to be corrected", got)
	}
	h.m.input.Reset()
	h.typeText("/attach notes/*.md")
	h.send(keyEnter)
	h.runUntilShown("📎 added 2 of 3 documents from notes (1 unchanged) · 7 passages")
	home, _ := os.UserHomeDir()
	if len(asked) != 3 || asked[0] != filepath.Join(home, "boiler.pdf") { // ~/ expanded, the quotes off
		t.Fatalf("attach asked for %q", asked)
	}

	h.typeText("what does the manual say?")
	h.send(keyEnter)
	h.runUntilIdle()
	h.typeText("and then?")
	h.send(keyEnter)
	h.runUntilIdle()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.attached) != 2 || len(r.attached[0]) != 2 || r.attached[0][0] != "Boiler manual (/home/alice/boiler.pdf)" || r.attached[1] != nil {
		t.Fatalf("the runs were told of %q, want the manual and the notes once", r.attached)
	}
	if !slices.Equal(r.docs[0], []string{"b1", "n1", "n2", "n3"}) || r.docs[1] != nil { // for their passages
		t.Fatalf("the runs were given the documents %q, want the manual's and the notes' once", r.docs)
	}
}

// TestSourcesHostileText: escapes and bidi controls in a cited path,
// heading and passage are not drawn, in the transcript or the viewer.
func TestSourcesHostileText(t *testing.T) {
	for _, p := range hostile.Payloads {
		t.Run(p.Name, func(t *testing.T) {
			store := openStore(t)
			c := agent.Citation{N: 1, DocumentID: "d", Path: "/docs/f-" + p.Raw + ".pdf", Title: "t-" + p.Raw, Heading: "h-" + p.Raw,
				Passage: "passage " + p.Raw}
			h := newHarness(t, config(store, citingRunner(store, "See [1].", c), readyProbe))
			h.send(tea.WindowSizeMsg{Width: 200, Height: 30})
			h.typeText("q")
			h.send(keyEnter)
			h.runUntilIdle()
			requireSafeView(t, "sources line", h.m.View().Content, "[1]f-"+p.Readable+".pdf›h-"+p.Readable, p.Hidden)
			h.send(keyCtrlR)
			h.send(keyEnter)
			requireSafeView(t, "passage", h.m.View().Content, "passage"+p.Readable, p.Hidden)
			requireSafeView(t, "passage path", h.m.View().Content, "/docs/f-"+p.Readable+".pdf", p.Hidden)
		})
	}
}

// fakeLibrary is one document for /docs.
type fakeLibrary struct{}

func (fakeLibrary) ListDocuments(context.Context, string) ([]docstore.Document, error) {
	return []docstore.Document{{ID: "d1", Path: "/home/alice/boiler.pdf", Title: "Boiler manual", Type: "pdf", Chunks: 12}}, nil
}
func (fakeLibrary) SearchDocs(context.Context, index.DocQuery) ([]index.DocHit, error) {
	return nil, nil
}
func (fakeLibrary) DocumentChunks(context.Context, string, string) ([]docstore.Chunk, error) {
	return []docstore.Chunk{{Text: "Hold the red button."}}, nil
}
func (fakeLibrary) RemoveDocuments(context.Context, string, []string) error { return nil }

// TestSlashDocsOpensTheBrowser: /docs lists the documents; Enter reads one.
func TestSlashDocsOpensTheBrowser(t *testing.T) {
	store := openStore(t)
	cfg := config(store, newFakeRunner(store), readyProbe)
	cfg.Docs = fakeLibrary{}
	h := newHarness(t, cfg)
	h.typeText("/docs")
	h.send(keyEnter)
	h.runUntilShown("Documents · 1 document", "Boiler manual", "/home/alice/boiler.pdf")
	h.send(keyEnter)
	h.runUntilShown("Hold the red button.")
	h.send(keyEsc)
	h.send(keyEsc)
	h.runUntil("the chat", func() bool { return !h.shows("Documents ·") })
}

// shrinkingLibrary loses its documents when removed says so (another
// process removed them).
type shrinkingLibrary struct {
	fakeLibrary
	removed *atomic.Bool
}

func (l shrinkingLibrary) ListDocuments(ctx context.Context, user string) ([]docstore.Document, error) {
	if l.removed.Load() {
		return []docstore.Document{}, nil
	}
	return l.fakeLibrary.ListDocuments(ctx, user)
}

// TestDocsBrowserFollowsOtherProcesses: a document removed elsewhere
// leaves the open browser when the store reports a change.
func TestDocsBrowserFollowsOtherProcesses(t *testing.T) {
	store := openStore(t)
	cfg := config(store, newFakeRunner(store), readyProbe)
	removed := &atomic.Bool{}
	cfg.Docs = shrinkingLibrary{removed: removed}
	h := newHarness(t, cfg)
	h.typeText("/docs")
	h.send(keyEnter)
	h.runUntilShown("Documents · 1 document", "Boiler manual")
	removed.Store(true)
	h.send(storeChangedMsg{}) // as the store's change feed reports it
	h.runUntil("the document gone", func() bool { return !h.shows("Boiler manual") })
}

// TestAttachIsToldAgainAfterAStoppedAnswer: the answer to the first prompt
// after /attach is stopped with Esc; the prompt sent again is told of the
// document, as the stopped one was (it was told to nothing).
func TestAttachIsToldAgainAfterAStoppedAnswer(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "Let me read")
	r.hold = true
	cfg := config(store, r, readyProbe)
	cfg.Attach = func(context.Context, string) (AttachResult, error) { return boilerManual, nil }
	h := newHarness(t, cfg)
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.sendText("/attach boiler.pdf")
	h.runUntilShown("📎 added boiler.pdf · 12 passages")
	h.typeText("what does the manul say?")
	h.send(keyEnter)
	h.runUntilShown("Let me read")
	h.send(keyEsc)
	h.runUntilShown("(interrupted)")
	h.runUntilIdle()
	r.hold = false
	for _, prompt := range []string{"what does the manual say?", "and then?"} {
		h.sendText(prompt)
		h.runUntilIdle()
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.docs) != 3 || !slices.Equal(r.docs[0], []string{"b1"}) || !slices.Equal(r.docs[1], []string{"b1"}) || r.docs[2] != nil {
		t.Fatalf("the runs were told of %q; want the manual in the stopped one and the one after, not the third", r.docs)
	}
	if len(r.attached[1]) != 1 || r.attached[1][0] != "Boiler manual (/home/alice/boiler.pdf)" {
		t.Fatalf("the second run was told of %q", r.attached[1])
	}
}

// TestAttachCompletesPaths: while /attach's argument is typed, the names
// in its folder that it may go on with are listed; Tab writes what they
// share (when it is more than is typed), else the chosen one; Enter
// attaches what is typed if it exists, else the chosen file.
func TestAttachCompletesPaths(t *testing.T) {
	root := t.TempDir()
	for _, p := range []string{"manuals/books", "manuals/bin"} {
		if err := os.MkdirAll(filepath.Join(root, p), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"manuals/boiler.pdf", "manuals/notes.md", "manuals/report-2025.pdf", "manuals/report-2026.pdf"} {
		if err := os.WriteFile(filepath.Join(root, p), []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	store := openStore(t)
	cfg := config(store, newFakeRunner(store, "ok"), readyProbe)
	var asked []string
	cfg.Attach = func(_ context.Context, path string) (AttachResult, error) {
		asked = append(asked, path)
		if strings.HasSuffix(path, "/") { // a folder: several documents, some files left out
			return AttachResult{Title: "3 documents", Path: path, Passages: 9, Outcome: "added", Documents: 3, Skipped: 2}, nil
		}
		return AttachResult{Path: path, Passages: 1, Outcome: "added", Documents: 1}, nil
	}
	h := newHarness(t, cfg)
	h.send(tea.WindowSizeMsg{Width: 200, Height: 30})
	dir := root + "/manuals/"
	h.typeText("/attach " + dir + "b")
	h.runUntilShown("bin/", "books/", "boiler.pdf")
	if h.shows("› bin/") {
		t.Fatalf("a row is drawn chosen before ↑/↓ chose it:\n%s", h.screen())
	}
	if h.shows("notes.md") {
		t.Fatalf("notes.md does not begin with b, yet is listed:\n%s", h.screen())
	}
	h.typeText("o")
	h.runUntilShown("books/", "boiler.pdf")
	if h.shows("bin/") {
		t.Fatalf("bin/ is still listed after bo:\n%s", h.screen())
	}
	h.send(keyDown) // chosen in the list while its listing is on its way
	h.send(keyTab)  // which this Tab waits for
	h.runUntil("tab to write the chosen file", func() bool { return h.m.input.Value() == "/attach "+dir+"boiler.pdf" })
	h.send(keyEnter)
	h.runUntilShown("📎 added boiler.pdf")
	if len(asked) != 1 || asked[0] != dir+"boiler.pdf" {
		t.Fatalf("attach asked for %q", asked)
	}

	h.typeText("/attach " + dir + "r")
	h.runUntilShown("report-2025.pdf", "report-2026.pdf")
	h.send(keyTab) // first what they share, as a shell does
	if got := h.m.input.Value(); got != "/attach "+dir+"report-202" {
		t.Fatalf("tab wrote %q, want what both reports share", got)
	}
	// Enter takes a file chosen with ↑/↓, or the one name there is, when
	// what is typed names nothing; it attaches what is typed when it does
	// (here a folder).
	h.runUntil("the listing of report-202", func() bool { return h.m.completion.listed })
	h.send(keyDown)
	h.send(keyUp)
	h.send(keyEnter)
	h.runUntilShown("📎 added report-2025.pdf")
	h.typeText("/attach " + dir + "no")
	h.runUntil("the listing of no", func() bool { return h.m.completion.listed })
	h.send(keyEnter)
	h.runUntilShown("📎 added notes.md")
	// A path in an opened quote completes inside it.
	h.typeText(`/attach "` + dir + "rep")
	h.runUntil("the listing of rep", func() bool { return h.m.completion.listed })
	h.send(keyTab)
	if got := h.m.input.Value(); got != `/attach "`+dir+"report-202" {
		t.Fatalf("tab in an opened quote wrote %q", got)
	}
	h.send(keyCtrlC)
	h.typeText("/attach " + dir)
	h.runUntil("the listing of the folder", func() bool { return h.m.completion.listed })
	h.send(keyEnter)
	h.runUntilShown("📎 added 3 documents from manuals · 9 passages · 2 skipped")
	// A row chosen with ↑/↓ wins over a folder typed whole.
	h.typeText("/attach " + dir)
	h.runUntil("the listing of the folder", func() bool { return h.m.completion.listed })
	h.send(keyDown)
	h.send(keyDown) // bin/, books/, then boiler.pdf
	h.send(keyEnter)
	h.runUntil("the chosen file to be attached", func() bool { return len(asked) == 5 })
	if want := []string{dir + "boiler.pdf", dir + "report-2025.pdf", dir + "notes.md", dir, dir + "boiler.pdf"}; !slices.Equal(asked, want) {
		t.Fatalf("attach asked for %q, want %q", asked, want)
	}
}

// TestRecalledPassageIsASource: a passage recalled into the prompt is
// listed with the answer's sources (marked ↺, as it is not cited by
// number), and ctrl+r reads it.
func TestRecalledPassageIsASource(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "Hold the red button.")
	recalled := agent.Citation{DocumentID: "doc-b", Path: "/home/alice/boiler.md", Title: "Boiler", Heading: "Reset", Chunk: 2,
		Passage: "Hold the red button for ten seconds until the light blinks."}
	r.recalled = []agent.Memory{{Text: recalled.Passage, Source: "boiler.md · Reset", Citation: &recalled}}
	h := newHarness(t, config(store, r, readyProbe))
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.sendText("how do I reset the boiler?")
	h.runUntilIdle()
	h.runUntilShown("Sources  ↺ boiler.md › Reset")
	h.send(keyCtrlR)
	h.runUntilShown("↺ boiler.md › Reset", "Hold the red button for ten seconds")
}

// TestAPromptWaitsForTheFileBeingAttached: Enter while /attach is still
// adding its file sends nothing and says why (the prompt went without the
// file, and the next, unrelated one got it); once the receipt shows, the
// prompt goes with it.
func TestAPromptWaitsForTheFileBeingAttached(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "ok")
	cfg := config(store, r, readyProbe)
	release := make(chan struct{})
	cfg.Attach = func(ctx context.Context, _ string) (AttachResult, error) {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return AttachResult{Title: "Huge", Path: "/home/alice/huge.md", Passages: 9, Outcome: "added", IDs: []string{"h1"}}, nil
	}
	h := newHarness(t, cfg)
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.typeText("/attach huge.md")
	h.send(keyEnter)
	h.typeText("what is in section 77?")
	h.send(keyEnter)
	h.runUntilShown("A file is being attached: send once its 📎 receipt shows.")
	if runs := r.runs(); len(runs) != 0 {
		t.Fatalf("sent while the file was being attached: %q", runs)
	}
	close(release)
	h.runUntilShown("📎 added huge.md · 9 passages")
	h.send(keyEnter)
	h.runUntilIdle()
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.prompts) != 1 || r.prompts[0] != "what is in section 77?" || !slices.Equal(r.docs[0], []string{"h1"}) {
		t.Fatalf("runs %q with documents %q", r.prompts, r.docs)
	}
}
