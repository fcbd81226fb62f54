package eval

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/mneme-dev/mneme/learn"
)

// Options are how a run goes.
type Options struct {
	// Progress, when set, is told about each dialogue as it is done.
	Progress func(done, total int, r DialogueResult)
}

// Report is what a run measured.
type Report struct {
	Model     string `json:"model"`
	Matcher   string `json:"matcher"`
	Dialogues int    `json:"dialogues"`
	// Extraction, over every dialogue, and by kind: precision by the kind
	// the model gave, recall by the kind expected.
	Extraction Scores            `json:"extraction"`
	ByKind     map[string]Scores `json:"by_kind"`
	// Quiet is how many dialogues with nothing to remember got nothing
	// extracted, of QuietOf.
	Quiet   int `json:"quiet"`
	QuietOf int `json:"quiet_of"`
	// Failed is how many extractions the model answered with something
	// that was not the schema's JSON (counted as extracting nothing).
	Failed        int              `json:"failed_extractions"`
	Consolidation Consolidation    `json:"consolidation"`
	Results       []DialogueResult `json:"results"`
}

// Scores are precision and recall: Matched of Extracted were expected,
// MatchedExpected of Expected were extracted. With nothing extracted the
// precision is 1 (nothing wrong was claimed); with nothing expected the
// recall is 1.
type Scores struct {
	Expected        int     `json:"expected"`
	Extracted       int     `json:"extracted"`
	Matched         int     `json:"matched"`
	MatchedExpected int     `json:"matched_expected"`
	Precision       float64 `json:"precision"`
	Recall          float64 `json:"recall"`
}

func (s *Scores) finish() {
	s.Precision, s.Recall = ratio(s.Matched, s.Extracted), ratio(s.MatchedExpected, s.Expected)
}

func ratio(n, of int) float64 {
	if of == 0 {
		return 1
	}
	return float64(n) / float64(of)
}

// Consolidation is what consolidating every extracted memory, dialogue by
// dialogue in order, into one empty set of notes left: the events, the
// notes kept, and the pairs of kept notes the matcher takes for the same
// memory. DuplicateRate is the share of kept notes that repeat an earlier
// kept note (0 when nothing is kept).
type Consolidation struct {
	Events         map[learn.Event]int `json:"events"`
	Kept           []string            `json:"kept"`
	DuplicatePairs [][2]string         `json:"duplicate_pairs"`
	DuplicateRate  float64             `json:"duplicate_rate"`
	Errors         int                 `json:"errors"`
}

// DialogueResult is one dialogue's extraction.
type DialogueResult struct {
	ID        string   `json:"id"`
	Expected  []string `json:"expected"`
	Extracted []string `json:"extracted"`
	Matched   int      `json:"matched"`
	Precision float64  `json:"precision"`
	Recall    float64  `json:"recall"`
	Failed    bool     `json:"failed,omitempty"`
}

// String is the result in one line, for progress.
func (r DialogueResult) String() string {
	s := fmt.Sprintf("%s: %d extracted, %d of %d expected found", r.ID, len(r.Extracted), r.Matched, len(r.Expected))
	if r.Failed {
		s += ", a malformed reply"
	}
	return s
}

// MatcherName says how memories are compared, for the report.
var MatcherName = "content-word Dice overlap >= " + strconv.FormatFloat(Threshold, 'f', -1, 64)

// Run extracts the memories of every dialogue of set with model (each turn
// as mneme does after it), scores them against the expected ones, then
// consolidates them all into an in-memory set of notes and counts the
// duplicates left. An extraction the model answers malformed counts as
// extracting nothing; any other error (Ollama unreachable, cancelled)
// ends the run.
func Run(ctx context.Context, c learn.ChatClient, model learn.Model, set Set, opts Options) (Report, error) {
	rep := Report{Model: model.Name, Matcher: MatcherName, Dialogues: len(set.Dialogues), ByKind: map[string]Scores{}}
	var learnt [][]learn.Candidate
	for i, d := range set.Dialogues {
		var cands []learn.Candidate
		failed := false
		for _, t := range d.Turns {
			got, err := learn.Extract(ctx, c, model, t)
			if errors.Is(err, learn.ErrMalformed) {
				failed = true
				continue
			}
			if err != nil {
				return rep, fmt.Errorf("dialogue %s: %w", d.ID, err)
			}
			cands = append(cands, got...)
		}
		learnt = append(learnt, cands)
		r := score(&rep, d, cands)
		r.Failed = failed
		if failed {
			rep.Failed++
		}
		rep.Results = append(rep.Results, r)
		if opts.Progress != nil {
			opts.Progress(i+1, len(set.Dialogues), r)
		}
	}
	rep.Extraction.finish()
	for k, s := range rep.ByKind {
		s.finish()
		rep.ByKind[k] = s
	}
	cons, err := consolidateAll(ctx, c, model, learnt)
	rep.Consolidation = cons
	return rep, err
}

