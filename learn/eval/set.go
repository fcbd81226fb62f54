// Package eval measures memory that builds itself (package learn) on a
// small hand-written set of dialogues: extraction's precision and recall
// against the memories a person would expect, and the duplicates left
// after consolidation. It runs against whatever model it is given; the
// notes it consolidates into live in memory, never in a store.
package eval

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/mneme-dev/mneme/learn"
)

//go:embed set.json
var setJSON []byte

// Set is the evaluation set: dialogues in the order they are learnt from.
type Set struct {
	About     string     `json:"about"`
	Dialogues []Dialogue `json:"dialogues"`
}

// Dialogue is a short chat and the memories it should leave.
type Dialogue struct {
	ID       string       `json:"id"`
	Turns    []learn.Turn `json:"turns"`
	Expected []Memory     `json:"expected"`
	// Restates or Contradicts names an earlier dialogue whose memory this
	// one says again or makes untrue (for consolidation).
	Restates    string `json:"restates,omitempty"`
	Contradicts string `json:"contradicts,omitempty"`
}

// Memory is an expected memory.
type Memory struct {
	Text string     `json:"text"`
	Kind learn.Kind `json:"kind"`
}

// Builtin is the set shipped in the binary (set.json).
func Builtin() (Set, error) { return Parse(setJSON) }

// Parse reads and checks a set: ids unique, every dialogue with a turn,
// every expected memory with text and a known kind, and restates and
// contradicts naming an earlier dialogue.
func Parse(data []byte) (Set, error) {
	var s Set
	if err := json.Unmarshal(data, &s); err != nil {
		return Set{}, fmt.Errorf("evaluation set: %w", err)
	}
	seen := map[string]bool{}
	kinds := []learn.Kind{learn.KindFact, learn.KindPreference, learn.KindPlan, learn.KindPerson, learn.KindOther}
	for _, d := range s.Dialogues {
		switch {
		case d.ID == "" || seen[d.ID]:
			return Set{}, fmt.Errorf("evaluation set: dialogue id %q empty or repeated", d.ID)
		case len(d.Turns) == 0:
			return Set{}, fmt.Errorf("evaluation set: dialogue %s has no turn", d.ID)
		case d.Restates != "" && !seen[d.Restates], d.Contradicts != "" && !seen[d.Contradicts]:
			return Set{}, fmt.Errorf("evaluation set: dialogue %s refers to a dialogue that does not come before it", d.ID)
		}
		for _, m := range d.Expected {
			if m.Text == "" || !slices.Contains(kinds, m.Kind) {
				return Set{}, fmt.Errorf("evaluation set: dialogue %s: expected memory %q of kind %q", d.ID, m.Text, m.Kind)
			}
		}
		seen[d.ID] = true
	}
	return s, nil
}
