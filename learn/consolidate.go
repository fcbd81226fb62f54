package learn

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"
)

// Existing is a kept note that may be about the same thing as a candidate.
type Existing struct {
	ID, Text string
}

// Notes is what consolidation reads and changes: the user's notes and
// their hybrid search.
type Notes interface {
	// Similar returns the user's notes most like text, best first.
	Similar(ctx context.Context, userID, text string, limit int) ([]Existing, error)
	// Add keeps a new note learnt from a candidate and returns its id;
	// replaces names the kept note it would replace once the user approves
	// it (review only), else "". A note of the same text kept meanwhile
	// (another mneme learnt it while the model decided) is the answer,
	// with kept true.
	Add(ctx context.Context, userID string, c Candidate, replaces string) (id string, kept bool, err error)
	// Update replaces the text of note id when it is still before
	// (else ErrChanged: an edit made while the model decided stays; or
	// ErrKept: another note already has the text).
	Update(ctx context.Context, userID, id, before, text string) error
	// Delete forgets note id when its text is still before (else
	// ErrChanged, as Update).
	Delete(ctx context.Context, userID, id, before string) error
}

// Event is what consolidation did with one candidate, as mem0 names it.
type Event string

// The events of consolidation.
const (
	EventAdd    Event = "ADD"
	EventUpdate Event = "UPDATE"
	EventDelete Event = "DELETE"
	EventNone   Event = "NONE"
)

// Change is one consolidation step: the event, the note it touched (for
// ADD, the new one; for DELETE, the one forgotten, and Added is the note
// that replaced it), the text before and after, and why nothing was done.
type Change struct {
	Event     Event
	NoteID    string
	Added     string
	Before    string
	After     string
	Candidate Candidate
	Reason    string
}

// similarLimit is how many similar notes a decision sees.
const similarLimit = 5

// nearDuplicate is the share of words two texts must have in common
// (Jaccard) to be the same memory without asking the model.
const nearDuplicate = 0.9

// decideTokens bounds a decision reply.
const decideTokens = 256

const decideInstructions = `You keep a memory of facts about the user. The user message is JSON with a new fact
("new") and the most similar memories already kept ("existing", numbered by "id").
Decide what to do with the new fact:
- ADD: it is new information; nothing kept says it.
- UPDATE: it adds to or refines one kept memory; give that memory's id, and as text the
  merged memory in one short sentence that keeps what is still true of both.
- DELETE: it contradicts one kept memory, which is no longer true; give that memory's id.
- NONE: a kept memory already says the same.
Answer with the event, the id (0 for ADD and NONE), and the text (the merged text for UPDATE, else "").`

// decideFormat is the JSON schema of a decision.
var decideFormat = json.RawMessage(`{"type":"object","properties":{"event":{"type":"string","enum":["ADD","UPDATE","DELETE","NONE"]},` +
	`"id":{"type":"integer"},"text":{"type":"string"}},"required":["event","id","text"]}`)

// Consolidate merges the candidates into the user's notes, one at a time,
// so that a later candidate sees what an earlier one added. A candidate
// that repeats a kept note (or an earlier candidate) word for word, or
// nearly, changes nothing and costs no model call; one that resembles no
// kept note is added without a call. Otherwise the model decides. A
// candidate whose decision is malformed is added (logged): a garbled
// answer must not lose the fact. The changes made are returned, NONE
// included, even when an error (Ollama unreachable, ctx done) stops the run.
func Consolidate(ctx context.Context, c ChatClient, m Model, notes Notes, userID string, cands []Candidate) ([]Change, error) {
	return consolidate(ctx, c, m, notes, userID, cands, false)
}

// ConsolidateForReview is Consolidate for memory the user reviews first
// (the inbox): it never changes or deletes a kept note. What it would
// have merged into one is added as a new note with the merged text, and a
// fact that contradicts one is added beside it; the user approves or
// rejects each. Every change is an ADD (or NONE).
func ConsolidateForReview(ctx context.Context, c ChatClient, m Model, notes Notes, userID string, cands []Candidate) ([]Change, error) {
	return consolidate(ctx, c, m, notes, userID, cands, true)
}

func consolidate(ctx context.Context, c ChatClient, m Model, notes Notes, userID string, cands []Candidate, review bool) ([]Change, error) {
	var out []Change
	var seen []string
	for _, cand := range cands {
		if dup := nearestDuplicate(cand.Text, seen); dup != "" {
			out = append(out, Change{Event: EventNone, Candidate: cand, Reason: "repeats another memory of the same turn"})
			continue
		}
		seen = append(seen, cand.Text)
		ch, err := consolidateOne(ctx, c, m, notes, userID, cand, review)
		if err != nil {
			return out, err
		}
		out = append(out, ch)
	}
	return out, nil
}

