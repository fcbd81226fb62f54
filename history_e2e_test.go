package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/history"
	"github.com/mneme-dev/mneme/tools"
)

// TestMemoryHistoryAndUndo: an edit and a delete show in memory history
// with who made them and the text before and after; memory undo walks
// them back, and the restored note is found by search.
func TestMemoryHistoryAndUndo(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())

	var n memory.Note
	if err := json.Unmarshal([]byte(d.mustOK("", "memory", "add", "--json", "My cat is called Tom").stdout), &n); err != nil {
		t.Fatal(err)
	}
	d.mustOK("", "memory", "edit", n.ID, "My cat is called Felix")
	r := d.mustOK("", "memory", "history", n.ID[:8])
	for _, want := range []string{"update  by user", "before: My cat is called Tom", "after:  My cat is called Felix", "create  by user"} {
		if !strings.Contains(r.stdout, want) {
			t.Fatalf("history lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Index(r.stdout, "update") > strings.Index(r.stdout, "create") {
		t.Fatalf("history is not newest first:\n%s", r.stdout)
	}

	// Undo the edit: the text before is back.
	if r := d.mustOK("", "memory", "undo"); !strings.Contains(r.stdout, "Undid the update of note "+n.ID) ||
		!strings.Contains(r.stdout, "Now: My cat is called Tom") {
		t.Fatalf("undo:\n%s", r.stdout)
	}
	if notes := d.notes(); len(notes) != 1 || notes[0].Content != "My cat is called Tom" {
		t.Fatalf("after undo: %+v", notes)
	}

	// Delete, then undo: the note is back under its id, found by search.
	d.mustOK("", "memory", "rm", n.ID)
	if notes := d.notes(); len(notes) != 0 {
		t.Fatalf("after rm: %+v", notes)
	}
	var out struct {
		Undone history.Change `json:"undone"`
		Note   memory.Note    `json:"note"`
	}
	if err := json.Unmarshal([]byte(d.mustOK("", "memory", "undo", "--json").stdout), &out); err != nil ||
		out.Undone.Op != memory.ChangeDelete || out.Note.ID != n.ID {
		t.Fatalf("undo --json: %+v %v", out, err)
	}
	if r := d.mustOK("", "memory", "search", "cat called Tom"); !strings.Contains(r.stdout, n.ID) {
		t.Fatalf("the restored note is not found:\n%s", r.stdout)
	}
	var hist []history.Change
	if err := json.Unmarshal([]byte(d.mustOK("", "memory", "history", "--json", n.ID).stdout), &hist); err != nil || len(hist) != 5 ||
		hist[0].Op != memory.ChangeRestore || hist[0].Undoes == "" || hist[1].UndoneBy != hist[0].ID {
		t.Fatalf("history --json: %+v %v", hist, err)
	}
}

// TestModelChangesConfirmRefusesInAsk: with model_changes = "confirm",
// ask cannot ask the user, so the model's memory_update is not run: its
// result says the user must confirm, and the note is unchanged.
func TestModelChangesConfirmRefusesInAsk(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	var n memory.Note
	if err := json.Unmarshal([]byte(d.mustOK("", "memory", "add", "--json", "My cat is called Tom").stdout), &n); err != nil {
		t.Fatal(err)
	}
	srv.Script(
		fakeollama.Reply{ToolCalls: []api.ToolCall{fakeollama.ToolCall(tools.MemoryUpdateName,
			map[string]any{"note_id": n.ID, "content": "My cat is called Felix"})}},
		fakeollama.Say("I could not change it; please confirm."),
	)
	d.extra = []string{"MNEME_MODEL_CHANGES=confirm"}
	out, _ := d.askJSON("my cat is now called Felix")
	if len(out.ToolCalls) != 1 || !strings.Contains(out.ToolCalls[0].Error, "the user must confirm changes to saved notes") {
		t.Fatalf("tool calls: %+v", out.ToolCalls)
	}
	sent := srv.LastRequest().Messages
	if last := sent[len(sent)-1]; last.Role != "tool" || !strings.Contains(last.Content, "must confirm") ||
		!strings.Contains(last.Content, "unchanged") {
		t.Fatalf("tool result sent to the model: %+v", last)
	}
	if notes := d.notes(); len(notes) != 1 || notes[0].Content != "My cat is called Tom" {
		t.Fatalf("the note changed: %+v", notes)
	}
	// The same value is refused alike from the file and the environment.
	d.extra = []string{"MNEME_MODEL_CHANGES=sometimes"}
	if r := d.mneme("", "memory", "list"); r.code == 0 || !strings.Contains(r.stderr, "MNEME_MODEL_CHANGES") {
		t.Fatalf("a bad value was accepted: %+v", r)
	}
	// With allow (the default) the same call runs, marked as the model's.
	d.extra = nil
	srv.Script(
		fakeollama.Reply{ToolCalls: []api.ToolCall{fakeollama.ToolCall(tools.MemoryUpdateName,
			map[string]any{"note_id": n.ID, "content": "My cat is called Felix"})}},
		fakeollama.Say("Changed."),
	)
	d.askJSON("my cat is now called Felix")
	if r := d.mustOK("", "memory", "history", n.ID); !strings.Contains(r.stdout, "update  by model") {
		t.Fatalf("history:\n%s", r.stdout)
	}
}
