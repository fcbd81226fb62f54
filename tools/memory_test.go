package tools

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

// env is a store, its index and a registry of the memory tools. With
// embed set the index embeds with the fake Ollama's model.
type env struct {
	t     *testing.T
	store *memory.Store
	ix    *index.Index
	reg   *Registry
}

func newEnv(t *testing.T, embed bool) *env {
	t.Helper()
	ctx := context.Background()
	store, err := memory.Open(ctx, filepath.Join(t.TempDir(), memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	var opts index.IndexOptions
	if embed {
		srv := fakeollama.New(t)
		u, _ := url.Parse(srv.URL)
		opts.Embed = api.NewClient(u, http.DefaultClient)
		opts.Model = index.EmbedModel{Name: fakeollama.DefaultEmbedModel, ContextLength: 2048}
	}
	ix, err := index.OpenIndex(ctx, store, t.TempDir(), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return &env{t: t, store: store, ix: ix, reg: NewRegistry(nil, MemoryTools(ix)...)}
}

// call runs a tool with JSON arguments and returns its raw result.
func (e *env) call(s Session, name, args string) (string, error) {
	e.t.Helper()
	res, err := e.reg.Execute(context.Background(), s, Call{ID: "c1", Name: name, Args: json.RawMessage(args)})
	return res.Content, err
}

// mustCall runs a call that must succeed and decodes its result into out.
func (e *env) mustCall(s Session, name, args string, out any) {
	e.t.Helper()
	res, err := e.call(s, name, args)
	if err != nil {
		e.t.Fatalf("%s(%s): %v", name, args, err)
	}
	if err := json.Unmarshal([]byte(res), out); err != nil {
		e.t.Fatalf("%s result %q: %v", name, res, err)
	}
}

func (e *env) searchMemory(s Session, query string) []MemoryHit {
	e.t.Helper()
	var out MemorySearchOut
	args, _ := json.Marshal(map[string]any{"query": query})
	e.mustCall(s, MemorySearchName, string(args), &out)
	return out.Results
}

// chat stores one question and answer in a new conversation and indexes it.
func (e *env) chat(user, question, answer string) memory.Conversation {
	e.t.Helper()
	ctx := context.Background()
	c, err := e.store.CreateConversation(ctx, user, "")
	if err != nil {
		e.t.Fatal(err)
	}
	for _, m := range []memory.Message{{Role: memory.RoleUser, Content: question}, {Role: memory.RoleAssistant, Content: answer}} {
		m.ConversationID = c.ID
		if _, err := e.store.AppendMessage(ctx, user, m); err != nil {
			e.t.Fatal(err)
		}
	}
	if err := e.ix.Drain(ctx); err != nil {
		e.t.Fatal(err)
	}
	return c
}

var (
	alice = Session{UserID: "alice", ConversationID: "conv-a", TurnNumber: 2}
	bob   = Session{UserID: "bob", ConversationID: "conv-b", TurnNumber: 1}
)

func TestMemoryLifecycle(t *testing.T) {
	for _, embed := range []bool{false, true} {
		t.Run(map[bool]string{false: "keyword-only", true: "hybrid"}[embed], func(t *testing.T) {
			e := newEnv(t, embed)
			var saved NoteOut
			e.mustCall(alice, MemorySaveName, `{"content": "The user's cat is called Tom."}`, &saved)
			if saved.NoteID == "" || saved.Status != "saved" || saved.ConversationID != "conv-a" || saved.TurnNumber != 2 {
				t.Fatalf("saved %+v", saved)
			}
			if n, err := e.store.Note(context.Background(), "alice", saved.NoteID); err != nil || n.Source != memory.SourceModel {
				t.Fatalf("a saved note's source = %q, %v; want %q", n.Source, err, memory.SourceModel)
			}
			hits := e.searchMemory(alice, "What is the name of the user's cat?")
			if len(hits) == 0 || hits[0].NoteID != saved.NoteID || hits[0].Text != "The user's cat is called Tom." ||
				hits[0].Source != SourceUserMemory || hits[0].Score <= 0 || hits[0].ConversationID != "" {
				t.Fatalf("search after save: %+v", hits)
			}

			var updated NoteOut
			e.mustCall(alice, MemoryUpdateName, `{"note_id": "`+saved.NoteID+`", "content": "The user's cat is called Felix."}`, &updated)
			if updated.NoteID != saved.NoteID || updated.Status != "updated" || updated.ConversationID != "conv-a" {
				t.Fatalf("updated %+v", updated)
			}
			hits = e.searchMemory(alice, "What is the user's cat called?")
			if len(hits) != 1 || hits[0].Text != "The user's cat is called Felix." || hits[0].NoteID != saved.NoteID {
				t.Fatalf("search after update: %+v", hits)
			}
			for _, h := range e.searchMemory(alice, "Tom") {
				if strings.Contains(h.Text, "Tom") {
					t.Fatalf("the old text is still found: %+v", h)
				}
			}

			var deleted NoteOut
			e.mustCall(alice, MemoryDeleteName, `{"note_id": "`+saved.NoteID+`"}`, &deleted)
			if deleted.Status != "deleted" || deleted.Content != "The user's cat is called Felix." {
				t.Fatalf("deleted %+v", deleted)
			}
			for _, q := range []string{"What is the user's cat called?", "Felix", "Tom"} {
				if hits := e.searchMemory(alice, q); len(hits) != 0 {
					t.Fatalf("%q finds a deleted note: %+v", q, hits)
				}
			}
			if _, err := e.call(alice, MemoryDeleteName, `{"note_id": "`+saved.NoteID+`"}`); !errors.Is(err, memory.ErrNoteNotFound) {
				t.Fatalf("deleting twice: %v", err)
			}
		})
	}
}

// TestMemorySaveOfAKeptText: saving a kept note's text again writes
// nothing and says so: the same note, "already_saved", not a note written
// (an undo of it would undo the kept note), and the receipt says so.
func TestMemorySaveOfAKeptText(t *testing.T) {
	e := newEnv(t, false)
	var first, again NoteOut
	e.mustCall(alice, MemorySaveName, `{"content": "The user's cat is called Tom."}`, &first)
	res, err := e.reg.Execute(context.Background(), bob, Call{ID: "c0", Name: MemorySaveName, Args: json.RawMessage(`{"content": "The user's cat is called Tom."}`)})
	if err != nil || len(res.Notes) != 1 || res.Notes[0].Action != NoteSaved {
		t.Fatalf("another user's save: %+v %v", res, err)
	}
	res, err = e.reg.Execute(context.Background(), alice, Call{ID: "c1", Name: MemorySaveName, Args: json.RawMessage(`{"content": "The user's  cat is called Tom. "}`)})
	if err != nil || json.Unmarshal([]byte(res.Content), &again) != nil {
		t.Fatalf("save again: %+v %v", res, err)
	}
	act := Activity{Name: MemorySaveName, Result: res.Content, Done: true, Notes: res.Notes}
	if again.NoteID != first.NoteID || again.Status != NoteKept || len(act.WrittenNotes()) != 0 ||
		act.Summary() != `already noted: "The user's cat is called Tom."` {
		t.Fatalf("save again: %+v, written %v, %q", again, act.WrittenNotes(), act.Summary())
	}
	if notes, _ := e.store.ListNotes(context.Background(), "alice"); len(notes) != 1 {
		t.Fatalf("alice has %d notes", len(notes))
	}
}

func TestToolsIsolateUsers(t *testing.T) {
	e := newEnv(t, true)
	var saved NoteOut
	e.mustCall(alice, MemorySaveName, `{"content": "The user's cat is called Tom."}`, &saved)
	e.chat("alice", "My sister lives in Lisbon near the tram line", "Lisbon is lovely.")

	if hits := e.searchMemory(bob, "What is the name of the user's cat?"); len(hits) != 0 {
		t.Fatalf("bob finds alice's note: %+v", hits)
	}
	var mixed MemorySearchOut
	e.mustCall(bob, MemorySearchName, `{"query": "Where does my sister live? Lisbon tram", "include_conversation": true}`, &mixed)
	if len(mixed.Results) != 0 {
		t.Fatalf("bob finds alice's turns: %+v", mixed.Results)
	}
	var history ChatHistoryOut
	e.mustCall(bob, SearchChatHistoryName, `{"query": "Where does my sister live?"}`, &history)
	if len(history.Results) != 0 || history.Note != NoteNoHistory {
		t.Fatalf("bob's chat history: %+v", history)
	}
	for _, c := range []struct{ name, args string }{
		{MemoryUpdateName, `{"note_id": "` + saved.NoteID + `", "content": "hacked"}`},
		{MemoryDeleteName, `{"note_id": "` + saved.NoteID + `"}`},
	} {
		_, err := e.call(bob, c.name, c.args)
		if !errors.Is(err, memory.ErrNoteNotFound) || !strings.Contains(err.Error(), "note not found") {
			t.Fatalf("bob %s(%s): %v", c.name, c.args, err)
		}
	}
	// Alice still has both, untouched.
	if hits := e.searchMemory(alice, "What is the name of the user's cat?"); len(hits) != 1 || hits[0].Text != "The user's cat is called Tom." {
		t.Fatalf("alice's note: %+v", hits)
	}
	e.mustCall(alice, SearchChatHistoryName, `{"query": "Where does my sister live?"}`, &history)
	if len(history.Results) != 1 || !strings.Contains(history.Results[0].Snippet, "Lisbon") {
		t.Fatalf("alice's chat history: %+v", history)
	}
}

func TestMemorySearchMergesConversation(t *testing.T) {
	e := newEnv(t, false)
	var saved NoteOut
	e.mustCall(alice, MemorySaveName, `{"content": "The user's sister is called Ana."}`, &saved)
	conv := e.chat("alice", "My sister Ana moved to Lisbon last spring", "Exciting!")
	var out MemorySearchOut
	e.mustCall(alice, MemorySearchName, `{"query": "Where does my sister Ana live?", "top_k": 5, "include_conversation": true}`, &out)
	var sources []Source
	for _, r := range out.Results {
		sources = append(sources, r.Source)
		switch r.Source {
		case SourceUserMemory:
			if r.NoteID != saved.NoteID || r.ConversationID != "" {
				t.Fatalf("note hit %+v", r)
			}
		case SourceConversation:
			if r.ConversationID != conv.ID || r.TurnNumber != 1 || r.NoteID != "" || !strings.Contains(r.Text, "Lisbon") {
				t.Fatalf("conversation hit %+v", r)
			}
		}
	}
	if !slices.Contains(sources, SourceUserMemory) || !slices.Contains(sources, SourceConversation) {
		t.Fatalf("sources %v", sources)
	}
	e.mustCall(alice, MemorySearchName, `{"query": "Where does my sister Ana live?", "top_k": 1, "include_conversation": true}`, &out)
	if len(out.Results) != 1 {
		t.Fatalf("top_k 1 gave %d results", len(out.Results))
	}
	// Without include_conversation only notes come back.
	for _, r := range e.searchMemory(alice, "Where does my sister Ana live?") {
		if r.Source != SourceUserMemory {
			t.Fatalf("conversation hit without include_conversation: %+v", r)
		}
	}
}

func TestSearchChatHistoryShape(t *testing.T) {
	for _, embed := range []bool{false, true} {
		t.Run(map[bool]string{false: "keyword-only", true: "hybrid"}[embed], func(t *testing.T) {
			e := newEnv(t, embed)
			question := "Which sourdough starter should I feed before baking bread? " + strings.Repeat("More detail about flour. ", 20)
			conv := e.chat("alice", question, "Feed it twice a day.")
			e.chat("alice", "What sourdough bread recipe did you suggest?", "A simple one.")

			res, err := e.call(alice, SearchChatHistoryName, `{"query": "How do I feed a sourdough starter?", "limit": 1}`)
			if err != nil {
				t.Fatal(err)
			}
			var top map[string]json.RawMessage
			if err := json.Unmarshal([]byte(res), &top); err != nil {
				t.Fatal(err)
			}
			if keys := sortedKeys(top); !slices.Equal(keys, []string{"query", "results", "totalFound"}) {
				t.Fatalf("top-level keys %v in %s", keys, res)
			}
			var out struct {
				Results []map[string]json.RawMessage `json:"results"`
				Total   int                          `json:"totalFound"`
				Query   string                       `json:"query"`
			}
			if err := json.Unmarshal([]byte(res), &out); err != nil {
				t.Fatal(err)
			}
			if out.Total != 2 || len(out.Results) != 1 || out.Query != "How do I feed a sourdough starter?" {
				t.Fatalf("result %s", res)
			}
			hit := out.Results[0]
			if keys := sortedKeys(hit); !slices.Equal(keys, []string{"conversationId", "score", "snippet", "turnNumber"}) {
				t.Fatalf("result keys %v", keys)
			}
			var h ChatHit
			if err := json.Unmarshal([]byte(res), &struct {
				Results []*ChatHit `json:"results"`
			}{[]*ChatHit{&h}}); err != nil {
				t.Fatal(err)
			}
			if h.ConversationID != conv.ID || h.TurnNumber != 1 || h.Snippet != string([]rune(question)[:200]) {
				t.Fatalf("hit %+v", h)
			}
			// Lower is better either way: a distance when a vector matched,
			// else 1 - the normalised keyword score.
			found, _ := e.ix.Search(context.Background(), index.SearchQuery{UserID: "alice", Text: "How do I feed a sourdough starter?"})
			want := 1 - found[0].Score
			if found[0].Distance != nil {
				want = *found[0].Distance
			}
			if embed != (found[0].Distance != nil) || h.Score != round(want) || h.Score < 0 || h.Score > 2 || !embed && h.Score >= 1 {
				t.Fatalf("score %v, want %v (distance %v)", h.Score, want, found[0].Distance)
			}
		})
	}
}

func TestSearchChatHistoryNeverFails(t *testing.T) {
	e := newEnv(t, false)
	for _, c := range []struct {
		s    Session
		note string
	}{{alice, NoteNoHistory}, {Session{}, NoteNeedIdentity}} {
		res, err := e.call(c.s, SearchChatHistoryName, `{"query": "anything at all"}`)
		if err != nil {
			t.Fatal(err)
		}
		want := `{"results":[],"totalFound":0,"query":"anything at all","note":"` + c.note + `"}`
		if res != want {
			t.Fatalf("got  %s\nwant %s", res, want)
		}
	}
}

func TestMemoryToolsNeedAUser(t *testing.T) {
	e := newEnv(t, false)
	for _, c := range []struct{ name, args string }{
		{MemorySaveName, `{"content": "x"}`},
		{MemorySearchName, `{"query": "x"}`},
		{MemoryUpdateName, `{"note_id": "` + exampleNoteID + `", "content": "x"}`},
		{MemoryDeleteName, `{"note_id": "` + exampleNoteID + `"}`},
	} {
		if _, err := e.call(Session{}, c.name, c.args); !errors.Is(err, ErrNoUser) {
			t.Fatalf("%s without a user: %v", c.name, err)
		}
	}
}

func TestInvalidCallsAreClearErrors(t *testing.T) {
	e := newEnv(t, false)
	long := strings.Repeat("x", memory.MaxNoteRunes+1)
	cases := []struct {
		name, tool, args, want string
	}{
		{"bad JSON", MemorySaveName, `{"content": `, `must be a JSON object like {"content": "..."}`},
		{"not an object", MemorySaveName, `["Tom"]`, "must be a JSON object"},
		{"no arguments", MemorySaveName, ``, `missing required field "content"`},
		{"missing field", MemorySaveName, `{}`, `missing required field "content"`},
		{"null field", MemorySaveName, `{"content": null}`, `missing required field "content"`},
		{"empty content", MemorySaveName, `{"content": "  "}`, `"content" must not be empty`},
		{"content too long", MemorySaveName, `{"content": "` + long + `"}`, `"content" is 2001 characters; it must be 1-2000`},
		{"wrong type", MemorySaveName, `{"content": 42}`, `field "content" must be a string`},
		{"unknown field", MemorySaveName, `{"content": "x", "user_id": "bob"}`, `unknown field "user_id"`},
		{"trailing data", MemorySaveName, `{"content": "x"} {"content": "y"}`, "unexpected data"},
		{"invalid UTF-8", MemorySaveName, "{\"content\": \"caf\xe9\"}", "not valid UTF-8"},
		{"top_k zero", MemorySearchName, `{"query": "cat", "top_k": 0}`, `"top_k" is 0; it must be 1-20`},
		{"top_k too big", MemorySearchName, `{"query": "cat", "top_k": 21}`, `"top_k" is 21; it must be 1-20`},
		{"top_k a string", MemorySearchName, `{"query": "cat", "top_k": "5"}`, `field "top_k" must be a whole number`},
		{"top_k a fraction", MemorySearchName, `{"query": "cat", "top_k": 2.5}`, `field "top_k" must be a whole number`},
		{"include_conversation a string", MemorySearchName, `{"query": "cat", "include_conversation": "yes"}`, `must be true or false`},
		{"query too long", SearchChatHistoryName, `{"query": "` + strings.Repeat("q", 501) + `"}`, `"query" is 501 characters; it must be 1-500`},
		{"limit too big", SearchChatHistoryName, `{"query": "cat", "limit": 50}`, `"limit" is 50; it must be 1-20`},
		{"limit negative", SearchChatHistoryName, `{"query": "cat", "limit": -1}`, `"limit" is -1`},
		{"missing note_id", MemoryUpdateName, `{"content": "x"}`, `missing required field "note_id"`},
		{"missing content", MemoryUpdateName, `{"note_id": "` + exampleNoteID + `"}`, `missing required field "content"`},
		{"note_id too long", MemoryDeleteName, `{"note_id": "` + strings.Repeat("a", 65) + `"}`, `"note_id" is 65 characters`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out, err := e.call(alice, c.tool, c.args)
			if !errors.Is(err, ErrInvalidArgs) || !strings.Contains(err.Error(), c.want) || out != "" {
				t.Fatalf("%s(%s) = %q, %v; want an invalid-arguments error containing %q", c.tool, c.args, out, err, c.want)
			}
		})
	}
	if list, _ := e.store.ListNotes(context.Background(), "alice"); len(list) != 0 {
		t.Fatalf("an invalid call stored %+v", list)
	}
	_, err := e.call(alice, "memory_forget_everything", `{}`)
	if !errors.Is(err, ErrUnknownTool) || !strings.Contains(err.Error(), "memory_save") {
		t.Fatalf("unknown tool: %v", err)
	}
}

type waitArgs struct{}

func (waitArgs) Validate() error { return nil }

func TestTimeoutAndPanicAreErrors(t *testing.T) {
	slow := New(Spec{Name: "slow", Timeout: 20 * time.Millisecond}, func(ctx context.Context, _ Session, _ waitArgs) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	})
	stuck := New(Spec{Name: "stuck", Timeout: 20 * time.Millisecond}, func(ctx context.Context, _ Session, _ waitArgs) (any, error) {
		select {} // ignores its context: the registry must still answer
	})
	broken := New(Spec{Name: "broken"}, func(context.Context, Session, waitArgs) (any, error) {
		var m map[string]int
		m["x"]++ // nil map: panics
		return nil, nil
	})
	reg := NewRegistry(nil, slow, stuck, broken)
	for _, name := range []string{"slow", "stuck"} {
		_, err := reg.Execute(context.Background(), alice, Call{Name: name})
		if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "20ms") {
			t.Fatalf("%s: %v", name, err)
		}
	}
	if _, err := reg.Execute(context.Background(), alice, Call{Name: "broken"}); err == nil || !strings.Contains(err.Error(), "failed internally") {
		t.Fatalf("panic: %v", err)
	}
}

