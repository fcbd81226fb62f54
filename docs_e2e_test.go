package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/cli"
	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/internal/realollama"
	"github.com/mneme-dev/mneme/internal/sanitize/hostile"
	"github.com/mneme-dev/mneme/internal/testpdf"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tools"
)

// docHits runs `mneme docs search --json` and decodes it.
func (d *device) docHits(query ...string) []index.DocHit {
	d.t.Helper()
	r := d.mustOK("", append([]string{"docs", "search", "--json"}, query...)...)
	var hits []index.DocHit
	if err := json.Unmarshal([]byte(r.stdout), &hits); err != nil {
		d.t.Fatalf("docs search --json: %v\n%s", err, r.stdout)
	}
	return hits
}

// writeFiles writes files (name → content) under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestDocsAddFindChangeRemove is the documents' acceptance path through
// the binary: Markdown, HTML, PDF and text are added and found by their
// words (script text is not), a binary is refused with a reason, a changed
// file is found by its new text only, rm takes a document out of search,
// and another user finds nothing.
func TestDocsAddFindChangeRemove(t *testing.T) {
	t.Parallel()
	d := newDevice(t, "127.0.0.1:1") // no Ollama: keyword search only
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"manual.md":          "# Boiler manual\n\n## Reset\nHold the crimson button for ten seconds.\n\n## Service\nBook a service every autumn.\n",
		"garden.html":        "<html><head><title>Garden</title><script>var hiddenScriptWord = 1;</script><style>.x{}</style></head><body><h1>Roses</h1><p>Prune the hydrangeas in March.</p></body></html>",
		"notes.txt":          "The spare key is under the blue flowerpot.\n",
		"photo.png":          "\x89PNG\r\n\x1a\n\x00\x00binary",
		"data.txt":           "text\x00with a NUL byte",
		"ignored/.gitignore": "*.md\n",
	})
	pdf := testpdf.Write([]string{
		"BT /F1 12 Tf 72 720 Td (Quarterly revenue grew by eleven percent.) Tj ET",
		"BT /F1 12 Tf 72 720 Td (The warehouse in Lisbon closes in June.) Tj ET",
	}, "<< /Title (Quarterly Report) >>", "")
	if err := os.WriteFile(filepath.Join(dir, "report.pdf"), pdf, 0o600); err != nil {
		t.Fatal(err)
	}

	r := d.mneme("", "docs", "add", dir)
	for _, want := range []string{
		"added      " + filepath.Join(dir, "manual.md") + " · 2 passages",
		"added      " + filepath.Join(dir, "report.pdf") + " · 2 passages",
		"skipped    " + filepath.Join(dir, "photo.png") + ": unsupported type .png",
		"skipped    " + filepath.Join(dir, "data.txt") + ": binary file",
		"4 added, 0 updated, 0 unchanged, 2 skipped",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("docs add output lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 0 {
		t.Fatalf("docs add exited %d: %s", r.code, r.stderr)
	}

	for query, file := range map[string]string{
		"crimson button": "manual.md", "hydrangeas": "garden.html", "flowerpot": "notes.txt", "warehouse Lisbon": "report.pdf",
	} {
		hits := d.docHits(query)
		if len(hits) == 0 || filepath.Base(hits[0].Path) != file {
			t.Errorf("%q: hits %+v, want %s first", query, hits, file)
		}
	}
	if hits := d.docHits("warehouse"); len(hits) == 0 || hits[0].Page != 2 || hits[0].Title != "Quarterly Report" {
		t.Errorf("the PDF hit should name its page and title: %+v", hits)
	}
	if hits := d.docHits("Reset"); len(hits) == 0 || hits[0].Heading != "Boiler manual › Reset" {
		t.Errorf("the Markdown hit should name its heading: %+v", hits)
	}
	if hits := d.docHits("hiddenScriptWord"); len(hits) != 0 {
		t.Errorf("script text was indexed: %+v", hits)
	}

	// Unchanged: nothing to do. Changed: the new text only.
	if r := d.mustOK("", "docs", "add", filepath.Join(dir, "notes.txt")); !strings.Contains(r.stdout, "unchanged  ") {
		t.Errorf("re-adding an unchanged file: %s", r.stdout)
	}
	if r := d.mustOK("", "docs", "add", "--collection", "house", filepath.Join(dir, "notes.txt")); !strings.Contains(r.stdout, "moved      "+filepath.Join(dir, "notes.txt")+` → collection "house"`) {
		t.Errorf("moving an unchanged file to a collection: %s", r.stdout)
	}
	writeFiles(t, dir, map[string]string{"notes.txt": "The spare key is now with the neighbour.\n"})
	if r := d.mustOK("", "docs", "add", filepath.Join(dir, "notes.txt")); !strings.Contains(r.stdout, "updated    ") {
		t.Errorf("re-adding a changed file: %s", r.stdout)
	}
	if hits := d.docHits("flowerpot"); len(hits) != 0 {
		t.Errorf("the old text is still found: %+v", hits)
	}
	if hits := d.docHits("neighbour"); len(hits) != 1 {
		t.Errorf("the new text is not found: %+v", hits)
	}

	// A file over max_doc_mb is skipped with the reason; the rest goes in.
	big := filepath.Join(dir, "big.txt")
	writeFiles(t, dir, map[string]string{"big.txt": strings.Repeat("enormous words here ", 60_000)}) // 1.2 MB
	limited := *d
	limited.extra = []string{"MNEME_MAX_DOC_MB=1"}
	if r := limited.mneme("", "docs", "add", big, filepath.Join(dir, "notes.txt")); r.code != 0 ||
		!strings.Contains(r.stdout, "skipped    "+big+": larger than max_doc_mb (1 MB)") || !strings.Contains(r.stdout, "0 added, 0 updated, 1 unchanged, 1 skipped") {
		t.Errorf("docs add over max_doc_mb: %+v", r)
	}

	// Another user finds nothing and lists nothing.
	other := *d
	other.extra = []string{"MNEME_USER=someone-else"}
	if hits := other.docHits("crimson button"); len(hits) != 0 {
		t.Errorf("another user found %+v", hits)
	}

	// rm takes the document out of search.
	manual := d.docHits("crimson button")[0]
	// A prefix shorter than 8 names a moment (ids begin with their time),
	// not a document: nothing is removed.
	if r := d.mneme("", "docs", "rm", manual.DocumentID[:4]); r.code != 2 || !strings.Contains(r.stderr, "at least 8 characters") {
		t.Errorf("docs rm of a 4-character prefix: %+v", r)
	}
	if r := d.mustOK("", "docs", "rm", manual.DocumentID[:8]); !strings.Contains(r.stdout, "removed Boiler manual") {
		t.Errorf("docs rm: %s", r.stdout)
	}
	if hits := d.docHits("crimson button"); len(hits) != 0 {
		t.Errorf("a removed document is still found: %+v", hits)
	}
	// A document is also named by the path it was added from.
	if r := d.mustOK("", "docs", "rm", filepath.Join(dir, "garden.html")); !strings.Contains(r.stdout, "removed ") {
		t.Errorf("docs rm PATH: %s", r.stdout)
	}
	if hits := d.docHits("hydrangeas"); len(hits) != 0 {
		t.Errorf("a document removed by its path is still found: %+v", hits)
	}
	// …through a link to its folder too (documents are known by real paths).
	link := filepath.Join(t.TempDir(), "linked")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	if r := d.mustOK("", "docs", "rm", filepath.Join(link, "report.pdf")); !strings.Contains(r.stdout, "removed ") {
		t.Errorf("docs rm through a link: %s", r.stdout)
	}
	var list []struct {
		Path   string `json:"path"`
		Chunks int    `json:"chunks"`
		State  string `json:"state"`
	}
	if err := json.Unmarshal([]byte(d.mustOK("", "docs", "list", "--json").stdout), &list); err != nil || len(list) != 1 {
		t.Fatalf("docs list: %+v, %v", list, err)
	}
	for _, l := range list {
		if l.State != "indexed by words" || l.Chunks == 0 { // offline: no embedding model
			t.Errorf("listed %+v", l)
		}
	}
	// A path nothing was added from is named as a path, not taken for an
	// id; a folder removes every document added from under it.
	if r := d.mneme("", "docs", "rm", "./no/such/file.md"); r.code != 1 || !strings.Contains(r.stderr, "no document was added from") {
		t.Errorf("docs rm of an unknown path: %+v", r)
	}
	// A file whose name holds an escape is listed cleaned, and removed by
	// the name as listed.
	writeFiles(t, dir, map[string]string{"ev\x1b[31mil.md": "# Evil\n\nA file with an escape in its name.\n"})
	d.mustOK("", "docs", "add", filepath.Join(dir, "ev\x1b[31mil.md"))
	shown := filepath.Join(dir, "evil.md")
	if out := d.mustOK("", "docs", "list").stdout; !strings.Contains(out, shown) || strings.ContainsRune(out, '\x1b') {
		t.Fatalf("docs list: %q", out)
	}
	if r := d.mustOK("", "docs", "rm", shown); !strings.Contains(r.stdout, "removed ") {
		t.Errorf("docs rm by the name listed: %s", r.stdout)
	}
	if r := d.mustOK("", "docs", "rm", dir); !strings.Contains(r.stdout, "removed ") {
		t.Errorf("docs rm of a folder: %s", r.stdout)
	}
	if out := d.mustOK("", "docs", "list", "--json").stdout; strings.TrimSpace(out) != "[]" {
		t.Errorf("documents left after removing their folder: %s", out)
	}
}

