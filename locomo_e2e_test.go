package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/locomo"
	"github.com/mneme-dev/mneme/internal/realollama"
)

// TestLoCoMoRecallEndToEnd is the retrieval yardstick (see
// ../shared/bench/README.md), run as a user would: the dev conversations are
// imported offline with `mneme import` (no Ollama, so keyword-only search),
// every question goes through `mneme search --batch`, and LoCoMo's evidence
// recall is computed from the refs of the returned turns.
//
//	MNEME_LOCOMO=1 go test -run TestLoCoMoRecallEndToEnd -v .
func TestLoCoMoRecallEndToEnd(t *testing.T) {
	if os.Getenv("MNEME_LOCOMO") == "" {
		t.Skip("set MNEME_LOCOMO=1 to run the LoCoMo retrieval evaluation")
	}
	samples, err := locomo.Load(realollama.SharedFile(t, "bench/locomo-dev.json"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	importFile := filepath.Join(dir, "locomo.jsonl")
	writeJSONLines(t, importFile, locomo.ImportLines(samples))

	qs := locomo.Questions(samples)
	type query struct {
		ID    int    `json:"id"`
		Query string `json:"query"`
		User  string `json:"user"`
		Limit int    `json:"limit"`
	}
	var queries []query
	for i, q := range qs {
		queries = append(queries, query{ID: i, Query: q.Question, User: q.Sample, Limit: 25})
	}
	batchFile := filepath.Join(dir, "questions.jsonl")
	writeJSONLines(t, batchFile, queries)

	d := newDevice(t, closedPort(t))
	d.timeout = 10 * time.Minute
	d.mustOK("", "import", "--all-users", importFile)
	out := d.mustOK("", "search", "--all-users", "--batch", batchFile).stdout

	ranked := make([][][]string, len(qs))
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 16<<20)
	answered := 0
	for sc.Scan() {
		var a struct {
			ID      int `json:"id"`
			Results []struct {
				Refs []string `json:"refs"`
			} `json:"results"`
			Error string `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil || a.Error != "" {
			t.Fatalf("answer %q: %v %s", sc.Text(), err, a.Error)
		}
		answered++
		for _, r := range a.Results {
			if len(r.Refs) == 0 {
				t.Fatalf("question %d: a result without refs", a.ID)
			}
			ranked[a.ID] = append(ranked[a.ID], r.Refs)
		}
	}
	if answered != len(qs) {
		t.Fatalf("%d answers for %d questions", answered, len(qs))
	}
	rep := locomo.Score(qs, ranked)
	t.Logf("keyword-only (no embedding model), %d questions:\n%s", len(qs), rep.Table())
	if r5, r10 := rep.Recall(0, 5), rep.Recall(0, 10); r5 < 76 || r10 < 83 {
		t.Errorf("recall R@5 %.1f, R@10 %.1f; the goal is R@5 >= 76 and R@10 >= 83", r5, r10)
	}
}

func writeJSONLines[T any](t *testing.T, path string, items []T) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	enc := json.NewEncoder(f)
	for _, it := range items {
		if err := enc.Encode(it); err != nil {
			t.Fatal(err)
		}
	}
}