func consolidateOne(ctx context.Context, c ChatClient, m Model, notes Notes, userID string, cand Candidate, review bool) (Change, error) {
	similar, err := notes.Similar(ctx, userID, cand.Text, similarLimit)
	if err != nil {
		return Change{}, fmt.Errorf("similar notes: %w", err)
	}
	texts := make([]string, len(similar))
	for i, e := range similar {
		texts[i] = e.Text
	}
	if dup := nearestDuplicate(cand.Text, texts); dup != "" {
		for _, e := range similar {
			if e.Text == dup {
				return Change{Event: EventNone, NoteID: e.ID, Before: e.Text, Candidate: cand, Reason: "already kept"}, nil
			}
		}
	}
	if len(similar) == 0 {
		return add(ctx, notes, userID, cand, "")
	}
	d, err := decide(ctx, c, m, cand, similar)
	switch {
	case errors.Is(err, ErrMalformed):
		// The fact is kept as a note of its own, to be seen and undone,
		// rather than lost for an answer the model garbled.
		logger(m).Info("consolidation decision unreadable; adding the memory", "err", err, "candidate", cand.Text)
		ch, err := add(ctx, notes, userID, cand, "")
		ch.Reason = "the model's decision was unreadable"
		return ch, err
	case err != nil:
		return Change{}, fmt.Errorf("consolidation decision: %w", err)
	}
	switch {
	case review && d.Event == EventUpdate:
		merged := cand
		merged.Text = d.Text
		ch, err := add(ctx, notes, userID, merged, similar[d.ID-1].ID)
		ch.Reason = "would update " + similar[d.ID-1].ID
		return ch, err
	case review && d.Event == EventDelete:
		ch, err := add(ctx, notes, userID, cand, similar[d.ID-1].ID)
		ch.Reason = "contradicts " + similar[d.ID-1].ID
		return ch, err
	}
	switch d.Event {
	case EventAdd:
		return add(ctx, notes, userID, cand, "")
	case EventUpdate:
		e := similar[d.ID-1]
		err := notes.Update(ctx, userID, e.ID, e.Text, d.Text)
		switch {
		case errors.Is(err, ErrChanged):
			return Change{Event: EventNone, NoteID: e.ID, Candidate: cand, Reason: "the note changed while the model decided"}, nil
		case errors.Is(err, ErrKept):
			return Change{Event: EventNone, NoteID: e.ID, Candidate: cand, Reason: "another note already says it"}, nil
		case err != nil:
			return Change{}, fmt.Errorf("update note: %w", err)
		}
		return Change{Event: EventUpdate, NoteID: e.ID, Before: e.Text, After: d.Text, Candidate: cand}, nil
	case EventDelete:
		// The kept note is no longer true; the new fact takes its place.
		e := similar[d.ID-1]
		if err := notes.Delete(ctx, userID, e.ID, e.Text); errors.Is(err, ErrChanged) {
			return Change{Event: EventNone, NoteID: e.ID, Candidate: cand, Reason: "the note changed while the model decided"}, nil
		} else if err != nil {
			return Change{}, fmt.Errorf("delete note: %w", err)
		}
		added, err := add(ctx, notes, userID, cand, "")
		return Change{Event: EventDelete, NoteID: e.ID, Added: added.NoteID, Before: e.Text, After: cand.Text, Candidate: cand}, err
	}
	ch := Change{Event: EventNone, Candidate: cand, Reason: "the model found it kept"}
	if d.ID >= 1 && d.ID <= len(similar) {
		ch.NoteID, ch.Before = similar[d.ID-1].ID, similar[d.ID-1].Text
	}
	return ch, nil
}

func add(ctx context.Context, notes Notes, userID string, cand Candidate, replaces string) (Change, error) {
	id, kept, err := notes.Add(ctx, userID, cand, replaces)
	if kept {
		return Change{Event: EventNone, NoteID: id, Candidate: cand, Reason: "kept meanwhile, by another mneme"}, err
	}
	if err != nil {
		return Change{}, fmt.Errorf("add note: %w", err)
	}
	return Change{Event: EventAdd, NoteID: id, After: cand.Text, Candidate: cand}, nil
}

// decision is the model's answer for one candidate.
type decision struct {
	Event Event  `json:"event"`
	ID    int    `json:"id"`
	Text  string `json:"text"`
}

// decide asks the model what to do with cand; ids are 1-based positions
// in similar, so that the model never copies a long id.
func decide(ctx context.Context, c ChatClient, m Model, cand Candidate, similar []Existing) (decision, error) {
	type kept struct {
		ID   int    `json:"id"`
		Text string `json:"text"`
	}
	in := struct {
		New      string `json:"new"`
		Existing []kept `json:"existing"`
	}{New: cand.Text}
	for i, e := range similar {
		in.Existing = append(in.Existing, kept{ID: i + 1, Text: e.Text})
	}
	user, err := json.Marshal(in)
	if err != nil {
		return decision{}, err
	}
	var d decision
	if err := ask(ctx, c, m, decideInstructions, string(user), decideFormat, decideTokens, &d); err != nil {
		return decision{}, err
	}
	d.Text = strings.Join(strings.Fields(d.Text), " ")
	switch d.Event {
	case EventAdd, EventNone:
	case EventUpdate, EventDelete:
		if d.ID < 1 || d.ID > len(similar) {
			return decision{}, fmt.Errorf("%w: %s names memory %d of %d", ErrMalformed, d.Event, d.ID, len(similar))
		}
		if _, why := validCandidate(Candidate{Text: d.Text, Kind: KindOther}); d.Event == EventUpdate && why != "" {
			return decision{}, fmt.Errorf("%w: UPDATE text: %s", ErrMalformed, why)
		}
	default:
		return decision{}, fmt.Errorf("%w: event %q", ErrMalformed, d.Event)
	}
	return d, nil
}

// nearestDuplicate returns the text of kept that says the same as text,
// word for word or nearly (case, punctuation and word order aside), or "".
func nearestDuplicate(text string, kept []string) string {
	a := wordSet(text)
	for _, k := range kept {
		if jaccard(a, wordSet(k)) >= nearDuplicate {
			return k
		}
	}
	return ""
}

func wordSet(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		set[w] = true
	}
	return set
}

func jaccard(a, b map[string]bool) float64 {
	if len(a) == 0 && len(b) == 0 {
		return 1
	}
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}
