package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tools"
)

// toolRun is a runState on the harness's conversation that records its events.
func (h *harness) toolRun(events *[]Event) *runState {
	req := Request{UserID: "alice", ConversationID: h.conv.ID}
	return &runState{
		req: req, emit: func(e Event) { *events = append(*events, e) }, res: &Result{},
		session: tools.Session{UserID: req.UserID, ConversationID: req.ConversationID},
	}
}

// TestExecuteToolCallsCapsAReplyAndSaysSo: of a reply's 200 calls the
// first 16 run; each of the others is answered, in order, with a result
// that says why it did not run. A call whose arguments were not an object
// is answered with what was wrong and not run. Every call's start is
// followed by its result before the next call starts.
func TestExecuteToolCallsCapsAReplyAndSaysSo(t *testing.T) {
	var runs atomic.Int64
	h := newHarness(t, nil, WithTools(tools.NewRegistry(nil, counter{&runs})))
	apiCalls := make([]api.ToolCall, 200)
	for i := range apiCalls {
		apiCalls[i] = fakeollama.ToolCall("tally", map[string]any{"n": i})
	}
	bad := api.NewToolCallFunctionArguments()
	bad.Set(notAnObject, `"n=1"`)
	apiCalls[3] = api.ToolCall{ID: "bad", Function: api.ToolCallFunction{Name: "tally", Arguments: bad}}
	stored, refused := fromAPICalls(apiCalls)
	calls := make([]pendingCall, len(stored))
	for i, c := range stored {
		calls[i] = pendingCall{call: c, refused: refused[i]}
	}
	var events []Event
	st := h.toolRun(&events)
	if err := h.agent.executeToolCalls(context.Background(), st, calls); err != nil {
		t.Fatal(err)
	}
	if runs.Load() != MaxToolCallsPerReply-1 {
		t.Fatalf("the tool ran %d times, want %d (16 calls, one malformed)", runs.Load(), MaxToolCallsPerReply-1)
	}
	if len(events) != 400 || len(st.res.ToolCalls) != 200 || len(st.msgs) != 200 {
		t.Fatalf("%d events, %d activities, %d messages for the next request; want 400, 200, 200", len(events), len(st.res.ToolCalls), len(st.msgs))
	}
	for i, c := range stored {
		start, ok1 := events[2*i].(ToolCallEvent)
		end, ok2 := events[2*i+1].(ToolResultEvent)
		if !ok1 || !ok2 || start.Call.ID != c.ID || end.Call.ID != c.ID || start.Call.Done || !end.Call.Done {
			t.Fatalf("call %d: events %T %+v, %T %+v", i, events[2*i], events[2*i], events[2*i+1], events[2*i+1])
		}
		switch {
		case i == 3:
			if !strings.Contains(end.Call.Error, "must be a JSON object") || !strings.Contains(end.Call.Error, "a string") {
				t.Fatalf("malformed call's result: %+v", end.Call)
			}
		case i < MaxToolCallsPerReply:
			if end.Call.Result != "ok" || end.Call.Error != "" {
				t.Fatalf("call %d: %+v", i, end.Call)
			}
		default:
			if want := fmt.Sprintf("at most %d tool calls are run per reply, and this reply made 200", MaxToolCallsPerReply); !strings.Contains(end.Call.Error, want) {
				t.Fatalf("call %d's result %q does not say %q", i, end.Call.Error, want)
			}
		}
	}
	msgs := h.messages()
	if len(msgs) != 200 || msgs[199].Role != memory.RoleTool || msgs[199].ToolCallID != stored[199].ID ||
		!strings.Contains(msgs[199].Content, `"error"`) {
		t.Fatalf("%d stored messages, the last %+v", len(msgs), msgs[len(msgs)-1])
	}
}