// TestDocsAddAgainDropsFilesGoneFromTheFolder: a folder added again
// removes the documents whose files were deleted from it, so their text is
// no longer found; a file named outright, or a folder not there, removes
// nothing.
// TestDocsSearchSaysWhenItIsByKeywordOnly: with Ollama down, `docs
// search` still answers, by keyword, and says so on stderr, as `search`
// does (it fell back without a word).
func TestDocsSearchSaysWhenItIsByKeywordOnly(t *testing.T) {
	t.Parallel() // own data dir
	d := newDevice(t, closedPort(t))
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"plan.md": "# Plan\n\nThe zanzibar launch is in May.\n"})
	d.mustOK("", "docs", "add", dir)
	r := d.mustOK("", "docs", "search", "zanzibar")
	if !strings.Contains(r.stdout, "plan.md") || !strings.Contains(r.stderr, "search by meaning is unavailable for now") {
		t.Fatalf("docs search with Ollama down: %+v", r)
	}
}

// TestDocsAddSkipsANameNotInUTF8: a file named in Latin-1 (from an old
// zip) stopped `docs add` of its folder with the driver's error, and none
// of the files after it was stored. It is skipped with the reason, and
// the rest is added.
func TestDocsAddSkipsANameNotInUTF8(t *testing.T) {
	t.Parallel() // own data dir
	d := newDevice(t, closedPort(t))
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"caf\xe9.txt": "cafe notes\n", "plan.md": "# Plan\n\nThe zanzibar launch is in May.\n"})
	r := d.mustOK("", "docs", "add", dir)
	if !strings.Contains(r.stdout, "its name is not UTF-8 text: rename it to add it") || strings.Contains(r.stdout+r.stderr, "bind") {
		t.Fatalf("docs add of a folder with a Latin-1 name: %+v", r)
	}
	if r := d.mustOK("", "docs", "list"); !strings.Contains(r.stdout, "plan.md") {
		t.Fatalf("docs list:\n%s", r.stdout)
	}
}

