package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/cli"
	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/internal/realollama"
	"github.com/mneme-dev/mneme/memory"
)

// learnOn turns learning from turns on for this device (the harness turns
// it off for the tests written before it).
func (d *device) learnOn() *device {
	d.extra = append(d.extra, "MNEME_MEMORY_REVIEW=auto")
	return d
}

// isExtraction tells learn's extraction request apart by its system message.
func isExtraction(req api.ChatRequest) bool {
	return len(req.Format) > 0 && len(req.Messages) > 0 && strings.Contains(req.Messages[0].Content, "durable facts about the user")
}

// isDecision tells learn's consolidation decision apart.
func isDecision(req api.ChatRequest) bool {
	return len(req.Format) > 0 && len(req.Messages) > 0 && strings.Contains(req.Messages[0].Content, `"existing"`)
}

func countRequests(srv *fakeollama.Server, is func(api.ChatRequest) bool) int {
	n := 0
	for _, r := range srv.Requests() {
		if is(r) {
			n++
		}
	}
	return n
}

// extractReply answers extraction requests with memories (JSON as the
// schema asks) and everything else by echoing.
func extractReply(memories string) func(api.ChatRequest) fakeollama.Reply {
	return func(req api.ChatRequest) fakeollama.Reply {
		if isExtraction(req) {
			return fakeollama.Reply{Content: []string{`{"memories":` + memories + `}`}}
		}
		if isDecision(req) {
			return fakeollama.Reply{Content: []string{`{"event":"NONE","id":0,"text":""}`}}
		}
		last := req.Messages[len(req.Messages)-1].Content
		return fakeollama.Say("You said: " + last)
	}
}

type askLearnOut struct {
	askOut
	Turn    int `json:"turn"`
	Learned []struct {
		Event  string `json:"event"`
		NoteID string `json:"note_id"`
		Text   string `json:"text"`
	} `json:"learned"`
}

// TestAskLearnsFromTheTurn: after the answer, the turn's durable facts
// become notes marked extracted, with their confidence, tags and turn of
// origin; the same fact again makes no duplicate and costs no decision.
func TestAskLearnsFromTheTurn(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.SetDefault(extractReply(`[{"text":"Has a cat called Tom.","confidence":0.9,"tags":["Pets","cat"],"kind":"fact"},` +
		`{"text":"","confidence":0.5,"tags":[],"kind":"fact"}]`))
	d := newDevice(t, srv.Host()).learnOn()

	r := d.mustOK("", "ask", "--json", "I have a cat called Tom")
	var out askLearnOut
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("ask --json: %v\n%s", err, r.stdout)
	}
	if out.Answer != "You said: I have a cat called Tom" || out.Turn != 1 || len(out.Learned) != 1 ||
		out.Learned[0].Event != "ADD" || out.Learned[0].Text != "Has a cat called Tom." || out.Learned[0].NoteID == "" {
		t.Fatalf("ask --json: %+v", out)
	}
	if !strings.Contains(r.stderr, "✎ remembered: Has a cat called Tom.\n  (mneme memory undo takes it back)") {
		t.Fatalf("stderr %q", r.stderr)
	}
	// The extraction request: instructions in the system message, the
	// turn in the user message, the schema in format.
	i := slices.IndexFunc(srv.Requests(), isExtraction)
	if i < 0 {
		t.Fatal("no extraction request")
	}
	ext := srv.Requests()[i]
	if len(ext.Messages) != 2 || ext.Messages[1].Role != "user" ||
		ext.Messages[1].Content != "User: I have a cat called Tom\nAssistant: You said: I have a cat called Tom" {
		t.Fatalf("extraction request %+v", ext.Messages)
	}
	if ext.Options["num_ctx"] == nil {
		t.Fatalf("extraction request without num_ctx: %+v", ext.Options)
	}

	notes := d.notes()
	if len(notes) != 1 {
		t.Fatalf("notes %+v", notes)
	}
	n := notes[0]
	if n.ID != out.Learned[0].NoteID || n.Content != "Has a cat called Tom." || n.Source != memory.SourceExtracted ||
		n.Confidence != 0.9 || !slices.Equal(n.Tags, []string{"pets", "cat"}) ||
		n.ConversationID != out.ConversationID || n.TurnNumber != 1 {
		t.Fatalf("note %+v", n)
	}
	if r := d.mustOK("", "memory", "list"); !strings.Contains(r.stdout, "extracted 90%") || !strings.Contains(r.stdout, "#pets #cat") {
		t.Fatalf("memory list:\n%s", r.stdout)
	}
	if r := d.mustOK("", "memory", "list", "--json", "--tag", "PETS"); !strings.Contains(r.stdout, n.ID) {
		t.Fatalf("memory list --tag PETS:\n%s", r.stdout)
	}
	if r := d.mustOK("", "memory", "list", "--tag", "dogs"); !strings.Contains(r.stdout, "No note is tagged dogs") {
		t.Fatalf("memory list --tag dogs:\n%s", r.stdout)
	}

	// The same fact from the next turn is already kept: no duplicate, and
	// no decision asked of the model.
	r = d.mustOK("", "ask", "--continue", "As I said, Tom is my cat")
	if strings.Contains(r.stderr, "✎") {
		t.Fatalf("a kept fact was announced again: %q", r.stderr)
	}
	if got := d.notes(); len(got) != 1 || got[0].ID != n.ID {
		t.Fatalf("notes after the same fact again %+v", got)
	}
	// The second prompt recalled the note: it counts as used once.
	if got := d.notes(); got[0].AccessCount != 1 || got[0].LastAccessed == nil {
		t.Fatalf("recall did not raise the note's use: %+v", got[0])
	}
	if k := countRequests(srv, isExtraction); k != 2 {
		t.Fatalf("%d extraction requests, want 2", k)
	}
	if k := countRequests(srv, isDecision); k != 0 {
		t.Fatalf("%d decision requests for an exact duplicate", k)
	}
	// Every dropped candidate is in the log, none on the terminal.
	log, err := os.ReadFile(d.home + "/data/mneme.log")
	if err != nil || !strings.Contains(string(log), "extracted memory dropped") {
		t.Fatalf("log: %v\n%s", err, log)
	}
}

