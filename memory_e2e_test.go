package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tools"
)

// notes runs `mneme memory list --json` and decodes it.
func (d *device) notes() []memory.Note {
	d.t.Helper()
	r := d.mustOK("", "memory", "list", "--json")
	var list []memory.Note
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		d.t.Fatalf("memory list --json: %v\n%s", err, r.stdout)
	}
	return list
}

// askJSON runs `mneme ask --json` and decodes its result.
func (d *device) askJSON(args ...string) (askOut, result) {
	d.t.Helper()
	r := d.mustOK("", append([]string{"ask", "--json"}, args...)...)
	var out askOut
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		d.t.Fatalf("ask --json: %v\n%s", err, r.stdout)
	}
	return out, r
}

type askOut struct {
	ConversationID string `json:"conversation_id"`
	Answer         string `json:"answer"`
	ToolCalls      []struct {
		Name   string `json:"name"`
		Result string `json:"result"`
		Error  string `json:"error"`
	} `json:"tool_calls"`
	MemoriesUsed []struct {
		NoteID string `json:"note_id"`
		Text   string `json:"text"`
	} `json:"memories_used"`
}

func saveCall(content string) fakeollama.Reply {
	return fakeollama.Reply{ToolCalls: []api.ToolCall{fakeollama.ToolCall(tools.MemorySaveName, map[string]any{"content": content})}}
}

func toolNames(req api.ChatRequest) []string {
	var names []string
	for _, t := range req.Tools {
		names = append(names, t.Function.Name)
	}
	return names
}

// TestAcceptanceRememberMyCat is the acceptance scenario.
func TestAcceptanceRememberMyCat(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.Script(saveCall("The user's cat is called Tom."), fakeollama.Say("Noted: your cat is Tom."))
	d := newDevice(t, srv.Host())

	r := d.mustOK("", "ask", "remember that my cat is called Tom")
	if r.stdout != "Noted: your cat is Tom.\n" || !strings.Contains(r.stderr, `⚙ saved note: "The user's cat is called Tom."`) {
		t.Fatalf("stdout %q stderr %q", r.stdout, r.stderr)
	}
	want := []string{"file_search", "memory_delete", "memory_save", "memory_search", "memory_update", "search_chat_history"}
	if got := toolNames(srv.Requests()[0]); !slices.Equal(got, want) {
		t.Fatalf("tools sent %v", got)
	}

	convs := d.conversations()
	notes := d.notes()
	if len(notes) != 1 || notes[0].Content != "The user's cat is called Tom." ||
		notes[0].ConversationID != convs[0].ID || notes[0].TurnNumber != 1 || notes[0].UserID != "tester" {
		t.Fatalf("notes %+v (conversation %s)", notes, convs[0].ID)
	}
	// The provenance is in the JSON as such.
	raw := d.mustOK("", "memory", "list", "--json").stdout
	if !strings.Contains(raw, `"conversation_id": "`+convs[0].ID+`"`) || !strings.Contains(raw, `"turn_number": 1`) {
		t.Fatalf("memory list --json:\n%s", raw)
	}

	d.extra = []string{"MNEME_USER=someone-else"}
	if r := d.mustOK("", "memory", "list", "--json"); strings.TrimSpace(r.stdout) != "[]" {
		t.Fatalf("someone else's notes: %s", r.stdout)
	}
}