// TestAWriteThatLandsPastItsTimeoutIsReported: a writing tool whose write
// commits after its timeout (the database busy with another mneme) is
// answered with its result, not a timeout: the note exists, and the chat
// must know it (ctrl+z) and the model must not be told it failed.
func TestAWriteThatLandsPastItsTimeoutIsReported(t *testing.T) {
	timedOut, release := make(chan struct{}), make(chan struct{})
	late := New(Spec{Name: "late", Tier: SideEffecting, Timeout: 20 * time.Millisecond}, func(ctx context.Context, _ Session, _ waitArgs) (any, error) {
		<-ctx.Done() // past the timeout, the write still goes on
		close(timedOut)
		<-release
		return map[string]string{"status": "saved"}, nil
	})
	reg := NewRegistry(nil, late)
	go func() { <-timedOut; close(release) }()
	res, err := reg.Execute(context.Background(), alice, Call{Name: "late"})
	if err != nil || !strings.Contains(res.Content, "saved") {
		t.Fatalf("a write that landed late: %+v, %v", res, err)
	}
}

func TestDefinitions(t *testing.T) {
	e := newEnv(t, false)
	defs := e.reg.Definitions()
	want := map[string]struct {
		required []string
		tier     Tier
		timeout  time.Duration
	}{
		MemorySaveName:        {[]string{"content"}, SideEffecting, 10 * time.Second},
		MemorySearchName:      {[]string{"query"}, ReadOnly, 15 * time.Second},
		MemoryUpdateName:      {[]string{"note_id", "content"}, Changing, 10 * time.Second},
		MemoryDeleteName:      {[]string{"note_id"}, Changing, 10 * time.Second},
		SearchChatHistoryName: {[]string{"query"}, ReadOnly, 15 * time.Second},
		FileSearchName:        {[]string{"query"}, ReadOnly, 15 * time.Second},
	}
	if len(defs) != len(want) {
		t.Fatalf("%d definitions", len(defs))
	}
	for _, tool := range MemoryTools(e.ix) {
		d := tool.Definition()
		w, ok := want[d.Function.Name]
		if !ok {
			t.Fatalf("unexpected tool %s", d.Function.Name)
		}
		if !slices.Equal(d.Function.Parameters.Required, w.required) || tool.Tier() != w.tier || tool.Timeout() != w.timeout {
			t.Errorf("%s: required %v tier %v timeout %v", d.Function.Name, d.Function.Parameters.Required, tool.Tier(), tool.Timeout())
		}
		if d.Type != "function" || d.Function.Parameters.Type != "object" || len(d.Function.Description) < 100 {
			t.Errorf("%s: definition %+v", d.Function.Name, d)
		}
		if strings.Contains(d.Function.Name, "search") && !strings.Contains(d.Function.Description, "natural-language sentence") {
			t.Errorf("%s does not ask for natural-language queries", d.Function.Name)
		}
		// The schema as Ollama receives it.
		b, _ := json.Marshal(d)
		var wire struct {
			Function struct {
				Parameters struct {
					Properties map[string]struct {
						Type        string `json:"type"`
						Description string `json:"description"`
					} `json:"properties"`
				} `json:"parameters"`
			} `json:"function"`
		}
		if err := json.Unmarshal(b, &wire); err != nil {
			t.Fatal(err)
		}
		for name, p := range wire.Function.Parameters.Properties {
			if p.Type == "" || p.Description == "" {
				t.Errorf("%s.%s: %+v", d.Function.Name, name, p)
			}
		}
	}
}

