package learn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
)

func client(t *testing.T, srv *fakeollama.Server) *api.Client {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(u, http.DefaultClient)
}

// jsonReply answers with v as the whole (unstreamed) content.
func jsonReply(v any) fakeollama.Reply {
	b, _ := json.Marshal(v)
	return fakeollama.Say(string(b))
}

func TestExtractSendsTheTurnAndKeepsValidMemories(t *testing.T) {
	srv := fakeollama.New(t)
	srv.Script(jsonReply(map[string]any{"memories": []map[string]any{
		{"text": "  Has a cat\n called Tom. ", "confidence": 0.9, "tags": []string{"Pets", "pets", "cat names"}, "kind": "fact"},
		{"text": "", "confidence": 0.5, "tags": []string{}, "kind": "fact"},
		{"text": "Is sure of everything.", "confidence": 1.5, "tags": []string{}, "kind": "fact"},
		{"text": "Plans a trip to Lisbon in May.", "confidence": 0.7, "tags": []string{"travel"}, "kind": "itinerary"},
		// A confidence written as text is read; one that says no number
		// drops its memory alone (it dropped the whole reply).
		{"text": "Drinks green tea.", "confidence": "0.8", "tags": []string{}, "kind": "preference"},
		{"text": "Runs every morning.", "confidence": "95%", "tags": []string{}, "kind": "fact"},
		{"text": "Is tall.", "confidence": "high", "tags": []string{}, "kind": "fact"},
	}}))
	got, err := Extract(context.Background(), client(t, srv), Model{Name: fakeollama.DefaultChatModel, Options: map[string]any{"num_ctx": 4096}},
		Turn{User: "My cat Tom is sick, and I fly to Lisbon in May.", Assistant: "Sorry to hear about Tom."})
	if err != nil {
		t.Fatal(err)
	}
	want := []Candidate{
		{Text: "Has a cat called Tom.", Confidence: 0.9, Tags: []string{"pets", "cat-names"}, Kind: KindFact},
		{Text: "Is sure of everything.", Confidence: 1, Kind: KindFact}, // out of range: kept, at 1
		{Text: "Plans a trip to Lisbon in May.", Confidence: 0.7, Tags: []string{"travel"}, Kind: KindOther},
		{Text: "Drinks green tea.", Confidence: 0.8, Kind: KindPreference},
		{Text: "Runs every morning.", Confidence: 0.95, Kind: KindFact},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("extracted %+v\nwant %+v", got, want)
	}
	req := srv.LastRequest()
	if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[1].Role != "user" ||
		!strings.Contains(req.Messages[1].Content, "My cat Tom is sick") || !strings.Contains(req.Messages[1].Content, "Sorry to hear") {
		t.Fatalf("the turn is not the user message: %+v", req.Messages)
	}
	if len(req.Format) == 0 || req.Options["num_ctx"] != float64(4096) || req.Options["temperature"] != float64(0) {
		t.Fatalf("format %s, options %v", req.Format, req.Options)
	}
}

func TestExtractMalformedReply(t *testing.T) {
	srv := fakeollama.New(t)
	srv.Script(fakeollama.Say(`{"memories": [{"text": "unterminated`))
	_, err := Extract(context.Background(), client(t, srv), Model{Name: fakeollama.DefaultChatModel}, Turn{User: "hi"})
	if !errors.Is(err, ErrMalformed) {
		t.Fatalf("err = %v, want ErrMalformed", err)
	}
}

// notes is an in-memory Notes whose similarity is shared words.
type notes struct {
	byID     map[string]string
	replaces map[string]string // what a note for review would replace
	order    []string
	n        int
}

func newNotes(texts ...string) *notes {
	ns := &notes{byID: map[string]string{}, replaces: map[string]string{}}
	for _, t := range texts {
		ns.Add(context.Background(), "u", Candidate{Text: t}, "")
	}
	return ns
}

func (ns *notes) Similar(_ context.Context, _ string, text string, limit int) ([]Existing, error) {
	var out []Existing
	for _, id := range ns.order {
		if jaccard(wordSet(text), wordSet(ns.byID[id])) > 0 {
			out = append(out, Existing{ID: id, Text: ns.byID[id]})
		}
	}
	return out[:min(limit, len(out))], nil
}

func (ns *notes) Add(_ context.Context, _ string, c Candidate, replaces string) (string, bool, error) {
	ns.n++
	id := fmt.Sprintf("n%d", ns.n)
	ns.byID[id], ns.replaces[id] = c.Text, replaces
	ns.order = append(ns.order, id)
	return id, false, nil
}

func (ns *notes) Update(_ context.Context, _, id, before, text string) error {
	if ns.byID[id] != before {
		return ErrChanged
	}
	ns.byID[id] = text
	return nil
}

func (ns *notes) Delete(_ context.Context, _, id, before string) error {
	if ns.byID[id] != before {
		return ErrChanged
	}
	delete(ns.byID, id)
	ns.order = slices.DeleteFunc(ns.order, func(s string) bool { return s == id })
	return nil
}

func (ns *notes) texts() []string {
	var out []string
	for _, id := range ns.order {
		out = append(out, ns.byID[id])
	}
	return out
}

