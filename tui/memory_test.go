package tui

import (
	"context"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/memory"
)

// memoryRunner plays a run that recalls a note and calls the memory tools.
type memoryRunner struct {
	store *memory.Store
	calls []agent.ToolActivity
}

func (r memoryRunner) Run(ctx context.Context, req agent.Request, emit func(agent.Event)) (agent.Result, error) {
	res := agent.Result{ConversationID: req.ConversationID, Model: testModel}
	if _, err := r.store.AppendMessage(ctx, req.UserID, memory.Message{ConversationID: req.ConversationID, Role: memory.RoleUser, Content: req.Prompt}); err != nil {
		emit(agent.ErrorEvent{Err: err, Result: res})
		return res, err
	}
	emit(agent.RecallEvent{Memories: []agent.Memory{{NoteID: "0193-note-1", Text: "The user's cat is called Tom."}}})
	for _, c := range r.calls {
		pending := c
		pending.Result, pending.Error = "", ""
		emit(agent.ToolCallEvent{Call: pending})
		emit(agent.ToolResultEvent{Call: c})
	}
	emit(agent.ContentDelta{Text: "Your cat is Tom."})
	res.Answer = "Your cat is Tom."
	emit(agent.DoneEvent{Result: res})
	return res, nil
}

var keyCtrlO = tea.KeyPressMsg{Code: 'o', Mod: tea.ModCtrl} // opens the memory browser

func TestMemoryToolLinesAndContextReceipt(t *testing.T) {
	store := openStore(t)
	r := memoryRunner{store: store, calls: []agent.ToolActivity{
		{ID: "1", Name: "memory_save", Args: `{"content":"The user's cat is called Tom."}`,
			Result: `{"note_id":"0193abcd-0000","status":"saved","content":"The user's cat is called Tom."}`,
			Notes:  []agent.NoteRef{{ID: "0193abcd-0000", Action: agent.NoteSaved}}},
		{ID: "2", Name: "memory_search", Args: `{"query":"What is the cat called?"}`,
			Result: `{"results":[{"note_id":"0193abcd-0000","text":"The user's cat is called Tom.","score":1,"source":"user_memory"}],"query":"What is the cat called?"}`},
		{ID: "3", Name: "memory_update", Args: `{"note_id":"abcd","content":"x"}`, Error: `note not found: "abcd"`},
	}}
	cfg := Config{Store: store, UserID: testUser, Probe: readyProbe, NewRunner: func(string) Runner { return r }}
	h := newHarness(t, cfg)
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.runUntilShown("Ollama ready")
	if strings.Contains(h.screen(), "details") {
		t.Fatal("the details key is offered before there is anything to expand")
	}
	h.typeText("what is my cat called?")
	h.send(keyEnter)
	h.runUntilShown(
		`↺ recalled 1 note: "The user's cat is called Tom."`,
		`⚙ saved note: "The user's cat is called Tom."`,
		`⚙ searched memory for "What is the cat called?" (1 hit)`,
		`⚙ memory_update failed: note not found: "abcd"`,
		"Your cat is Tom.",
		"ctrl+t details",
	)
	h.runUntilIdle()

	// The failed call is drawn in the error style, the others are not.
	sgr := func(st lipgloss.Style) string {
		r := st.UnsetPaddingLeft().Render("X")
		return r[:strings.Index(r, "X")]
	}
	errStyle := sgr(h.m.st.ToolError)
	if errStyle == "" || errStyle == sgr(h.m.st.Tool) {
		t.Fatalf("error and tool styles look alike: %q", errStyle)
	}
	for _, line := range strings.Split(h.m.View().Content, "\n") {
		plain := ansi.Strip(line)
		if !strings.HasPrefix(strings.TrimSpace(plain), "⚙") {
			continue
		}
		if isErr := strings.Contains(plain, "failed"); strings.Contains(line, errStyle) != isErr {
			t.Errorf("line %q: drawn in the error style: %v, want %v", plain, !isErr, isErr)
		}
	}

	h.send(pressBinding(t, h.m.keys.Details))
	h.runUntilShown(
		`arguments: {"content":"The user's cat is called Tom."}`,
		`result: {"note_id":"0193abcd-0000","status":"saved"`,
		`error: note not found: "abcd"`,
		`The user's cat is called Tom. [note 0193-note-1]`,
	)
	h.send(pressBinding(t, h.m.keys.Details))
	if h.shows("arguments:") || !h.shows(`⚙ saved note: "The user's cat is called Tom."`) {
		t.Fatalf("details still shown after the second ctrl+t:\n%s", h.screen())
	}
}