func TestSummaries(t *testing.T) {
	cases := []struct {
		a    Activity
		want string
	}{
		{Activity{Name: MemorySaveName, Args: `{"content":"cat is Tom"}`}, `saving note: "cat is Tom"`},
		{Activity{Name: MemorySaveName, Args: `{"content":"cat is Tom"}`, Result: `{"note_id":"0193abcdef","content":"cat is Tom"}`, Done: true}, `saved note: "cat is Tom"`},
		{Activity{Name: MemorySearchName, Args: `{"query":"the cat"}`, Result: `{"results":[{},{},{}]}`, Done: true}, `searched memory for "the cat" (3 hits)`},
		{Activity{Name: SearchChatHistoryName, Args: `{"query":"bread"}`, Result: `{"results":[{}],"totalFound":1}`, Done: true}, `searched chat history for "bread" (1 hit)`},
		{Activity{Name: FileSearchName, Args: `{"query":"reset the boiler"}`}, `searching documents for "reset the boiler"`},
		{Activity{Name: FileSearchName, Args: `{"query":"boiler"}`, Result: `{"results":[{},{}]}`, Done: true}, `searched documents for "boiler" (2 passages)`},
		{Activity{Name: MemoryUpdateName, Args: `{}`, Result: `{"note_id":"01a20dd5-8b37-761a-80a8-69731bf3e578","content":"cat is Felix"}`, Done: true}, `updated note 01a20dd5-8b37: "cat is Felix"`},
		{Activity{Name: MemoryDeleteName, Args: `{}`, Result: `{"note_id":"01a20dd5-8b37-761a-80a8-69731bf3e578","content":"cat\n is Felix"}`, Done: true}, `deleted note 01a20dd5-8b37: "cat is Felix"`},
		{Activity{Name: MemorySaveName, Args: `{}`, Error: "invalid arguments: missing required field \"content\"", Done: true}, `memory_save failed: invalid arguments: missing required field "content"`},
		{Activity{Name: "frob", Args: `{"a": 1}`}, `frob({"a": 1})`},
		{Activity{Name: "frob", Args: `{"a": 1}`, Result: "ok\nfine", Done: true}, `frob({"a": 1}) → ok fine`},
		{Activity{Name: "frob", Args: `{}`, Error: `unknown tool "frob"`, Done: true}, `frob({}) ✗ unknown tool "frob"`},
		{Activity{Name: MemorySaveName, Args: `{"content":"` + strings.Repeat("a", 100) + `"}`}, `saving note: "` + strings.Repeat("a", 59) + `…"`},
		// An escape sequence long enough to reach the cut: sanitised first,
		// it cannot swallow the end.
		{Activity{Name: MemorySaveName, Args: `{"content":"saved \u001b]52;c;` + strings.Repeat("Z", 60) + `\u0007 end"}`}, `saving note: "saved end"`},
	}
	for _, c := range cases {
		if got := c.a.Summary(); got != c.want {
			t.Errorf("Summary(%+v) = %q, want %q", c.a, got, c.want)
		}
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

func TestNoteToolsTakeOnlyFullIDs(t *testing.T) {
	e := newEnv(t, false)
	var saved NoteOut
	e.mustCall(alice, MemorySaveName, `{"content": "The user's only note."}`, &saved)
	// A UUIDv7 prefix is a timestamp: "01a2" would have picked this note.
	for _, c := range []struct{ name, args string }{
		{MemoryDeleteName, `{"note_id": "` + saved.NoteID[:4] + `"}`},
		{MemoryDeleteName, `{"note_id": "` + saved.NoteID[:35] + `"}`},
		{MemoryUpdateName, `{"note_id": "` + saved.NoteID[:8] + `", "content": "changed"}`},
	} {
		out, err := e.call(alice, c.name, c.args)
		if !errors.Is(err, ErrInvalidArgs) || !strings.Contains(err.Error(), `"note_id" must be a note's full id`) || out != "" {
			t.Fatalf("%s(%s) = %q, %v", c.name, c.args, out, err)
		}
	}
	if list, _ := e.store.ListNotes(context.Background(), "alice"); len(list) != 1 || list[0].Content != "The user's only note." {
		t.Fatalf("notes after prefix calls: %+v", list)
	}
}