// TestDocsAddBesideAHungOllamaKeepsTheFile: `docs add` stores the file
// before it asks Ollama for the embedding model: Ctrl+C while an Ollama
// that never answers is asked keeps the document (it was lost, after
// seconds of silence).
func TestDocsAddBesideAHungOllamaKeepsTheFile(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.Freeze()
	d := newDevice(t, srv.Host())
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"plan.md": "# Plan\n\nThe zanzibar launch is in May.\n"})
	cmd, stderr := d.start(nil, "docs", "add", dir)
	interruptOnceHeld(t, srv, cmd, stderr)
	if r := d.mustOK("", "docs", "list"); !strings.Contains(r.stdout, "plan.md") {
		t.Fatalf("docs list after Ctrl+C beside a hung Ollama:\n%s", r.stdout)
	}
}

func TestDocsAddAgainDropsFilesGoneFromTheFolder(t *testing.T) {
	t.Parallel() // own data dir, no Ollama
	d := newDevice(t, "127.0.0.1:1")
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"runbook.md": "# Runbook\n\nDeploy zanzibar with the blue script.\n",
		"keep.txt":   "The jicama goes in the salad.\n",
	})
	d.mustOK("", "docs", "add", dir)
	if err := os.Remove(filepath.Join(dir, "runbook.md")); err != nil {
		t.Fatal(err)
	}
	if r := d.mustOK("", "docs", "add", filepath.Join(dir, "keep.txt")); strings.Contains(r.stdout, "removed") {
		t.Fatalf("adding one file removed others:\n%s", r.stdout)
	}
	if hits := d.docHits("zanzibar"); len(hits) != 1 {
		t.Fatalf("before the folder is added again: %+v", hits)
	}
	r := d.mustOK("", "docs", "add", dir)
	for _, want := range []string{"removed    " + filepath.Join(dir, "runbook.md") + ": no longer in the folder", "0 added, 0 updated, 1 unchanged, 0 skipped, 1 removed"} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("docs add lacks %q:\n%s", want, r.stdout)
		}
	}
	if hits := d.docHits("zanzibar"); len(hits) != 0 {
		t.Fatalf("a deleted file's text is still found: %+v", hits)
	}
	if hits := d.docHits("jicama"); len(hits) != 1 {
		t.Fatalf("the file still in the folder: %+v", hits)
	}
	// A document is shown by the path it was added from, as docs rm names it.
	if r := d.mustOK("", "docs", "show", filepath.Join(dir, "keep.txt")); !strings.Contains(r.stdout, "jicama") {
		t.Fatalf("docs show PATH:\n%s", r.stdout)
	}
	// To show, a 4-character prefix that is unique does (only a change
	// takes 8: it was refused "to change or delete").
	if hits := d.docHits("jicama"); len(hits) == 1 {
		if r := d.mustOK("", "docs", "show", hits[0].DocumentID[:4]); !strings.Contains(r.stdout, "jicama") {
			t.Fatalf("docs show with a 4-character prefix:\n%s", r.stdout)
		}
	}
	if r := d.mneme("", "docs", "rm", "--json", "zzzzzzzz"); r.code != 1 || strings.TrimSpace(r.stdout) != "[]" {
		t.Fatalf("docs rm --json of nothing: %+v", r)
	}
	// The folder gone (an unmounted disk): nothing is removed.
	if err := os.Rename(dir, dir+".away"); err != nil {
		t.Fatal(err)
	}
	if r := d.mneme("", "docs", "add", dir); r.code != 1 || strings.Contains(r.stdout, "removed") {
		t.Fatalf("adding a folder that is not there: %+v", r)
	}
	if hits := d.docHits("jicama"); len(hits) != 1 {
		t.Fatalf("a folder not there dropped its documents: %+v", hits)
	}
}

