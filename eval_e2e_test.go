package main

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/internal/realollama"
	"github.com/mneme-dev/mneme/learn"
	"github.com/mneme-dev/mneme/learn/eval"
)

// evalReport is the part of `eval memory --json` the tests read.
type evalReport struct {
	Model      string `json:"model"`
	Dialogues  int    `json:"dialogues"`
	Extraction struct {
		Expected, Extracted, Matched int
		Precision, Recall            float64
	} `json:"extraction"`
	ByKind  map[string]json.RawMessage `json:"by_kind"`
	Quiet   int                        `json:"quiet"`
	QuietOf int                        `json:"quiet_of"`
	Results []struct {
		ID                string
		Precision, Recall float64
	} `json:"results"`
	Consolidation struct {
		Kept           []string    `json:"kept"`
		DuplicatePairs [][2]string `json:"duplicate_pairs"`
		DuplicateRate  float64     `json:"duplicate_rate"`
	} `json:"consolidation"`
}

// TestEvalMemory: against a fake Ollama that extracts exactly the
// expected memories of most dialogues and nothing from the others, and
// adds every memory it is asked about, the report's figures are the ones
// that follow; nothing is written to the data dir.
func TestEvalMemory(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	set, err := eval.Builtin()
	if err != nil {
		t.Fatal(err)
	}
	silent := []string{"lisbon-trip", "two-kids", "pottery"} // extracted nothing
	replies := map[string]string{}
	expected, found := 0, 0
	var returned []string
	for _, d := range set.Dialogues {
		expected += len(d.Expected)
		if slices.Contains(silent, d.ID) {
			continue
		}
		var ms []learn.Candidate
		for _, m := range d.Expected {
			ms = append(ms, learn.Candidate{Text: m.Text, Confidence: 0.9, Tags: []string{}, Kind: m.Kind})
			returned = append(returned, m.Text)
		}
		found += len(ms)
		b, _ := json.Marshal(map[string]any{"memories": append([]learn.Candidate{}, ms...)})
		// Multi-turn dialogues: the memories come from the last turn.
		replies["User: "+d.Turns[len(d.Turns)-1].User+"\n"] = string(b)
	}
	srv := fakeollama.New(t)
	srv.SetDefault(func(req api.ChatRequest) fakeollama.Reply {
		switch {
		case isExtraction(req):
			for prefix, r := range replies {
				if strings.HasPrefix(req.Messages[1].Content, prefix) {
					return fakeollama.Reply{Content: []string{r}}
				}
			}
			return fakeollama.Reply{Content: []string{`{"memories":[]}`}}
		case isDecision(req):
			return fakeollama.Reply{Content: []string{`{"event":"ADD","id":0,"text":""}`}}
		}
		return fakeollama.Say("?")
	})
	d := newDevice(t, srv.Host())
	r := d.mustOK("", "eval", "memory", "--json", "--model", fakeollama.DefaultChatModel)
	var rep evalReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("eval memory --json: %v\n%s", err, r.stdout)
	}
	if rep.Model != fakeollama.DefaultChatModel || rep.Dialogues != len(set.Dialogues) || len(rep.Results) != len(set.Dialogues) {
		t.Fatalf("report %+v", rep)
	}
	x := rep.Extraction
	if x.Expected != expected || x.Extracted != found || x.Matched != found || x.Precision != 1 ||
		x.Recall != float64(found)/float64(expected) {
		t.Fatalf("extraction %+v, want %d of %d found, precision 1", x, found, expected)
	}
	for _, res := range rep.Results {
		if want := map[bool]float64{true: 0, false: 1}[slices.Contains(silent, res.ID)]; res.Recall != want || res.Precision != 1 {
			t.Errorf("dialogue %s: precision %v recall %v", res.ID, res.Precision, res.Recall)
		}
	}
	for _, k := range []string{"fact", "preference", "plan", "person"} {
		if rep.ByKind[k] == nil {
			t.Errorf("no figures for kind %s", k)
		}
	}
	if rep.Quiet != rep.QuietOf || rep.QuietOf < 5 {
		t.Errorf("quiet %d of %d", rep.Quiet, rep.QuietOf)
	}
	// Every memory was added: the restatements are left as duplicates.
	c := rep.Consolidation
	if !slices.Equal(c.Kept, returned) {
		t.Fatalf("kept %q\nwant %q", c.Kept, returned)
	}
	pairs := eval.DuplicatePairs(returned)
	if len(pairs) == 0 || len(c.DuplicatePairs) != len(pairs) || c.DuplicateRate <= 0 ||
		!slices.Contains(c.DuplicatePairs, [2]string{"Loves jazz piano, especially Bill Evans.", "Loves Bill Evans's jazz piano."}) {
		t.Fatalf("duplicates %v (rate %v), want the pairs %v", c.DuplicatePairs, c.DuplicateRate, pairs)
	}
	if !strings.Contains(r.stderr, "[1/37] dog-adopted: 1 extracted, 1 of 1 expected found") {
		t.Errorf("progress on stderr:\n%s", r.stderr)
	}
	// The table says the same.
	r = d.mustOK("", "eval", "memory", "--model", fakeollama.DefaultChatModel)
	for _, want := range []string{"EXTRACTION", "PRECISION", "RECALL", "preference", "Duplicate rate:", "Dialogues with nothing to remember left empty: 9 of 9"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the table lacks %q:\n%s", want, r.stdout)
		}
	}
	if _, err := os.Stat(d.home + "/data"); !os.IsNotExist(err) {
		t.Errorf("eval wrote to the data dir: %v", err)
	}
	if r := d.mneme("", "eval", "something"); r.code != 2 {
		t.Errorf("eval something: %+v", r)
	}
	// A model that answers nothing the schema asks: exit 1, with the first
	// reply that was dropped and why (eval writes no log to look in).
	bad := fakeollama.New(t)
	bad.SetDefault(func(api.ChatRequest) fakeollama.Reply { return fakeollama.Say("Sure! \x1b]0;t\x07Here you go") })
	r = newDevice(t, bad.Host()).mneme("", "eval", "memory", "--model", fakeollama.DefaultChatModel)
	if r.code != 1 || !strings.Contains(r.stderr, "The first: model reply is not the schema's JSON") || !strings.Contains(r.stderr, "Here you go") ||
		strings.Contains(r.stderr, "see the log") || strings.ContainsAny(r.stderr, "\x1b\x07") {
		t.Fatalf("malformed replies: %+v", r)
	}
}

// TestEvalMemoryRealOllama: the evaluation runs end to end against a real
// Ollama and a real tiny model. Its figures mean nothing; only that it
// completes with a well-formed report is checked.
func TestEvalMemoryRealOllama(t *testing.T) {
	srv := realollama.Start(t)
	srv.CreateChatModel(t, "stories", 2048)
	d := newDevice(t, srv.Host)
	d.extra = append(d.extra, "MNEME_NUM_CTX=2048")
	r := d.mustOK("", "eval", "memory", "--model", "stories", "--json")
	var rep evalReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("eval memory --json: %v\n%s", err, r.stdout)
	}
	if rep.Model != "stories" || rep.Dialogues < 30 || len(rep.Results) != rep.Dialogues ||
		rep.Extraction.Precision < 0 || rep.Extraction.Precision > 1 || rep.Extraction.Recall < 0 || rep.Extraction.Recall > 1 {
		t.Fatalf("report %+v", rep)
	}
	t.Logf("the tiny model: extraction %+v, %d notes kept, duplicate rate %.2f", rep.Extraction, len(rep.Consolidation.Kept), rep.Consolidation.DuplicateRate)
}