// TestAskToolErrorsGoBackToTheModel: memory_save without content and an
// unknown tool each come back to the model as an error result; the turn
// completes and ask exits 0.
func TestAskToolErrorsGoBackToTheModel(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.Script(
		fakeollama.Reply{ToolCalls: []api.ToolCall{
			fakeollama.ToolCall(tools.MemorySaveName, nil),
			fakeollama.ToolCall("launch_rockets", map[string]any{"count": 3}),
		}},
		fakeollama.Say("Sorry, that did not work."),
	)
	d := newDevice(t, srv.Host())
	out, r := d.askJSON("remember something")
	if out.Answer != "Sorry, that did not work." || len(out.ToolCalls) != 2 {
		t.Fatalf("result %+v", out)
	}
	sent := srv.LastRequest().Messages
	results := sent[len(sent)-2:]
	for i, want := range []string{`missing required field \"content\"`, `unknown tool \"launch_rockets\"`} {
		var body map[string]string
		if results[i].Role != "tool" || json.Unmarshal([]byte(results[i].Content), &body) != nil || !strings.Contains(results[i].Content, want) {
			t.Fatalf("tool result %d sent to the model: %+v", i, results[i])
		}
		if body["error"] == "" {
			t.Fatalf("tool result %d is not an error: %s", i, results[i].Content)
		}
	}
	if !strings.Contains(r.stderr, `⚙ memory_save failed: invalid arguments: missing required field "content"`) ||
		!strings.Contains(r.stderr, `⚙ launch_rockets({"count":3}) ✗ unknown tool "launch_rockets"`) {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
	if notes := d.notes(); len(notes) != 0 {
		t.Fatalf("an invalid call saved %+v", notes)
	}
}

// TestMemoryAcrossConversations: the model saves a note in one
// conversation; in a new one the note is recalled into the system prompt,
// and memory_search finds it.
func TestMemoryAcrossConversations(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.Script(saveCall("The user's cat is called Tom."), fakeollama.Say("Noted."))
	d := newDevice(t, srv.Host())
	first, _ := d.askJSON("remember that my cat is called Tom")

	srv.Script(
		fakeollama.Reply{ToolCalls: []api.ToolCall{fakeollama.ToolCall(tools.MemorySearchName, map[string]any{"query": "What is the name of the user's cat?"})}},
		fakeollama.Say("Your cat is Tom."),
	)
	second, r := d.askJSON("what is my cat called?")
	if second.ConversationID == first.ConversationID || second.Answer != "Your cat is Tom." {
		t.Fatalf("second ask %+v", second)
	}
	reqs := srv.Requests()
	sys := reqs[len(reqs)-2].Messages[0].Content
	if !strings.Contains(sys, "## Things you remember about the user") || !strings.Contains(sys, "- The user's cat is called Tom.") {
		t.Fatalf("system prompt of the new conversation:\n%s", sys)
	}
	if len(second.MemoriesUsed) != 1 || second.MemoriesUsed[0].Text != "The user's cat is called Tom." || second.MemoriesUsed[0].NoteID == "" {
		t.Fatalf("memories_used %+v", second.MemoriesUsed)
	}
	if !strings.Contains(r.stderr, `↺ recalled 1 note: "The user's cat is called Tom."`) ||
		!strings.Contains(r.stderr, `⚙ searched memory for "What is the name of the user's cat?" (1 hit)`) {
		t.Fatalf("stderr:\n%s", r.stderr)
	}
	last := srv.LastRequest().Messages
	var found tools.MemorySearchOut
	if err := json.Unmarshal([]byte(last[len(last)-1].Content), &found); err != nil || len(found.Results) != 1 ||
		found.Results[0].Text != "The user's cat is called Tom." || found.Results[0].Source != tools.SourceUserMemory {
		t.Fatalf("memory_search result sent to the model: %s (%v)", last[len(last)-1].Content, err)
	}
	// The new conversation's history does not carry the first one.
	for _, m := range last {
		if m.Role == "user" && strings.Contains(m.Content, "remember that") {
			t.Fatal("the first conversation leaked into the second")
		}
	}
}

func TestSearchChatHistoryThroughAsk(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	d.mustOK("", "ask", "My sister moved to Lisbon near the tram line")
	call := fakeollama.Reply{ToolCalls: []api.ToolCall{fakeollama.ToolCall(tools.SearchChatHistoryName, map[string]any{"query": "Where did my sister move to?"})}}

	srv.Script(call, fakeollama.Say("Lisbon."))
	d.mustOK("", "ask", "where did my sister move?")
	msgs := srv.LastRequest().Messages
	var out struct {
		Results []struct {
			ConversationID string  `json:"conversationId"`
			TurnNumber     int     `json:"turnNumber"`
			Snippet        string  `json:"snippet"`
			Score          float64 `json:"score"`
		} `json:"results"`
		TotalFound int    `json:"totalFound"`
		Query      string `json:"query"`
		Note       string `json:"note"`
	}
	if err := json.Unmarshal([]byte(msgs[len(msgs)-1].Content), &out); err != nil {
		t.Fatal(err)
	}
	convs := d.conversations()
	if len(out.Results) == 0 || out.Results[0].Snippet != "My sister moved to Lisbon near the tram line" ||
		out.Results[0].ConversationID != convs[len(convs)-1].ID || out.Results[0].TurnNumber != 1 || out.Query != "Where did my sister move to?" {
		t.Fatalf("search_chat_history result: %s", msgs[len(msgs)-1].Content)
	}

	// Another user's history is not searched: they have none.
	d.extra = []string{"MNEME_USER=bob"}
	srv.Script(call, fakeollama.Say("I don't know."))
	r := d.mustOK("", "ask", "where did my sister move?")
	msgs = srv.LastRequest().Messages
	if got := msgs[len(msgs)-1].Content; got != `{"results":[],"totalFound":0,"query":"Where did my sister move to?","note":"no chat history found"}` {
		t.Fatalf("bob's search_chat_history result: %s", got)
	}
	if !strings.Contains(r.stderr, `⚙ searched chat history for "Where did my sister move to?" (0 hits)`) {
		t.Fatalf("stderr %q", r.stderr)
	}
}

func TestMemoryCommands(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())

	var added memory.Note
	r := d.mustOK("", "memory", "add", "--json", "My", "cat", "is", "called", "Tom")
	if err := json.Unmarshal([]byte(r.stdout), &added); err != nil || added.Content != "My cat is called Tom" || added.ConversationID != "" {
		t.Fatalf("add --json: %s (%v)", r.stdout, err)
	}
	if len(srv.EmbedRequests()) == 0 {
		t.Fatal("an added note was not embedded")
	}
	d.mustOK("I bake sourdough bread on Sundays\n", "memory", "add") // piped, as a script writes it
	// The same text again is the note kept, said so, not a copy.
	if r := d.mustOK("", "memory", "add", "My cat is called  Tom"); !strings.Contains(r.stdout, "Already noted: note "+added.ID) || len(d.notes()) != 2 {
		t.Fatalf("add again: %s, notes %+v", r.stdout, d.notes())
	}
	if r := d.mustOK("", "memory", "list"); !strings.Contains(r.stdout, added.ID) || !strings.Contains(r.stdout, "sourdough") || !strings.Contains(r.stdout, "SAVED IN") {
		t.Fatalf("list:\n%s", r.stdout)
	}

	var found []index.NoteResult
	r = d.mustOK("", "memory", "search", "--json", "what is my cat called?")
	if err := json.Unmarshal([]byte(r.stdout), &found); err != nil || len(found) == 0 || found[0].ID != added.ID {
		t.Fatalf("search: %s", r.stdout)
	}

	// Edit by a unique prefix: the text changes, the id stays.
	prefix := added.ID[:len(added.ID)-4]
	if r := d.mustOK("", "memory", "edit", prefix, "My cat is called Felix"); !strings.Contains(r.stdout, "Updated note "+added.ID) {
		t.Fatalf("edit: %s", r.stdout)
	}
	r = d.mustOK("", "memory", "search", "Felix")
	if !strings.Contains(r.stdout, "My cat is called Felix") || !strings.Contains(r.stdout, added.ID) {
		t.Fatalf("search after edit:\n%s", r.stdout)
	}
	if r := d.mustOK("", "memory", "search", "--json", "Tom"); strings.Contains(r.stdout, "Tom") {
		t.Fatalf("the old text is still found:\n%s", r.stdout)
	}

	// Another user can neither see, change nor delete the notes.
	d.extra = []string{"MNEME_USER=bob"}
	if r := d.mustOK("", "memory", "search", "--json", "cat Felix"); strings.TrimSpace(r.stdout) != "[]" {
		t.Fatalf("bob's search: %s", r.stdout)
	}
	for _, args := range [][]string{{"edit", added.ID, "hacked"}, {"rm", added.ID}, {"rm", prefix}} {
		r := d.mneme("", append([]string{"memory"}, args...)...)
		if r.code != 1 || !strings.Contains(r.stderr, "note not found") {
			t.Fatalf("bob memory %v: exit %d stderr %q", args, r.code, r.stderr)
		}
	}
	if list := d.notes(); len(list) != 0 {
		t.Fatalf("bob lists %+v", list)
	}
	d.extra = nil

	var removed memory.Note
	r = d.mustOK("", "memory", "rm", "--json", added.ID)
	if err := json.Unmarshal([]byte(r.stdout), &removed); err != nil || removed.ID != added.ID || removed.Content != "My cat is called Felix" {
		t.Fatalf("rm --json: %s", r.stdout)
	}
	if r := d.mustOK("", "memory", "search", "--json", "cat Felix"); strings.Contains(r.stdout, "Felix") {
		t.Fatalf("a deleted note is found:\n%s", r.stdout)
	}
	if list := d.notes(); len(list) != 1 || !strings.Contains(list[0].Content, "sourdough") {
		t.Fatalf("list after rm: %+v", list)
	}
	if r := d.mneme("", "memory", "rm", added.ID); r.code != 1 || !strings.Contains(r.stderr, "note not found") {
		t.Fatalf("rm twice: exit %d %q", r.code, r.stderr)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"memory"}, "give a command"},
		{[]string{"memory", "forget"}, `unknown command "forget"`},
		{[]string{"memory", "add", "  "}, "nothing to save"},
		{[]string{"memory", "add", strings.Repeat("x", memory.MaxNoteRunes+1)}, "at most 2000"},
		{[]string{"memory", "edit", added.ID}, "give the note's id and its new text"},
		{[]string{"memory", "rm"}, "give one note id"},
		{[]string{"memory", "search"}, "nothing to search for"},
		{[]string{"memory", "search", "--limit", "0", "x"}, "--limit must be"},
	} {
		if r := d.mneme("", c.args...); r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("mneme %v: exit %d stderr %q, want 2 and %q", c.args, r.code, r.stderr, c.want)
		}
	}
}

