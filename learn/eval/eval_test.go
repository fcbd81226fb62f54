package eval

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/learn"
)

func TestMatcherWords(t *testing.T) {
	got := Words("The user has a cat called Tom, and loves cats!")
	want := []string{"cat", "tom", "love"}
	if len(got) != len(want) {
		t.Fatalf("Words = %v, want %v", got, want)
	}
	for _, w := range want {
		if !got[w] {
			t.Fatalf("Words = %v, want %v", got, want)
		}
	}
	for _, tt := range []struct {
		a, b string
		want float64
	}{
		{"Has a cat called Tom.", "The user has a cat named Tom.", 1},
		{"Is allergic to pine nuts.", "Allergic to pine nuts", 1},
		{"Dislikes mushrooms.", "Dislikes heavy metal.", 2.0 / 5},
		{"Has a daughter called Ana.", "Lives in Leeds.", 0},
		{"", "", 0},
	} {
		if got := Score(tt.a, tt.b); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("Score(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
	if !Same("Prefers short answers.", "The user prefers short answers") || Same("Dislikes mushrooms.", "Dislikes heavy metal.") {
		t.Error("Same disagrees with Threshold")
	}
}

func TestMatchIsOneToOneBestFirst(t *testing.T) {
	expected := []string{"Has a cat called Tom.", "Has a dog called Rex.", "Lives in Leeds."}
	extracted := []string{"Owns a dog, Rex.", "Has a cat called Tom and a dog called Rex.", "Has a cat called Tom.", "Likes tea."}
	got := Match(expected, extracted)
	// Tom takes the exact sentence, Rex the dog sentence; Leeds nothing.
	if fmt.Sprint(pairsOf(got)) != "[[0 2] [1 0]]" {
		t.Fatalf("Match = %+v", got)
	}
	if len(Match(nil, extracted)) != 0 || len(Match(expected, nil)) != 0 {
		t.Fatal("matching against nothing matched")
	}
}

func pairsOf(ps []Pair) [][2]int {
	var out [][2]int
	for _, p := range ps {
		out = append(out, [2]int{p.Expected, p.Extracted})
	}
	return out
}

func TestDuplicatePairs(t *testing.T) {
	got := DuplicatePairs([]string{"Is vegetarian.", "Has a greyhound called Pepper.", "The user is vegetarian", "Has a greyhound named Pepper."})
	if fmt.Sprint(got) != "[[0 2] [1 3]]" {
		t.Fatalf("DuplicatePairs = %v", got)
	}
}

func TestBuiltinSet(t *testing.T) {
	s, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	quiet, restate, contradict := 0, 0, 0
	for _, d := range s.Dialogues {
		if len(d.Expected) == 0 {
			quiet++
		}
		if d.Restates != "" {
			restate++
		}
		if d.Contradicts != "" {
			contradict++
		}
	}
	if len(s.Dialogues) < 30 || quiet < 5 || restate < 2 || contradict < 2 {
		t.Fatalf("%d dialogues, %d with nothing to remember, %d restating, %d contradicting", len(s.Dialogues), quiet, restate, contradict)
	}
	// Within a dialogue no two expected memories are the same to the
	// matcher, or a perfect extraction could not score 1.
	for _, d := range s.Dialogues {
		var texts []string
		for _, m := range d.Expected {
			texts = append(texts, m.Text)
		}
		if p := DuplicatePairs(texts); len(p) > 0 {
			t.Errorf("dialogue %s: expected memories the matcher confuses: %v", d.ID, p)
		}
	}
	for _, bad := range []string{`{"dialogues":[{"id":"a","turns":[]}]}`, `{"dialogues":[{"id":"a","turns":[{"user":"x"}],"restates":"b"}]}`,
		`{"dialogues":[{"id":"a","turns":[{"user":"x"}],"expected":[{"text":"t","kind":"mood"}]}]}`, `{`} {
		if _, err := Parse([]byte(bad)); err == nil {
			t.Errorf("Parse(%s) accepted", bad)
		}
	}
}

// scripted is a learn.ChatClient that answers extraction by the turn in
// the user message, and every decision with decision.
type scripted struct {
	extract  map[string]string // first words of the user's turn → reply
	decision string
	calls    int
}

func (s *scripted) Chat(_ context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	s.calls++
	reply := s.decision
	if strings.Contains(req.Messages[0].Content, "durable facts about the user") {
		reply = `{"memories":[]}`
		for prefix, r := range s.extract {
			if strings.HasPrefix(req.Messages[1].Content, "User: "+prefix) {
				reply = r
			}
		}
	}
	return fn(api.ChatResponse{Message: api.Message{Role: "assistant", Content: reply}, Done: true})
}

func memories(ms ...learn.Candidate) string {
	b, _ := json.Marshal(map[string]any{"memories": ms})
	return string(b)
}

func TestRunScoresExtractionAndDuplicates(t *testing.T) {
	set, err := Parse([]byte(`{"dialogues":[
		{"id":"dog","turns":[{"user":"We adopted Pepper","assistant":"Nice"}],"expected":[{"text":"Has a greyhound called Pepper.","kind":"fact"},{"text":"Dislikes mushrooms.","kind":"preference"}]},
		{"id":"job","turns":[{"user":"I am a nurse","assistant":"Oh"}],"expected":[{"text":"Works as a nurse.","kind":"fact"}]},
		{"id":"hello","turns":[{"user":"Hello there","assistant":"Hi"}],"expected":[]},
		{"id":"broken","turns":[{"user":"Broken reply","assistant":"Hm"}],"expected":[{"text":"Plays chess.","kind":"plan"}]},
		{"id":"pepper","turns":[{"user":"Pepper again","assistant":"Aw"},{"user":"Also I cycle","assistant":"Fun"}],"expected":[{"text":"Has a greyhound called Pepper.","kind":"fact"}],"restates":"dog"}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	c := &scripted{decision: `{"event":"ADD","id":0,"text":""}`, extract: map[string]string{
		"We adopted": memories(learn.Candidate{Text: "Has a greyhound called Pepper.", Confidence: 0.9, Kind: learn.KindFact},
			learn.Candidate{Text: "Dislikes mushrooms.", Confidence: 0.9, Kind: learn.KindPreference}),
		"I am a nurse": memories(learn.Candidate{Text: "Is tired today.", Confidence: 0.5, Kind: learn.KindFact}),
		"Broken":       `{"memories": [`,
		"Pepper again": memories(learn.Candidate{Text: "Has a greyhound named Pepper.", Confidence: 0.9, Kind: learn.KindFact}),
		"Also I cycle": memories(learn.Candidate{Text: "Cycles.", Confidence: 0.9, Kind: learn.KindPreference}),
	}}
	var progress []string
	rep, err := Run(context.Background(), c, learn.Model{Name: "fake"}, set, Options{Progress: func(done, total int, r DialogueResult) {
		progress = append(progress, fmt.Sprintf("%d/%d %s %d", done, total, r.ID, r.Matched))
	}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(progress, ",") != "1/5 dog 2,2/5 job 0,3/5 hello 0,4/5 broken 0,5/5 pepper 1" {
		t.Fatalf("progress %q", progress)
	}
	r := rep.Results
	if r[0].Precision != 1 || r[0].Recall != 1 || r[1].Precision != 0 || r[1].Recall != 0 || !r[3].Failed ||
		r[2].Precision != 1 || r[2].Recall != 1 || r[4].Precision != 0.5 || r[4].Recall != 1 {
		t.Fatalf("per dialogue %+v", r)
	}
	// 5 expected, 5 extracted, 3 matched.
	want := Scores{Expected: 5, Extracted: 5, Matched: 3, MatchedExpected: 3, Precision: 0.6, Recall: 0.6}
	if rep.Extraction != want {
		t.Fatalf("extraction %+v, want %+v", rep.Extraction, want)
	}
	if f := rep.ByKind["fact"]; f.Expected != 3 || f.Extracted != 3 || f.Matched != 2 || f.Recall != 2.0/3 || f.Precision != 2.0/3 {
		t.Fatalf("facts %+v", f)
	}
	if p := rep.ByKind["plan"]; p.Expected != 1 || p.Extracted != 0 || p.Recall != 0 || p.Precision != 1 {
		t.Fatalf("plans %+v", p)
	}
	if pr := rep.ByKind["preference"]; pr.Extracted != 2 || pr.Matched != 1 || pr.Precision != 0.5 || pr.Recall != 1 {
		t.Fatalf("preferences %+v", pr)
	}
	if rep.Quiet != 1 || rep.QuietOf != 1 || rep.Failed != 1 || rep.Dialogues != 5 || rep.Matcher != MatcherName {
		t.Fatalf("report %+v", rep)
	}
	// The decision said ADD for the restated greyhound: 5 notes kept, one
	// of them a duplicate.
	cons := rep.Consolidation
	if len(cons.Kept) != 5 || len(cons.DuplicatePairs) != 1 || cons.DuplicateRate != 0.2 ||
		cons.DuplicatePairs[0] != [2]string{"Has a greyhound called Pepper.", "Has a greyhound named Pepper."} {
		t.Fatalf("consolidation %+v", cons)
	}

	// A model that merges the restatement leaves no duplicate.
	c.decision = `{"event":"NONE","id":1,"text":""}`
	rep, err = Run(context.Background(), c, learn.Model{Name: "fake"}, set, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cons := rep.Consolidation; len(cons.Kept) != 4 || cons.DuplicateRate != 0 || cons.Events[learn.EventNone] != 1 {
		t.Fatalf("consolidation with NONE %+v", cons)
	}
}

type failing struct{}

func (failing) Chat(context.Context, *api.ChatRequest, api.ChatResponseFunc) error {
	return errors.New("connection refused")
}

func TestRunStopsWhenOllamaFails(t *testing.T) {
	set, _ := Builtin()
	if _, err := Run(context.Background(), failing{}, learn.Model{Name: "m"}, set, Options{}); err == nil || !strings.Contains(err.Error(), "connection refused") {
		t.Fatalf("Run = %v", err)
	}
}