// score matches one dialogue's extracted memories and adds them up.
func score(rep *Report, d Dialogue, cands []learn.Candidate) DialogueResult {
	r := DialogueResult{ID: d.ID, Expected: []string{}, Extracted: []string{}}
	for _, m := range d.Expected {
		r.Expected = append(r.Expected, m.Text)
	}
	for _, c := range cands {
		r.Extracted = append(r.Extracted, c.Text)
	}
	pairs := Match(r.Expected, r.Extracted)
	r.Matched = len(pairs)
	r.Precision, r.Recall = ratio(len(pairs), len(cands)), ratio(len(pairs), len(d.Expected))
	rep.Extraction.Expected += len(d.Expected)
	rep.Extraction.Extracted += len(cands)
	rep.Extraction.Matched += len(pairs)
	rep.Extraction.MatchedExpected += len(pairs)
	if len(d.Expected) == 0 {
		rep.QuietOf++
		if len(cands) == 0 {
			rep.Quiet++
		}
	}
	matchedE, matchedX := map[int]bool{}, map[int]bool{}
	for _, p := range pairs {
		matchedE[p.Expected], matchedX[p.Extracted] = true, true
	}
	for i, m := range d.Expected {
		s := rep.ByKind[string(m.Kind)]
		s.Expected++
		if matchedE[i] {
			s.MatchedExpected++
		}
		rep.ByKind[string(m.Kind)] = s
	}
	for j, c := range cands {
		s := rep.ByKind[string(c.Kind)]
		s.Extracted++
		if matchedX[j] {
			s.Matched++
		}
		rep.ByKind[string(c.Kind)] = s
	}
	return r
}

// consolidateAll consolidates each dialogue's memories, in order, into
// one empty in-memory set of notes.
func consolidateAll(ctx context.Context, c learn.ChatClient, model learn.Model, learnt [][]learn.Candidate) (Consolidation, error) {
	notes := &memNotes{}
	cons := Consolidation{Events: map[learn.Event]int{}, DuplicatePairs: [][2]string{}}
	for _, cands := range learnt {
		changes, err := learn.Consolidate(ctx, c, model, notes, evalUser, cands)
		for _, ch := range changes {
			cons.Events[ch.Event]++
		}
		if err != nil {
			if ctx.Err() != nil {
				return cons, err
			}
			cons.Errors++
		}
	}
	cons.Kept = notes.texts()
	for _, p := range DuplicatePairs(cons.Kept) {
		cons.DuplicatePairs = append(cons.DuplicatePairs, [2]string{cons.Kept[p[0]], cons.Kept[p[1]]})
	}
	dups := map[int]bool{}
	for _, p := range DuplicatePairs(cons.Kept) {
		dups[p[1]] = true
	}
	if len(cons.Kept) > 0 {
		cons.DuplicateRate = float64(len(dups)) / float64(len(cons.Kept))
	}
	return cons, nil
}

// evalUser is the user of the throwaway notes.
const evalUser = "eval"

// memNotes is learn.Notes in memory: the notes a run consolidates into.
// Similar ranks by the matcher's score (any shared content word), where
// mneme uses its hybrid search.
type memNotes struct {
	notes []learn.Existing
	next  int
}

func (n *memNotes) Similar(_ context.Context, _, text string, limit int) ([]learn.Existing, error) {
	type scored struct {
		e learn.Existing
		s float64
	}
	var hits []scored
	for _, e := range n.notes {
		if s := Score(text, e.Text); s > 0 {
			hits = append(hits, scored{e, s})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int {
		switch {
		case a.s > b.s:
			return -1
		case a.s < b.s:
			return 1
		}
		return 0
	})
	var out []learn.Existing
	for i := 0; i < len(hits) && i < limit; i++ {
		out = append(out, hits[i].e)
	}
	return out, nil
}

func (n *memNotes) Add(_ context.Context, _ string, c learn.Candidate, _ string) (string, bool, error) {
	n.next++
	id := "n" + strconv.Itoa(n.next)
	n.notes = append(n.notes, learn.Existing{ID: id, Text: c.Text})
	return id, false, nil
}

func (n *memNotes) Update(_ context.Context, _, id, _, text string) error {
	for i := range n.notes {
		if n.notes[i].ID == id {
			n.notes[i].Text = text
			return nil
		}
	}
	return fmt.Errorf("note %s not found", id)
}

func (n *memNotes) Delete(_ context.Context, _, id, _ string) error {
	i := slices.IndexFunc(n.notes, func(e learn.Existing) bool { return e.ID == id })
	if i < 0 {
		return fmt.Errorf("note %s not found", id)
	}
	n.notes = slices.Delete(n.notes, i, i+1)
	return nil
}

func (n *memNotes) texts() []string {
	out := []string{}
	for _, e := range n.notes {
		out = append(out, e.Text)
	}
	return out
}