// TestSkipToolCallsAnswersEveryCallWithTheReason: skipped calls run
// nothing; the model is sent the reason for each, as an error result.
func TestSkipToolCallsAnswersEveryCallWithTheReason(t *testing.T) {
	var runs atomic.Int64
	h := newHarness(t, nil, WithTools(tools.NewRegistry(nil, counter{&runs})))
	calls := []pendingCall{
		{call: memory.ToolCall{ID: "a", Name: "tally", Arguments: json.RawMessage(`{}`)}},
		{call: memory.ToolCall{ID: "b", Name: "tally", Arguments: json.RawMessage(`{}`)}},
	}
	var events []Event
	st := h.toolRun(&events)
	if err := h.agent.skipToolCalls(context.Background(), st, calls, "not run: the step limit (8) was reached"); err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 0 {
		t.Fatalf("a skipped call ran %d times", runs.Load())
	}
	var sent []string
	for _, m := range st.msgs {
		sent = append(sent, m.ToolCallID+" "+m.Content)
	}
	want := []string{`a {"error":"not run: the step limit (8) was reached"}`, `b {"error":"not run: the step limit (8) was reached"}`}
	if !slices.Equal(sent, want) {
		t.Fatalf("sent to the model %q, want %q", sent, want)
	}
}

// TestToolEventsNameTheNotesWritten: a screen learns from the events which
// notes the model saved, updated or deleted, without reading the results.
func TestToolEventsNameTheNotesWritten(t *testing.T) {
	ctx := context.Background()
	h := newHarness(t, nil)
	ix, err := index.OpenIndex(ctx, h.store, t.TempDir(), index.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	h.agent = New(h.agent.client, h.store, WithModel(fakeollama.DefaultChatModel), WithHost(h.srv.URL),
		WithTools(tools.NewRegistry(nil, tools.MemoryTools(ix)...)))
	h.srv.Script(
		fakeollama.Reply{ToolCalls: []api.ToolCall{fakeollama.ToolCall(tools.MemorySaveName, map[string]any{"content": "The user's dog is called Rex."})}},
		fakeollama.Say("Noted."),
	)
	_, events, err := h.run(ctx, "remember that my dog is called Rex")
	if err != nil {
		t.Fatal(err)
	}
	notes, err := h.store.ListNotes(ctx, "alice")
	if err != nil || len(notes) != 1 {
		t.Fatalf("notes %+v: %v", notes, err)
	}
	id := notes[0].ID
	written := func(events []Event) (refs []NoteRef, ids []string) {
		for _, e := range events {
			if r, ok := e.(ToolResultEvent); ok {
				refs = append(refs, r.Call.Notes...)
				ids = append(ids, r.Call.WrittenNotes()...)
			}
		}
		return refs, ids
	}
	if refs, ids := written(events); !slices.Equal(refs, []NoteRef{{ID: id, Action: NoteSaved}}) || !slices.Equal(ids, []string{id}) {
		t.Fatalf("save: notes %+v, written %q; want %s", refs, ids, id)
	}

	h.srv.Script(
		fakeollama.Reply{ToolCalls: []api.ToolCall{fakeollama.ToolCall(tools.MemoryDeleteName, map[string]any{"note_id": id})}},
		fakeollama.Say("Forgotten."),
	)
	_, events, err = h.run(ctx, "forget my dog's name")
	if err != nil {
		t.Fatal(err)
	}
	if refs, ids := written(events); !slices.Equal(refs, []NoteRef{{ID: id, Action: NoteDeleted}}) || len(ids) != 0 {
		t.Fatalf("delete: notes %+v, written %q", refs, ids)
	}
}

// TestToolOutcomeReadsWhatWasStored: a stored tool message reads back as
// the result or the error it was stored from.
func TestToolOutcomeReadsWhatWasStored(t *testing.T) {
	for _, act := range []ToolActivity{
		{Result: `{"note_id":"0193abcd","status":"saved"}`},
		{Result: "HI"},
		{Error: `not run: the step limit (8) was reached; "quoted"`},
	} {
		if res, errText := ToolOutcome(toolContent(act)); res != act.Result || errText != act.Error {
			t.Errorf("%+v read back as result %q, error %q", act, res, errText)
		}
	}
}
