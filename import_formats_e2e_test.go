package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/fakeollama"
)

// A ChatGPT export goes in through the binary: the summary says what was
// kept and skipped, search finds the imported turns under their titles,
// and importing it again adds nothing.
func TestImportChatGPTExport(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())

	r := d.mustOK("", "import", "importer/testdata/chatgpt.json")
	if !strings.Contains(r.stdout, "Imported 8 new messages from 2 ChatGPT conversations") ||
		!strings.Contains(r.stdout, "Skipped 3 messages: 1 on regenerated or edited-away branches, 2 hidden in the conversation") {
		t.Fatalf("stdout: %s", r.stdout)
	}
	if !strings.Contains(r.stderr, "conversation at index 1") || !strings.Contains(r.stderr, "conv-broken") {
		t.Fatalf("the broken conversation is not reported: %s", r.stderr)
	}
	// in words a person reads, not Go's types
	if !strings.Contains(r.stderr, `its "mapping" is text where an object belongs`) || strings.Contains(r.stderr, "importer.") {
		t.Errorf("the broken conversation's reason: %s", r.stderr)
	}
	hits := d.search("funicular")
	if len(hits) == 0 || hits[0].Title != "Trip to Lisbon" || !strings.Contains(hits[0].Snippet, "funicular") {
		t.Fatalf("search funicular: %+v", hits)
	}
	for _, h := range d.search("zebras") {
		if strings.Contains(h.Snippet, "zebras") {
			t.Fatalf("the abandoned branch was imported: %+v", h)
		}
	}
	titles := map[string]int{}
	for _, c := range d.conversations() {
		titles[c.Title] = c.MessageCount
	}
	if titles["Trip to Lisbon"] != 6 {
		t.Fatalf("conversations: %v", titles)
	}
	// The conversation archived in ChatGPT is archived here: listed, and
	// marked, only with --archived.
	if out := d.mustOK("", "conversations").stdout; strings.Contains(out, "Sourdough starter") {
		t.Fatalf("an archived conversation is listed without --archived:\n%s", out)
	}
	if out := d.mustOK("", "conversations", "--archived").stdout; !strings.Contains(out, "Sourdough starter  (archived)") ||
		strings.Contains(out, "Trip to Lisbon  (archived)") {
		t.Fatalf("conversations --archived does not mark the archived one alone:\n%s", out)
	}
	// The model of each imported answer is kept, and so is the model of
	// an answer mneme writes; the user's messages name none.
	d.mustOK("", "ask", "hello")
	models := map[string]bool{}
	for _, line := range strings.Split(strings.TrimSpace(d.mustOK("", "export").stdout), "\n") {
		var rec struct{ Title, Role, Model string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if rec.Role == "user" && rec.Model != "" {
			t.Errorf("a user's message names a model: %s", line)
		}
		if rec.Role == "assistant" {
			models[rec.Title+" · "+rec.Model] = true
		}
	}
	if !models["Trip to Lisbon · gpt-4o"] || !models["hello · "+fakeollama.DefaultChatModel+":latest"] {
		t.Errorf("answers' models: %v", models)
	}

	r = d.mustOK("", "import", "--from", "chatgpt", "importer/testdata/chatgpt.json")
	if !strings.Contains(r.stdout, "Nothing new in 2 ChatGPT conversations: all 8 messages were already there") {
		t.Fatalf("re-import: %s", r.stdout)
	}

	r = d.mustOK("", "import", "importer/testdata/claude.json")
	if !strings.Contains(r.stdout, "from 1 Claude conversation in") {
		t.Fatalf("claude: %s", r.stdout)
	}
	if hits := d.search("blight"); len(hits) == 0 || hits[0].Title != "Tomato blight" {
		t.Fatalf("search blight: %+v", hits)
	}

	bad := d.mneme("", "import", writeFile(t, "notes.txt", "just some notes\n"))
	if bad.code == 0 || !strings.Contains(bad.stderr, "ChatGPT") || !strings.Contains(bad.stderr, "Open WebUI") {
		t.Fatalf("unknown content: exit %d, stderr %q", bad.code, bad.stderr)
	}
}

// An export with no conversations, or cut off before its first one, says
// that nothing was imported and exits 1 (a script learns it), without a
// report of "Imported 0" first.
func TestImportOfAnExportThatHoldsNothing(t *testing.T) {
	t.Parallel()
	d := newDevice(t, closedPort(t))
	for _, c := range []struct{ name, body, want string }{
		{"empty.json", "[]", "holds no conversations with a message to keep; nothing was imported"},
		{"blank.json", `[{"id":"c1","title":"Blank","mapping":{"r":{"id":"r","children":[]}},"current_node":"r"}]`, "holds no conversations with a message to keep; nothing was imported"},
		{"cut.json", `[{"title": "x", "mapping": {`, "the export is cut off or malformed"},
	} {
		r := d.mneme("", "import", "--from", "chatgpt", writeFile(t, c.name, c.body))
		if r.code != 1 || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, "nothing was imported") || strings.Contains(r.stdout, "Imported") {
			t.Errorf("%s: %+v", c.name, r)
		}
	}
	if list := d.conversations(); len(list) != 0 {
		t.Fatalf("conversations %+v", list)
	}
}