// TestDocsAddAgainFinishesPendingEmbeddings: passages left without
// vectors (embedding failed, or Ctrl+C stopped it) are embedded by the
// next docs add, even of the same unchanged file: it does not just say
// "unchanged" and leave them pending for good.
func TestDocsAddAgainFinishesPendingEmbeddings(t *testing.T) {
	t.Parallel()
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"manual.md": "# Boiler manual\n\n## Reset\nHold the crimson button for ten seconds.\n"})
	srv.FailEmbed(http.StatusInternalServerError, "embedding model crashed")
	if out := d.mustOK("", "docs", "add", dir).stdout; !strings.Contains(out, "Embedding paused") {
		t.Fatalf("docs add with embeddings failing:\n%s", out)
	}
	if out := d.mustOK("", "docs", "list").stdout; !strings.Contains(out, "embedding 1 pending") {
		t.Fatalf("docs list with a passage left to embed:\n%s", out)
	}
	srv.ClearEmbedFailure()
	out := d.mustOK("", "docs", "add", dir).stdout
	if !strings.Contains(out, "unchanged  ") || !strings.Contains(out, "Search by meaning is ready.") {
		t.Fatalf("docs add again:\n%s", out)
	}
	if out := d.mustOK("", "docs", "list").stdout; !strings.Contains(out, " indexed ") {
		t.Fatalf("docs list after the second docs add:\n%s", out)
	}
}

