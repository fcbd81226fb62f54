package tools

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
)

// TestResultsNameTheNotesTheyChange: memory_save, memory_update and
// memory_delete say, typed, which note they changed and how; the same id
// as in their JSON. A search or a failed call names none.
func TestResultsNameTheNotesTheyChange(t *testing.T) {
	e := newEnv(t, false)
	exec := func(name, args string) (Result, error) {
		t.Helper()
		return e.reg.Execute(context.Background(), alice, Call{ID: "c1", Name: name, Args: json.RawMessage(args)})
	}
	saved, err := exec(MemorySaveName, `{"content": "The user's dog is called Rex."}`)
	if err != nil {
		t.Fatal(err)
	}
	var out NoteOut
	if err := json.Unmarshal([]byte(saved.Content), &out); err != nil || out.NoteID == "" {
		t.Fatalf("memory_save content %q: %v", saved.Content, err)
	}
	id := out.NoteID
	if !slices.Equal(saved.Notes, []NoteRef{{ID: id, Action: NoteSaved}}) {
		t.Fatalf("memory_save notes %+v, want %s saved", saved.Notes, id)
	}
	updated, err := exec(MemoryUpdateName, `{"note_id": "`+id+`", "content": "The user's dog is called Max."}`)
	if err != nil || !slices.Equal(updated.Notes, []NoteRef{{ID: id, Action: NoteUpdated}}) {
		t.Fatalf("memory_update notes %+v: %v", updated.Notes, err)
	}
	found, err := exec(MemorySearchName, `{"query": "dog"}`)
	if err != nil || len(found.Notes) != 0 {
		t.Fatalf("memory_search notes %+v: %v", found.Notes, err)
	}
	deleted, err := exec(MemoryDeleteName, `{"note_id": "`+id+`"}`)
	if err != nil || !slices.Equal(deleted.Notes, []NoteRef{{ID: id, Action: NoteDeleted}}) {
		t.Fatalf("memory_delete notes %+v: %v", deleted.Notes, err)
	}
	again, err := exec(MemoryDeleteName, `{"note_id": "`+id+`"}`)
	if err == nil || len(again.Notes) != 0 {
		t.Fatalf("deleting a deleted note: notes %+v, err %v", again.Notes, err)
	}
	// Each call's mark tells its change from the later calls' changes of
	// the same note (what ctrl+z takes back): the newest change before it.
	hist, err := e.ix.NoteHistory(context.Background(), alice.UserID, id)
	if err != nil || len(hist) != 3 {
		t.Fatalf("history %+v: %v", hist, err)
	}
	for i, res := range []Result{saved, updated, deleted} {
		if c := hist[2-i]; !(c.ID < res.Mark) || (i < 2 && !(res.Mark < hist[1-i].ID)) {
			t.Errorf("call %d: mark %s does not fall after its change %s (%s) and before the next", i, res.Mark, c.ID, c.Op)
		}
	}
}

// TestWrittenNotes: the notes a screen marks as written in this answer
// are those a successful call saved or updated, not deleted ones.
func TestWrittenNotes(t *testing.T) {
	tests := []struct {
		act  Activity
		want []string
	}{
		{Activity{Name: MemorySaveName, Notes: []NoteRef{{ID: "0193abcd", Action: NoteSaved}}}, []string{"0193abcd"}},
		{Activity{Name: MemoryUpdateName, Notes: []NoteRef{{ID: "0193ef01", Action: NoteUpdated}}}, []string{"0193ef01"}},
		{Activity{Name: MemoryDeleteName, Notes: []NoteRef{{ID: "0193ef01", Action: NoteDeleted}}}, nil},
		{Activity{Name: MemorySaveName, Error: "note is empty", Notes: []NoteRef{{ID: "0193abcd", Action: NoteSaved}}}, nil},
		{Activity{Name: MemorySearchName, Result: `{"results":[]}`}, nil},
	}
	for _, tt := range tests {
		if got := tt.act.WrittenNotes(); !slices.Equal(got, tt.want) {
			t.Errorf("%s %+v: WrittenNotes() = %q, want %q", tt.act.Name, tt.act.Notes, got, tt.want)
		}
	}
}