// TestLearningCanBeOff: --no-learn and memory_review = "off" send no
// extraction request; "inbox" is refused as not built yet.
func TestLearningCanBeOff(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.SetDefault(extractReply(`[{"text":"Has a cat called Tom.","confidence":0.9,"tags":[],"kind":"fact"}]`))
	d := newDevice(t, srv.Host()).learnOn()
	d.mustOK("", "ask", "--no-learn", "I have a cat called Tom")
	off := newDevice(t, srv.Host())
	off.extra = append(off.extra, "MNEME_MEMORY_REVIEW=off")
	off.mustOK("", "ask", "I have a cat called Tom")
	if k := countRequests(srv, isExtraction); k != 0 {
		t.Fatalf("%d extraction requests with learning off", k)
	}
	if len(d.notes()) != 0 || len(off.notes()) != 0 {
		t.Fatal("notes learnt with learning off")
	}
	bad := newDevice(t, srv.Host())
	bad.extra = append(bad.extra, "MNEME_MEMORY_REVIEW=sometimes")
	if r := bad.mneme("", "ask", "hello"); r.code == 0 || !strings.Contains(r.stderr, `"auto", "inbox" or "off"`) {
		t.Fatalf("memory_review = sometimes: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestInterruptedOrFailedAnswersAreNotLearntFrom: a turn whose answer was
// interrupted (Ctrl+C) or failed mid-stream is not sent for extraction.
func TestInterruptedOrFailedAnswersAreNotLearntFrom(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.SetDefault(extractReply(`[{"text":"Has a cat called Tom.","confidence":0.9,"tags":[],"kind":"fact"}]`))
	d := newDevice(t, srv.Host()).learnOn()

	srv.Script(fakeollama.Reply{Content: []string{"Tom is", " a"}, StreamError: "model crashed"})
	if r := d.mneme("", "ask", "I have a cat called Tom"); r.code != 1 {
		t.Fatalf("failed answer: exit %d, stderr %q", r.code, r.stderr)
	}

	srv.Script(fakeollama.Reply{Content: []string{"Tom is", " a"}, Hold: true})
	cmd, stderr := d.start(nil, "ask", "--continue", "Really, I have a cat called Tom")
	for started := false; !started; { // the failed ask's signal may still wait
		select {
		case req := <-srv.Started():
			started = req.Messages[len(req.Messages)-1].Content == "Really, I have a cat called Tom"
		case <-time.After(30 * time.Second):
			t.Fatalf("the second answer did not start within 30 s\nstderr: %s", stderr.String())
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd, 2*time.Second, stderr); code != cli.ExitInterrupted {
		t.Fatalf("interrupted answer: exit %d, stderr %q", code, stderr.String())
	}
	if k := countRequests(srv, isExtraction); k != 0 {
		t.Fatalf("%d extraction requests for a failed or interrupted answer", k)
	}
	if notes := d.notes(); len(notes) != 0 {
		t.Fatalf("learnt %+v", notes)
	}
}

// TestCtrlCDuringLearningEndsAsk: learning after the answer does not hold
// ask up: Ctrl+C ends it within 2 s, with the answer kept and no note.
func TestCtrlCDuringLearningEndsAsk(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.SetDefault(func(req api.ChatRequest) fakeollama.Reply {
		if isExtraction(req) {
			return fakeollama.Reply{Hold: true} // the model never answers
		}
		return fakeollama.Say("Nice cat.")
	})
	d := newDevice(t, srv.Host()).learnOn()
	cmd, stderr := d.start(nil, "ask", "I have a cat called Tom")
	for started := false; !started; {
		select {
		case req := <-srv.Started():
			started = isExtraction(req)
		case <-time.After(30 * time.Second):
			t.Fatalf("no extraction request within 30 s\nstderr: %s", stderr.String())
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd, 2*time.Second, stderr); code != cli.ExitInterrupted {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if recs := d.exported(); len(recs) != 2 || recs[1].Content != "Nice cat." || recs[1].Status == memory.StatusInterrupted {
		t.Fatalf("export %+v", recs)
	}
	if notes := d.notes(); len(notes) != 0 {
		t.Fatalf("learnt %+v", notes)
	}
}

// TestLearningRealOllama: with a real Ollama and a real tiny model, the
// extraction and consolidation requests, forced through their schemas,
// run end to end. The tiny model's facts mean nothing: only the plumbing
// is checked, and that whatever was stored is a valid learnt note.
func TestLearningRealOllama(t *testing.T) {
	srv := realollama.Start(t)
	srv.CreateChatModel(t, "stories", 2048)
	d := newDevice(t, srv.Host).learnOn()
	d.extra = append(d.extra, "MNEME_MODEL=stories", "MNEME_NUM_CTX=2048")
	out, r := d.askJSON("My name is Lily and I have a cat called Tom.")
	var learned askLearnOut
	if err := json.Unmarshal([]byte(r.stdout), &learned); err != nil {
		t.Fatal(err)
	}
	log, err := os.ReadFile(d.home + "/data/mneme.log")
	if err != nil {
		t.Fatal(err)
	}
	// Extraction finished, or its reply was refused as malformed (the
	// tiny model may run out of tokens mid-JSON): either way it ran.
	if !strings.Contains(string(log), "learnt from turn") && !strings.Contains(string(log), "malformed reply") {
		t.Fatalf("no sign of extraction in the log:\n%s", log)
	}
	notes := d.notes()
	if len(notes) != len(slices.DeleteFunc(learned.Learned, func(l struct {
		Event  string `json:"event"`
		NoteID string `json:"note_id"`
		Text   string `json:"text"`
	}) bool {
		return l.Event != "ADD"
	})) {
		t.Fatalf("notes %+v, learned %+v", notes, learned.Learned)
	}
	for _, n := range notes {
		if n.Source != memory.SourceExtracted || n.Confidence < 0 || n.Confidence > 1 || strings.TrimSpace(n.Content) == "" ||
			n.ConversationID != out.ConversationID || n.TurnNumber != 1 || len(n.Tags) > memory.MaxNoteTags {
			t.Fatalf("learnt note %+v", n)
		}
	}
	t.Logf("the tiny model's notes: %+v", notes)
}

// TestReviewInbox: with memory_review = "inbox", a learnt note waits as
// pending: it is listed by `memory pending`, counted apart, and never
// recalled until approved; a rejected one is gone.
func TestReviewInbox(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	extract := extractReply(`[{"text":"Has a cat called Tom.","confidence":0.9,"tags":["pets"],"kind":"fact"},` +
		`{"text":"Drives a red van.","confidence":0.6,"tags":["car"],"kind":"fact"}]`)
	srv.SetDefault(func(req api.ChatRequest) fakeollama.Reply {
		if isDecision(req) { // the van is new beside the cat
			return fakeollama.Reply{Content: []string{`{"event":"ADD","id":0,"text":""}`}}
		}
		return extract(req)
	})
	d := newDevice(t, srv.Host())
	d.extra = append(d.extra, "MNEME_MEMORY_REVIEW=inbox")

	r := d.mustOK("", "ask", "I have a cat called Tom and a red van")
	if !strings.Contains(r.stderr, "✎ to review (mneme memory pending): Has a cat called Tom.") {
		t.Fatalf("stderr %q", r.stderr)
	}
	var pending []memory.Note
	if err := json.Unmarshal([]byte(d.mustOK("", "memory", "pending", "--json").stdout), &pending); err != nil || len(pending) != 2 {
		t.Fatalf("memory pending: %+v %v", pending, err)
	}
	for _, n := range pending {
		if n.Status != memory.NotePending || n.Source != memory.SourceExtracted {
			t.Fatalf("pending note %+v", n)
		}
	}
	// A pending note found by `memory search` says so, and how to approve it.
	if r := d.mustOK("", "memory", "search", "cat"); !strings.Contains(r.stdout, "(pending review: `mneme memory approve ") {
		t.Fatalf("memory search does not mark the pending note:\n%s", r.stdout)
	}
	// (The later prompts learn nothing: the fake would propose the same
	// facts again, and a rejected fact stated again is proposed again.)
	if out, _ := d.askJSON("--no-learn", "what is my cat called?"); len(out.MemoriesUsed) != 0 {
		t.Fatalf("a pending note was recalled: %+v", out.MemoriesUsed)
	}
	cat, van := pending[0], pending[1]
	if !strings.Contains(cat.Content, "cat") {
		cat, van = van, cat
	}
	if r := d.mneme("", "memory", "reject", van.ID[:4]); r.code != 2 || !strings.Contains(r.stderr, "at least 8 characters") {
		t.Fatalf("reject by a 4-character prefix: exit %d, %q", r.code, r.stderr)
	}
	d.mustOK("", "memory", "approve", cat.ID)
	d.mustOK("", "memory", "reject", van.ID)
	if r := d.mneme("", "memory", "reject", cat.ID); r.code != 2 || !strings.Contains(r.stderr, "not pending") {
		t.Fatalf("rejecting an approved note: exit %d, %q", r.code, r.stderr)
	}
	if out, _ := d.askJSON("--no-learn", "what is my cat called, again?"); len(out.MemoriesUsed) != 1 {
		t.Fatalf("an approved note was not recalled: %+v", out.MemoriesUsed)
	}
	notes := d.notes()
	if len(notes) != 1 || notes[0].ID != cat.ID || notes[0].Status != memory.NoteActive {
		t.Fatalf("notes after review %+v", notes)
	}
	if r := d.mustOK("", "memory", "pending"); !strings.Contains(r.stdout, "Nothing to review.") {
		t.Fatalf("memory pending after review:\n%s", r.stdout)
	}

	// --all approves every pending note at once.
	d.mustOK("", "ask", "I have a cat called Tom and a red van")
	if r := d.mustOK("", "memory", "approve", "--all"); strings.Count(r.stdout, "Approved note") < 1 {
		t.Fatalf("approve --all:\n%s", r.stdout)
	}
	for _, n := range d.notes() {
		if n.Status != memory.NoteActive {
			t.Fatalf("a note is still %s after approve --all: %+v", n.Status, n)
		}
	}
	if r := d.mneme("", "memory", "approve", "--all", cat.ID); r.code != 2 {
		t.Fatalf("approve --all with an id: %+v", r)
	}

	// Adding a pending note's text yourself approves it.
	for _, n := range d.notes() {
		if strings.Contains(n.Content, "van") {
			d.mustOK("", "memory", "rm", n.ID)
		}
	}
	d.mustOK("", "ask", "I have a cat called Tom and a red van")
	if r := d.mustOK("", "memory", "add", "Drives a red van."); !strings.Contains(r.stdout, "Approved (it waited for your review): note") {
		t.Fatalf("memory add of a pending note's text:\n%s", r.stdout)
	}
}

// TestReviewInboxReplacesWhatItContradicts: with memory_review = "inbox",
// a learnt fact that contradicts a kept note waits as pending, naming the
// note it would replace; approving it deletes that note, so the two are
// never both recalled; rejecting one keeps the old note.
func TestReviewInboxReplacesWhatItContradicts(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	extract := extractReply(`[{"text":"Lives in Lisbon.","confidence":0.9,"tags":["home"],"kind":"fact"}]`)
	srv.SetDefault(func(req api.ChatRequest) fakeollama.Reply {
		if isDecision(req) { // Lisbon contradicts Berlin, the one kept note
			return fakeollama.Reply{Content: []string{`{"event":"DELETE","id":1,"text":""}`}}
		}
		return extract(req)
	})
	d := newDevice(t, srv.Host())
	d.extra = append(d.extra, "MNEME_MEMORY_REVIEW=inbox")
	d.mustOK("", "memory", "add", "Lives in Berlin.")
	berlin := d.notes()[0]

	// Rejected: Berlin stays.
	d.mustOK("", "ask", "I moved to Lisbon last month")
	var pending []memory.Note
	if err := json.Unmarshal([]byte(d.mustOK("", "memory", "pending", "--json").stdout), &pending); err != nil || len(pending) != 1 {
		t.Fatalf("memory pending: %+v %v", pending, err)
	}
	if pending[0].Replaces != berlin.ID {
		t.Fatalf("the pending note replaces %q, want the Berlin note %s", pending[0].Replaces, berlin.ID)
	}
	if r := d.mustOK("", "memory", "pending"); !strings.Contains(r.stdout, "would replace note "+berlin.ID+": Lives in Berlin.") {
		t.Fatalf("memory pending does not say what the note would replace:\n%s", r.stdout)
	}
	var rejected []memory.Note // --json: one array, whatever the number of ids
	if err := json.Unmarshal([]byte(d.mustOK("", "memory", "reject", "--json", pending[0].ID).stdout), &rejected); err != nil ||
		len(rejected) != 1 || rejected[0].ID != pending[0].ID {
		t.Fatalf("memory reject --json: %+v %v", rejected, err)
	}
	if notes := d.notes(); len(notes) != 1 || notes[0].ID != berlin.ID {
		t.Fatalf("after a reject: %+v", notes)
	}

	// Approved: Lisbon takes Berlin's place, in the list and in search.
	d.mustOK("", "ask", "I moved to Lisbon last month")
	lisbon := d.notes()[0]
	if lisbon.ID == berlin.ID {
		lisbon = d.notes()[1]
	}
	if r := d.mneme("", "memory", "unarchive", lisbon.ID); r.code != 2 || !strings.Contains(r.stderr, "waits for your review") {
		t.Fatalf("unarchive of a pending note (it would skip the review): %+v", r)
	}
	r := d.mustOK("", "memory", "approve", lisbon.ID)
	if !strings.Contains(r.stdout, "Approved note "+lisbon.ID) || !strings.Contains(r.stdout, "Replaced note "+berlin.ID+": Lives in Berlin.") {
		t.Fatalf("memory approve:\n%s", r.stdout)
	}
	if notes := d.notes(); len(notes) != 1 || notes[0].ID != lisbon.ID || notes[0].Status != memory.NoteActive {
		t.Fatalf("after the approval: %+v", notes)
	}
	if r := d.mustOK("", "memory", "search", "Berlin"); strings.Contains(r.stdout, berlin.ID) {
		t.Fatalf("the replaced note is still found:\n%s", r.stdout)
	}
}

// TestImportExtractLearnsFromTheNewTurns: `import --extract` learns from
// each imported turn, oldest first, as after a chat; importing the same
// export again learns nothing twice; without Ollama it says nothing was
// learnt and the conversations are still imported.
func TestImportExtractLearnsFromTheNewTurns(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.SetDefault(extractReply(`[{"text":"Grows tomatoes.","confidence":0.9,"tags":["garden"],"kind":"fact"}]`))
	d := newDevice(t, srv.Host())

	r := d.mustOK("", "import", "--extract", "importer/testdata/chatgpt.json")
	for _, want := range []string{"Learning about you from ", "✎ remembered: Grows tomatoes.", "Learnt from "} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("import --extract lacks %q:\n%s", want, r.stdout)
		}
	}
	extractions := countRequests(srv, isExtraction)
	if extractions == 0 {
		t.Fatal("no extraction request")
	}
	// The first extraction is of the oldest turn (the sourdough one, 2023),
	// question and answer.
	i := slices.IndexFunc(srv.Requests(), isExtraction)
	if got := srv.Requests()[i].Messages[1].Content; got != "User: How often should I feed a sourdough starter?\nAssistant: Feed it once a day at room temperature." {
		t.Fatalf("first extraction: %q", got)
	}
	notes := d.notes()
	if len(notes) != 1 || notes[0].Content != "Grows tomatoes." || notes[0].Source != memory.SourceExtracted || notes[0].ConversationID == "" {
		t.Fatalf("notes %+v", notes)
	}

	r = d.mustOK("", "import", "--extract", "importer/testdata/chatgpt.json")
	if strings.Contains(r.stdout, "embedding with") || !strings.Contains(r.stdout, "search by meaning (fake-embed:latest) are ready.") {
		t.Fatalf("importing again, nothing is left to embed, yet:\n%s", r.stdout)
	}
	if !strings.Contains(r.stdout, "Nothing new to learn from.") || countRequests(srv, isExtraction) != extractions {
		t.Fatalf("re-import learnt again:\n%s", r.stdout)
	}

	off := newDevice(t, "127.0.0.1:1")
	r = off.mneme("", "import", "--extract", "importer/testdata/claude.json")
	if r.code != 1 || !strings.Contains(r.stderr, "--extract: nothing was learnt") || len(off.conversations()) != 1 {
		t.Fatalf("offline --extract: %+v", r)
	}
	// With Ollama back, the same import learns from the turns it could not.
	off.ollama = srv.Host()
	before := countRequests(srv, isExtraction)
	r = off.mustOK("", "import", "--extract", "importer/testdata/claude.json")
	if !strings.Contains(r.stdout, "Learning about you from ") || countRequests(srv, isExtraction) == before {
		t.Fatalf("--extract once Ollama is back:\n%s", r.stdout)
	}
	if r = off.mustOK("", "import", "--extract", "importer/testdata/claude.json"); !strings.Contains(r.stdout, "Nothing new to learn from.") {
		t.Fatalf("--extract a third time:\n%s", r.stdout)
	}
}

// TestAskStoppedWhileLearningSaysTheAnswerIsWhole: Ctrl+C while `ask`
// learns from its turn ends it with 130, as a shell loop expects, and
// says the answer is stored whole (it said "interrupted", which the exit
// codes give for a partial answer).
func TestAskStoppedWhileLearningSaysTheAnswerIsWhole(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	never := make(chan struct{})
	srv.SetDefault(func(req api.ChatRequest) fakeollama.Reply {
		if isExtraction(req) {
			return fakeollama.Reply{Content: []string{`{"memories":[]}`}, Gate: never}
		}
		return fakeollama.Say("A whole answer.")
	})
	d := newDevice(t, srv.Host()).learnOn()
	cmd, stderr := d.start(nil, "ask", "My cat is called Tom.")
	for req := range srv.Started() {
		if isExtraction(req) {
			break
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd, 2*time.Second, stderr); code != cli.ExitInterrupted ||
		!strings.Contains(stderr.String(), "stopped after the answer, which is stored whole") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	if recs := d.exported(); len(recs) != 2 || recs[1].Content != "A whole answer." || recs[1].Status == memory.StatusInterrupted {
		t.Fatalf("stored %+v", recs)
	}
}

// TestImportExtractStoppedWhileEmbeddingLearnsNextTime: Ctrl+C while an
// `import --extract` embeds (before it learns) leaves the imported turns
// waiting: the same command again learns from them (it found nothing new
// to learn from, and never did).
func TestImportExtractStoppedWhileEmbeddingLearnsNextTime(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.SetDefault(extractReply(`[{"text":"Grows tomatoes.","confidence":0.9,"tags":["garden"],"kind":"fact"}]`))
	srv.HoldEmbeds(true)
	d := newDevice(t, srv.Host())
	cmd, stderr := d.start(nil, "import", "--extract", "importer/testdata/chatgpt.json")
	interruptOnceHeld(t, srv, cmd, stderr) // in the embedding
	if n := countRequests(srv, isExtraction); n != 0 || len(d.notes()) != 0 {
		t.Fatalf("learnt before the embedding ended: %d extractions, notes %+v", n, d.notes())
	}
	srv.HoldEmbeds(false)
	r := d.mustOK("", "import", "--extract", "importer/testdata/chatgpt.json")
	if !strings.Contains(r.stdout, "Learning about you from ") || countRequests(srv, isExtraction) == 0 {
		t.Fatalf("the same import again:\n%s", r.stdout)
	}
	if notes := d.notes(); len(notes) != 1 || notes[0].Content != "Grows tomatoes." {
		t.Fatalf("notes %+v", notes)
	}
}

// TestImportExtractTwoAtOnce: two `import --extract` of one export at once
// learn from each turn once between them, and each says what the other
// took.
func TestImportExtractTwoAtOnce(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	learn := extractReply(`[{"text":"Grows tomatoes.","confidence":0.9,"tags":["garden"],"kind":"fact"}]`)
	held, release := make(chan struct{}), make(chan struct{})
	var asked atomic.Bool
	srv.SetDefault(func(req api.ChatRequest) fakeollama.Reply {
		if isExtraction(req) && asked.CompareAndSwap(false, true) { // the first run's first turn waits for the second run
			close(held)
			<-release
		}
		return learn(req)
	})
	d := newDevice(t, srv.Host())
	first := exec.Command(mnemeBin, "import", "--extract", "importer/testdata/chatgpt.json")
	first.Env = d.env()
	var out bytes.Buffer
	first.Stdout, first.Stderr = &out, &out
	if err := first.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-held:
	case <-time.After(d.timeout):
		first.Process.Kill()
		t.Fatalf("the first run asked nothing: %s", out.String())
	}
	second := d.mustOK("", "import", "--extract", "importer/testdata/chatgpt.json")
	close(release)
	if err := first.Wait(); err != nil {
		t.Fatalf("first run: %v\n%s", err, out.String())
	}
	seen := map[string]int{}
	for _, r := range srv.Requests() {
		if isExtraction(r) {
			seen[r.Messages[1].Content]++
		}
	}
	for turn, n := range seen {
		if n != 1 {
			t.Errorf("learnt %d times from %q", n, turn)
		}
	}
	if len(seen) < 2 || !strings.Contains(second.stdout, "Another mneme learnt, or is learning, from the other 1 turn.") ||
		!strings.Contains(out.String(), fmt.Sprintf("Another mneme learnt, or is learning, from the other %d turns.", len(seen)-1)) {
		t.Fatalf("%d turns learnt from\nfirst run:\n%s\nsecond run:\n%s", len(seen), out.String(), second.stdout)
	}
	if notes := d.notes(); len(notes) != 1 {
		t.Fatalf("notes %+v", notes)
	}
}

// TestAskSaysWhenLearningIsSlowOrFails: after the answer, learning that
// takes a while is said on stderr, and so is its failure; the answer was
// printed and stored whatever happens, and ask exits 0.
func TestAskSaysWhenLearningIsSlowOrFails(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	t.Cleanup(free)
	srv.SetDefault(func(req api.ChatRequest) fakeollama.Reply {
		if isExtraction(req) {
			<-release
			return fakeollama.Reply{Status: 500, Error: "model runner crashed"}
		}
		return fakeollama.Say("Noted.")
	})
	d := newDevice(t, srv.Host()).learnOn()
	cmd := exec.Command(mnemeBin, "ask", "I keep bees")
	cmd.Env = d.env()
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(stderr)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("stderr ended before the learning notice: %v", err)
		}
		if strings.Contains(line, "learning about you from this turn… (Ctrl+C skips it; the answer is stored)") {
			break
		}
	}
	free()
	rest, _ := io.ReadAll(br)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("ask: %v\n%s", err, rest)
	}
	if !strings.Contains(stdout.String(), "Noted.") || !strings.Contains(string(rest), "learning from this turn failed (") ||
		!strings.Contains(string(rest), "model runner crashed") {
		t.Fatalf("stdout %q\nstderr after the notice %q", stdout.String(), rest)
	}
}

// TestAskIsQuietWhenTheModelLearnsNothing: an extraction reply that is not
// the JSON asked for (a small model's) is the model learning nothing: the
// log has it, stderr does not call it a failure at every ask.
func TestAskIsQuietWhenTheModelLearnsNothing(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.SetDefault(func(req api.ChatRequest) fakeollama.Reply {
		if isExtraction(req) {
			return fakeollama.Say("# Sure! Here are the facts")
		}
		return fakeollama.Say("Noted.")
	})
	d := newDevice(t, srv.Host()).learnOn()
	r := d.mustOK("", "ask", "I keep bees")
	if countRequests(srv, isExtraction) == 0 || strings.Contains(r.stderr, "learning from this turn failed") {
		t.Fatalf("stderr %q", r.stderr)
	}
}