// TestAskFileSearchCitesTheFile: the model calls file_search, and its
// tool result carries the passage and a citation naming the file.
func TestAskFileSearchCitesTheFile(t *testing.T) {
	t.Parallel()
	srv := fakeollama.New(t)
	srv.Script(
		fakeollama.Reply{ToolCalls: []api.ToolCall{fakeollama.ToolCall(tools.FileSearchName, map[string]any{"query": "how do I reset the boiler"})}},
		fakeollama.Say("Hold the crimson button for ten seconds [1]."),
		fakeollama.Reply{ToolCalls: []api.ToolCall{fakeollama.ToolCall(tools.FileSearchName, map[string]any{"query": "reset the boiler"})}},
		fakeollama.Say("Hold the crimson button [1]."),
	)
	d := newDevice(t, srv.Host())
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"manual.md": "# Boiler manual\n\n## Reset\nTo reset the boiler, hold the crimson button for ten seconds.\n"})
	// docs add indexes words at once, then embeds while it waits.
	if out := d.mustOK("", "docs", "add", dir).stdout; !strings.Contains(out, "Search by meaning is ready.") {
		t.Fatalf("docs add:\n%s", out)
	}
	if out := d.mustOK("", "docs", "list").stdout; !strings.Contains(out, " indexed ") {
		t.Fatalf("docs list after embedding:\n%s", out)
	}

	out, _ := d.askJSON("how do I reset my boiler?")
	if len(out.ToolCalls) != 1 || out.ToolCalls[0].Name != tools.FileSearchName || out.ToolCalls[0].Error != "" {
		t.Fatalf("tool calls %+v", out.ToolCalls)
	}
	var res tools.FileSearchOut
	if err := json.Unmarshal([]byte(out.ToolCalls[0].Result), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Results) == 0 || res.Results[0].N != 1 || res.Results[0].Path != filepath.Join(dir, "manual.md") ||
		!strings.Contains(res.Results[0].Passage, "crimson button") || res.Results[0].Heading != "Boiler manual › Reset" {
		t.Fatalf("file_search result %+v", res)
	}
	// The model read the passage: it went back in the next request.
	last := srv.LastRequest()
	if tool := last.Messages[len(last.Messages)-1]; tool.Role != "tool" || !strings.Contains(tool.Content, "crimson button") {
		t.Fatalf("last message sent: %+v", tool)
	}
	// Plain ask lists what [1] is under the answer.
	r := d.mustOK("", "ask", "and again?")
	want := "Hold the crimson button [1].\n\nSources:\n  [1] Boiler manual · Boiler manual › Reset — " + filepath.Join(dir, "manual.md") + "\n"
	if r.stdout != want {
		t.Fatalf("ask printed %q, want %q", r.stdout, want)
	}
	if !strings.Contains(r.stderr, `⚙ searched documents for "reset the boiler" (1 passage)`) {
		t.Fatalf("stderr %q", r.stderr)
	}
}

// TestAskRecallsAPassageOfTheDocuments: a passage clearly about the
// prompt goes into the system prompt, the receipt names its file, and
// MNEME_DOC_RECALL=false keeps it out.
func TestAskRecallsAPassageOfTheDocuments(t *testing.T) {
	t.Parallel()
	srv := fakeollama.New(t)
	srv.Script(fakeollama.Say("Hold the crimson button."), fakeollama.Say("Hold it."))
	d := newDevice(t, srv.Host())
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"manual.md": "# Boiler manual\n\n## Reset\nTo reset the boiler, hold the crimson button for ten seconds.\n"})
	d.mustOK("", "docs", "add", dir)

	r := d.mustOK("", "ask", "How do I reset the boiler?")
	if !strings.Contains(r.stderr, "↺ recalled a passage from manual.md · Boiler manual › Reset") {
		t.Fatalf("no receipt naming the passage: %q", r.stderr)
	}
	// It is listed under the answer with its sources, where to read it.
	if !strings.Contains(r.stdout, "Sources:\n  ↺ Boiler manual · Boiler manual › Reset — "+filepath.Join(dir, "manual.md")) {
		t.Fatalf("the recalled passage is not among the sources:\n%s", r.stdout)
	}
	sys := srv.LastRequest().Messages[0]
	if sys.Role != "system" || !strings.Contains(sys.Content, "<document_passages>") || !strings.Contains(sys.Content, "crimson button") {
		t.Fatalf("system prompt: %+v", sys)
	}

	d.extra = []string{"MNEME_DOC_RECALL=false"}
	r = d.mustOK("", "ask", "How do I reset the boiler?")
	if strings.Contains(r.stderr, "passage") || strings.Contains(srv.LastRequest().Messages[0].Content, "crimson") {
		t.Fatalf("doc_recall off still recalled: %q", r.stderr)
	}
}