func TestMemoryAddWorksWithOllamaDown(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	d := newDevice(t, closedPort(t))
	d.mustOK("", "memory", "add", "My cat is called Tom")
	if r := d.mustOK("", "memory", "search", "cat"); !strings.Contains(r.stdout, "My cat is called Tom") {
		t.Fatalf("keyword search of a note saved offline:\n%s", r.stdout)
	}
}

// TestADamagedLocalStateIsSetAside: a damaged mneme-local.db (this
// device's search bookkeeping) failed every command with "mneme.db is
// encrypted or is not a database", the memory itself intact. The next
// command sets it aside as mneme-local.db.damaged-TIME and goes on; search
// finds the notes again.
func TestADamagedLocalStateIsSetAside(t *testing.T) {
	t.Parallel() // own data dir
	d := newDevice(t, closedPort(t))
	d.mustOK("", "memory", "add", "My cat is called Tom")
	local := filepath.Join(d.home, "data", "mneme-local.db")
	for _, suf := range []string{"-wal", "-shm"} {
		os.Remove(local + suf)
	}
	if err := os.WriteFile(local, bytes.Repeat([]byte("not sqlite "), 500), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := d.mustOK("", "memory", "search", "cat"); !strings.Contains(r.stdout, "My cat is called Tom") {
		t.Fatalf("search after the damage:\n%s", r.stdout)
	}
	if aside, _ := filepath.Glob(local + ".damaged-*"); len(aside) != 1 {
		t.Fatalf("the damaged file is not kept aside: %q", aside)
	}
}

// TestMemoryAddBesideAHungOllamaKeepsTheNote: `memory add` and `memory
// edit` write the note before they ask Ollama for its embedding: Ctrl+C
// while an Ollama that never answers is asked keeps the change (it was
// lost, after seconds of silence).
func TestMemoryAddBesideAHungOllamaKeepsTheNote(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	kept := d.mustOK("", "memory", "add", "--json", "My cat is called Tom")
	var n memory.Note
	if err := json.Unmarshal([]byte(kept.stdout), &n); err != nil {
		t.Fatal(err)
	}
	srv.Freeze()
	for _, args := range [][]string{{"memory", "add", "Lives in Lisbon"}, {"memory", "edit", n.ID, "My cat is called Rex"}} {
		cmd, stderr := d.start(nil, args...)
		interruptOnceHeld(t, srv, cmd, stderr)
	}
	var texts []string
	for _, n := range d.notes() {
		texts = append(texts, n.Content)
	}
	slices.Sort(texts)
	if !slices.Equal(texts, []string{"Lives in Lisbon", "My cat is called Rex"}) {
		t.Fatalf("notes after Ctrl+C beside a hung Ollama: %q", texts)
	}
}

func TestRecallCanBeSwitchedOff(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	d.mustOK("", "memory", "add", "The user's cat is called Tom.")

	out, _ := d.askJSON("what is my cat called?")
	if len(out.MemoriesUsed) != 1 || !strings.Contains(srv.LastRequest().Messages[0].Content, "cat is called Tom") {
		t.Fatalf("recall on by default: %+v", out.MemoriesUsed)
	}

	cfgDir := filepath.Join(d.home, "config", "mneme")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	writeConfig := func(body string) {
		if err := os.WriteFile(filepath.Join(cfgDir, "config.toml"), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	writeConfig("recall = false\n")
	out, _ = d.askJSON("what is my cat called?")
	if len(out.MemoriesUsed) != 0 || strings.Contains(srv.LastRequest().Messages[0].Content, "Tom") {
		t.Fatalf("recall = false still recalled %+v", out.MemoriesUsed)
	}

	// A threshold of 1 leaves only notes that share words with the prompt.
	writeConfig("recall_limit = 1\nrecall_threshold = 1.0\n")
	out, _ = d.askJSON("tell me about felines")
	if len(out.MemoriesUsed) != 0 {
		t.Fatalf("recalled by meaning above threshold 1: %+v", out.MemoriesUsed)
	}
	for _, bad := range []string{"recall_limit = 21\n", "recall_threshold = 1.5\n", "recall = \"yes\"\n"} {
		writeConfig(bad)
		if r := d.mneme("", "ask", "hi"); r.code == 0 || !strings.Contains(r.stderr, "config") {
			t.Errorf("config %q: exit %d stderr %q", bad, r.code, r.stderr)
		}
	}
}

func TestModelWithoutToolsStillRecalls(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t, fakeollama.WithModels(
		fakeollama.Model{Name: "plain", Capabilities: []string{"completion"}},
		fakeollama.Model{Name: fakeollama.DefaultEmbedModel, Capabilities: []string{"embedding"}},
	))
	d := newDevice(t, srv.Host())
	d.mustOK("", "memory", "add", "The user's cat is called Tom.")
	out, r := d.askJSON("what is my cat called?")
	if out.Answer != "You said: what is my cat called?" || len(out.MemoriesUsed) != 1 {
		t.Fatalf("result %+v", out)
	}
	if n := strings.Count(r.stderr, "does not support tools"); n != 1 {
		t.Fatalf("told %d times:\n%s", n, r.stderr)
	}
	for _, req := range srv.Requests() {
		if len(req.Tools) != 0 {
			t.Fatal("tools were sent to a model without the tools capability")
		}
	}
}

// TestArchivedNotesAreKeptButNotRecalled: `memory archive` puts a note
// away: it leaves `memory list` (it is in `memory list --archived`, marked)
// and is no longer recalled into prompts; `memory unarchive` brings it
// back.
func TestArchivedNotesAreKeptButNotRecalled(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	r := d.mustOK("", "memory", "add", "--json", "The user's cat is called Tom.")
	var n memory.Note
	if err := json.Unmarshal([]byte(r.stdout), &n); err != nil {
		t.Fatal(err)
	}
	d.mustOK("", "memory", "archive", n.ID[:8])
	if got := d.notes(); len(got) != 0 {
		t.Fatalf("memory list shows an archived note: %+v", got)
	}
	if r := d.mustOK("", "memory", "list", "--archived"); !strings.Contains(r.stdout, "user, archived") || !strings.Contains(r.stdout, "Tom") {
		t.Fatalf("memory list --archived:\n%s", r.stdout)
	}
	if out, _ := d.askJSON("what is my cat called?"); len(out.MemoriesUsed) != 0 {
		t.Fatalf("an archived note was recalled: %+v", out.MemoriesUsed)
	}
	d.mustOK("", "memory", "unarchive", n.ID)
	if out, _ := d.askJSON("what is my cat called, again?"); len(out.MemoriesUsed) != 1 {
		t.Fatalf("an unarchived note was not recalled: %+v", out.MemoriesUsed)
	}
	if got := d.notes(); len(got) != 1 || got[0].Status != memory.NoteActive {
		t.Fatalf("after unarchive: %+v", got)
	}
}

// TestMemorySearchMarksRelatedNotes: without an embedding model, a note
// found only through the words of the best match is marked as related in
// the text output, as --json says.
func TestMemorySearchMarksRelatedNotes(t *testing.T) {
	t.Parallel() // own data dir, no Ollama
	d := newDevice(t, "127.0.0.1:1")
	d.mustOK("", "memory", "add", "Is allergic to peanuts and likes spicy food")
	d.mustOK("", "memory", "add", "Likes jazz")
	r := d.mustOK("", "memory", "search", "peanuts")
	for _, line := range strings.Split(r.stdout, "\n") {
		if strings.Contains(line, "peanuts") && strings.Contains(line, "(related") {
			t.Fatalf("the note holding the word is marked related:\n%s", r.stdout)
		}
	}
	if strings.Contains(r.stdout, "Likes jazz") && !strings.Contains(r.stdout, "(related: it shares no word with the query)") {
		t.Fatalf("a feedback hit is not marked:\n%s", r.stdout)
	}
}