func TestConsolidate(t *testing.T) {
	cases := map[string]struct {
		kept     []string
		cand     string
		decision any // the model's reply; nil: no call expected
		want     Event
		after    []string
	}{
		"new, nothing similar: added without a call": {
			kept: []string{"Lives in Porto."}, cand: "Has a cat called Tom.",
			want: EventAdd, after: []string{"Lives in Porto.", "Has a cat called Tom."},
		},
		"word for word: nothing, no call": {
			kept: []string{"Has a cat called Tom."}, cand: "Has a cat called Tom.",
			want: EventNone, after: []string{"Has a cat called Tom."},
		},
		"nearly the same: nothing, no call": {
			kept: []string{"Has a cat called Tom."}, cand: "has a CAT, called Tom",
			want: EventNone, after: []string{"Has a cat called Tom."},
		},
		"the model adds": {
			kept: []string{"Has a cat called Tom."}, cand: "Has a dog called Rex.",
			decision: map[string]any{"event": "ADD", "id": 0, "text": ""},
			want:     EventAdd, after: []string{"Has a cat called Tom.", "Has a dog called Rex."},
		},
		"the model updates in place": {
			kept: []string{"Has a cat called Tom."}, cand: "Tom the cat is ten years old.",
			decision: map[string]any{"event": "UPDATE", "id": 1, "text": "Has a ten-year-old cat called Tom."},
			want:     EventUpdate, after: []string{"Has a ten-year-old cat called Tom."},
		},
		"the model deletes a contradicted note; the new fact replaces it": {
			kept: []string{"Lives in Porto.", "Likes the rain in Porto."}, cand: "Moved from Porto to Lisbon.",
			decision: map[string]any{"event": "DELETE", "id": 1, "text": ""},
			want:     EventDelete, after: []string{"Likes the rain in Porto.", "Moved from Porto to Lisbon."},
		},
		"the model finds it kept": {
			kept: []string{"Is vegetarian."}, cand: "Does not eat meat; is vegetarian.",
			decision: map[string]any{"event": "NONE", "id": 1, "text": ""},
			want:     EventNone, after: []string{"Is vegetarian."},
		},
		// A garbled decision loses no fact: it is kept beside the others,
		// to be seen and undone (it was dropped, and never tried again).
		"a decision naming no kept note adds the fact": {
			kept: []string{"Is vegetarian."}, cand: "Is vegan now.",
			decision: map[string]any{"event": "UPDATE", "id": 7, "text": "Is vegan."},
			want:     EventAdd, after: []string{"Is vegetarian.", "Is vegan now."},
		},
		"a decision that is not JSON adds the fact": {
			kept: []string{"Is vegetarian."}, cand: "Is vegan now.",
			decision: "not json",
			want:     EventAdd, after: []string{"Is vegetarian.", "Is vegan now."},
		},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			srv := fakeollama.New(t)
			calls := 0
			srv.SetDefault(func(req api.ChatRequest) fakeollama.Reply {
				calls++
				if s, ok := c.decision.(string); ok {
					return fakeollama.Say(s)
				}
				return jsonReply(c.decision)
			})
			ns := newNotes(c.kept...)
			changes, err := Consolidate(context.Background(), client(t, srv), Model{Name: fakeollama.DefaultChatModel}, ns, "u",
				[]Candidate{{Text: c.cand, Confidence: 0.8, Kind: KindFact}})
			if err != nil {
				t.Fatal(err)
			}
			if len(changes) != 1 || changes[0].Event != c.want {
				t.Fatalf("changes %+v, want one %s", changes, c.want)
			}
			if !slices.Equal(ns.texts(), c.after) {
				t.Fatalf("notes after: %q, want %q", ns.texts(), c.after)
			}
			if wantCalls := map[bool]int{true: 0, false: 1}[c.decision == nil]; calls != wantCalls {
				t.Fatalf("%d model calls, want %d", calls, wantCalls)
			}
		})
	}
}

// TestConsolidateTwiceMakesNoDuplicates: learning the same turn again
// (or the same fact twice in one turn) keeps one note each, without a
// model call.
func TestConsolidateTwiceMakesNoDuplicates(t *testing.T) {
	srv := fakeollama.New(t)
	srv.SetDefault(func(api.ChatRequest) fakeollama.Reply {
		return jsonReply(map[string]any{"event": "ADD", "id": 0, "text": ""})
	})
	cands := []Candidate{{Text: "Has a cat called Tom."}, {Text: "Works night shifts."}, {Text: "has a cat called tom"}}
	ns := newNotes()
	for run := 1; run <= 2; run++ {
		if _, err := Consolidate(context.Background(), client(t, srv), Model{Name: fakeollama.DefaultChatModel}, ns, "u", cands); err != nil {
			t.Fatal(err)
		}
	}
	if want := []string{"Has a cat called Tom.", "Works night shifts."}; !slices.Equal(ns.texts(), want) {
		t.Fatalf("notes %q, want %q", ns.texts(), want)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d model calls for facts with nothing similar or already kept", n)
	}
}