// TestDocsWithRealOllamaEmbeddings: document chunks are embedded by a real
// Ollama server and found by meaning (the tiny model's vectors mean
// little; the code path is the real one).
func TestDocsWithRealOllamaEmbeddings(t *testing.T) {
	srv := realollama.Start(t)
	srv.CreateChatModel(t, "stories", 256)
	d := newDevice(t, srv.Host)
	d.extra = []string{"MNEME_MODEL=stories", "MNEME_EMBED_MODEL=stories"}
	// The tiny model's vectors are near chance: take every passage found
	// by meaning (recall_threshold also bounds documents).
	writeFiles(t, filepath.Join(d.home, "config", "mneme"), map[string]string{"config.toml": "recall_threshold = 0\n"})
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{
		"dragon.md": "# The dragon\n\nOnce upon a time there was a dragon who lived in a cave.\n",
		"park.txt":  "Lily went to the park with her ball and played all day.\n",
	})
	d.mustOK("", "docs", "add", dir) // embeds the passages before it ends
	hits := d.docHits("dragon")
	kinds := map[index.MatchKind]bool{}
	for _, h := range hits {
		kinds[h.MatchedBy] = true
	}
	if len(hits) != 2 || filepath.Base(hits[0].Path) != "dragon.md" || !kinds[index.MatchBoth] || hits[0].Distance == nil {
		t.Fatalf("hits %+v", hits)
	}
	var list []struct {
		State string `json:"state"`
	}
	if err := json.Unmarshal([]byte(d.mustOK("", "docs", "list", "--json").stdout), &list); err != nil || len(list) != 2 || list[0].State != "indexed" {
		t.Fatalf("docs list: %+v, %v", list, err)
	}
}

// TestHostileDocumentsNeverReachTheTerminal: escape sequences and bidi
// controls in file names, titles, headings and text are never printed by
// docs add, list, search, show or ask's sources, and the readable words
// are still found and shown.
func TestHostileDocumentsNeverReachTheTerminal(t *testing.T) {
	t.Parallel()
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	dir := t.TempDir()
	// A collection named with escapes is refused (it would be listed as
	// another name, and never matched by the name shown), named as typed.
	r := d.mneme("", "docs", "add", "--collection", "ev\x1b[31mil\u202e", writeFile(t, "f.md", "hi"))
	if r.code != 2 || !strings.Contains(r.stderr, `--collection "ev\x1b[31mil\u202e"`) || strings.ContainsRune(r.stderr, '\x1b') {
		t.Fatalf("a hostile collection name: %+v", r)
	}
	files := map[string]string{}
	for i, p := range hostile.Payloads {
		name := fmt.Sprintf("doc%d-%s.md", i, strings.ReplaceAll(p.Raw, "/", "_"))
		files[name] = fmt.Sprintf("# Title %s\n\n## Heading %s\n\nhostile passage %s zebra%d\n", p.Raw, p.Raw, p.Raw, i)
	}
	files["long.txt"] = strings.Repeat("x", 3<<20) + " needle\n" // one 3 MB line
	writeFiles(t, dir, files)
	outs := map[string]string{"docs add": d.mustOK("", "docs", "add", dir).stdout}
	outs["docs list"] = d.mustOK("", "docs", "list").stdout
	outs["docs search"] = d.mustOK("", "docs", "search", "--limit", "50", "hostile passage").stdout
	// The fake model's vectors rank every passage, the long file's too:
	// keep the hostile documents' hits.
	var hits []index.DocHit
	for _, h := range d.docHits("--limit", "50", "hostile passage") {
		if h.MatchedBy != index.MatchVector {
			hits = append(hits, h)
		}
	}
	if len(hits) != len(hostile.Payloads) {
		t.Fatalf("%d hits for %d hostile documents", len(hits), len(hostile.Payloads))
	}
	for _, h := range hits {
		outs["docs show "+h.DocumentID[:8]] = d.mustOK("", "docs", "show", h.DocumentID[:8]).stdout
	}
	// A passage number below 0 is a usage error, not the whole document.
	if r := d.mustOK("", "docs", "show", "--chunk", "0", hits[0].DocumentID[:8]); !strings.Contains(r.stdout, "hostile passage") {
		t.Errorf("docs show --chunk 0: %q", r.stdout)
	}
	if r := d.mneme("", "docs", "show", "--chunk", "-1", hits[0].DocumentID[:8]); r.code != 2 || !strings.Contains(r.stderr, "want a passage number from 0") || r.stdout != "" {
		t.Errorf("docs show --chunk -1: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	srv.Script(
		fakeollama.Reply{ToolCalls: []api.ToolCall{fakeollama.ToolCall(tools.FileSearchName, map[string]any{"query": "hostile passage", "max_results": 20})}},
		fakeollama.Say("See [1] [2] [3] [4] [5] [6] [7] [8]."),
	)
	outs["ask"] = d.mustOK("", "ask", "what is in the hostile passage?").stdout
	for name, out := range outs {
		if bad := hostile.Unsafe(out); bad != "" {
			t.Errorf("%s: %s", name, bad)
		}
	}
	for _, p := range hostile.Payloads {
		if !strings.Contains(outs["docs search"], p.Readable) {
			t.Errorf("docs search does not show %q:\n%s", p.Readable, outs["docs search"])
		}
	}
	if hits := d.docHits("needle"); len(hits) == 0 || filepath.Base(hits[0].Path) != "long.txt" {
		t.Errorf("the long line's last word: %+v", hits)
	}
}

// TestDocsAddCtrlCSaysHowFarItGot: Ctrl+C in a large docs add ends it with
// its counts and how far it got, within the grace a stopped command has;
// the same command again adds the rest.
func TestDocsAddCtrlCSaysHowFarItGot(t *testing.T) {
	t.Parallel()
	d := newDevice(t, "127.0.0.1:1") // keyword only
	dir := t.TempDir()
	files := map[string]string{}
	const n = 2000
	for i := range n {
		files[fmt.Sprintf("n%04d.md", i)] = fmt.Sprintf("# Note %d\n\nThe heron number %d stood by the river.\n", i, i)
	}
	writeFiles(t, dir, files)
	cmd := exec.Command(mnemeBin, "docs", "add", dir)
	cmd.Env = d.env()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(stdout)
	first, err := br.ReadString('\n') // one file is in
	if err != nil || !strings.HasPrefix(first, "added ") {
		cmd.Process.Kill()
		t.Fatalf("first line %q (%v)", first, err)
	}
	cmd.Process.Signal(os.Interrupt)
	rest, _ := io.ReadAll(br)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitInterrupted {
		t.Fatalf("docs add stopped: %v\n%s", err, stderr.String())
	}
	out := first + string(rest)
	added := strings.Count(out, "\nadded ") + 1
	summary := fmt.Sprintf("%d added, 0 updated, 0 unchanged, 0 skipped\n", added)
	if !strings.Contains(out, summary) || !strings.Contains(stderr.String(), fmt.Sprintf("stopped after %d of 2,000 files; the same command again adds the rest", added)) {
		t.Fatalf("stopped docs add: want %q\nstdout tail: %s\nstderr: %s", summary, out[max(0, len(out)-300):], stderr.String())
	}
	again := d.mustOK("", "docs", "add", dir).stdout
	if !strings.Contains(again, fmt.Sprintf("%d added, 0 updated, %d unchanged, 0 skipped", n-added, added)) {
		t.Fatalf("docs add again: %s", again[max(0, len(again)-300):])
	}
}