// TestConsolidateKeepsAnEditMadeWhileTheModelDecided: the user edits a
// note while the model decides to merge a memory into it: the edit stays,
// and the memory changes nothing.
func TestConsolidateKeepsAnEditMadeWhileTheModelDecided(t *testing.T) {
	ns := newNotes("Has a cat called Tom.")
	srv := fakeollama.New(t)
	srv.SetDefault(func(api.ChatRequest) fakeollama.Reply {
		ns.byID["n1"] = "Has a cat called Tom, who is 12." // another mneme, meanwhile
		return jsonReply(map[string]any{"event": "UPDATE", "id": 1, "text": "Has a Maine Coon cat called Tom."})
	})
	changes, err := Consolidate(context.Background(), client(t, srv), Model{Name: fakeollama.DefaultChatModel}, ns, "u",
		[]Candidate{{Text: "Tom is a Maine Coon cat.", Confidence: 0.9}})
	if err != nil || len(changes) != 1 || changes[0].Event != EventNone {
		t.Fatalf("changes %+v, %v", changes, err)
	}
	if got := ns.texts(); !slices.Equal(got, []string{"Has a cat called Tom, who is 12."}) {
		t.Fatalf("notes %q: the edit was overwritten", got)
	}
}

// TestConsolidateKeepsANoteEditedBeforeItsDelete: a note the model finds
// contradicted, edited meanwhile, stays, and the memory changes nothing.
func TestConsolidateKeepsANoteEditedBeforeItsDelete(t *testing.T) {
	ns := newNotes("Lives in Berlin.")
	srv := fakeollama.New(t)
	srv.SetDefault(func(api.ChatRequest) fakeollama.Reply {
		ns.byID["n1"] = "Lives in Berlin, works in Lisbon." // another mneme, meanwhile
		return jsonReply(map[string]any{"event": "DELETE", "id": 1, "text": ""})
	})
	changes, err := Consolidate(context.Background(), client(t, srv), Model{Name: fakeollama.DefaultChatModel}, ns, "u",
		[]Candidate{{Text: "Lives in Lisbon.", Confidence: 0.9}})
	if err != nil || len(changes) != 1 || changes[0].Event != EventNone {
		t.Fatalf("changes %+v, %v", changes, err)
	}
	if got := ns.texts(); !slices.Equal(got, []string{"Lives in Berlin, works in Lisbon."}) {
		t.Fatalf("notes %q: the edited note was deleted", got)
	}
}

// TestConsolidateForReviewChangesNothingKept: for the review inbox, what
// would update or delete a kept note is added as a new note instead, which
// names the kept note it would replace; the kept notes stay as they were.
func TestConsolidateForReviewChangesNothingKept(t *testing.T) {
	for name, c := range map[string]struct {
		decision any
		added    string
	}{
		"update": {map[string]any{"event": "UPDATE", "id": 1, "text": "Has a ten-year-old cat called Tom."}, "Has a ten-year-old cat called Tom."},
		"delete": {map[string]any{"event": "DELETE", "id": 1, "text": ""}, "Tom the cat is ten years old."},
	} {
		t.Run(name, func(t *testing.T) {
			srv := fakeollama.New(t)
			srv.SetDefault(func(api.ChatRequest) fakeollama.Reply { return jsonReply(c.decision) })
			ns := newNotes("Has a cat called Tom.")
			changes, err := ConsolidateForReview(context.Background(), client(t, srv), Model{Name: fakeollama.DefaultChatModel}, ns, "u",
				[]Candidate{{Text: "Tom the cat is ten years old.", Confidence: 0.8}})
			if err != nil {
				t.Fatal(err)
			}
			if len(changes) != 1 || changes[0].Event != EventAdd {
				t.Fatalf("changes %+v", changes)
			}
			if want := []string{"Has a cat called Tom.", c.added}; !slices.Equal(ns.texts(), want) {
				t.Fatalf("notes %q, want %q", ns.texts(), want)
			}
			if got := ns.replaces[changes[0].NoteID]; got != "n1" {
				t.Fatalf("the note for review replaces %q, want the kept note n1", got)
			}
		})
	}
}

// TestConsolidateStopsWhenTheModelFails: a decision Ollama could not make
// (an error, not a garbled answer) stops consolidation with the error, so
// that the turn counts as not learnt and is tried again; nothing changes.
func TestConsolidateStopsWhenTheModelFails(t *testing.T) {
	srv := fakeollama.New(t)
	srv.SetDefault(func(api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Status: http.StatusInternalServerError, Error: "model runner crashed"}
	})
	ns := newNotes("Is vegetarian.")
	changes, err := Consolidate(context.Background(), client(t, srv), Model{Name: fakeollama.DefaultChatModel}, ns, "u",
		[]Candidate{{Text: "Is vegan now.", Confidence: 0.8, Kind: KindFact}})
	if err == nil || errors.Is(err, ErrMalformed) || len(changes) != 0 || !slices.Equal(ns.texts(), []string{"Is vegetarian."}) {
		t.Fatalf("changes %+v, err %v, notes %q", changes, err, ns.texts())
	}
}
