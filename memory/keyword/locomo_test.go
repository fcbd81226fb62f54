package keyword

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/locomo"
)

var locomoFlag = flag.Bool("locomo", false, "run the slow LoCoMo ablation (or set MNEME_LOCOMO=1)")

// locomoSetup builds an index of the LoCoMo turns, one user per sample.
func locomoSetup(t *testing.T) (*Index, []locomo.Question, map[string][]string) {
	t.Helper()
	return locomoIndex(t, nil)
}

// locomoIndex is locomoSetup with a changed analyzer (nil: unchanged).
func locomoIndex(t *testing.T, change func(*analyzer)) (*Index, []locomo.Question, map[string][]string) {
	t.Helper()
	samples, err := locomo.Load(locomo.DevFile(t))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	if change != nil {
		change(ix.an)
	}
	refs := map[string][]string{}
	var docs []Doc
	for _, tr := range locomo.Turns(locomo.ImportLines(samples)) {
		id := fmt.Sprintf("%s:%d", tr.Conversation, tr.Number)
		refs[id] = tr.Refs
		docs = append(docs, Doc{
			ID: id, Kind: KindTurn, UserID: tr.User, ConversationID: tr.Conversation,
			Title: tr.Title, Number: tr.Number, Text: tr.Text, UserText: tr.UserText, Time: tr.Time,
		})
	}
	start := time.Now()
	if err := ix.Upsert(docs...); err != nil {
		t.Fatal(err)
	}
	t.Logf("indexed %d turns in %v", len(docs), time.Since(start))
	return ix, locomo.Questions(samples), refs
}

// evaluate runs every question (Limit 25) and scores the ranked turns.
func evaluate(t *testing.T, ix *Index, qs []locomo.Question, refs map[string][]string) (locomo.Report, time.Duration) {
	t.Helper()
	ranked := make([][][]string, len(qs))
	start := time.Now()
	for i, q := range qs {
		hits, err := ix.Search(context.Background(), Query{UserID: q.Sample, Text: q.Question, Limit: 25})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			ranked[i] = append(ranked[i], refs[h.ID])
		}
	}
	return locomo.Score(qs, ranked), time.Since(start) / time.Duration(max(1, len(qs)))
}

// TestLoCoMoRecall is a CI check (it runs by default, in seconds): the
// keyword ranking must keep the dev set's evidence recall at R@5 >= 76 and
// R@10 >= 83. Without the data it is skipped, or fails when CI=true.
func TestLoCoMoRecall(t *testing.T) {
	ix, qs, refs := locomoSetup(t)
	r, per := evaluate(t, ix, qs, refs)
	t.Logf("keyword-only LoCoMo evidence recall (%d questions, %v/query):\n%s", len(qs), per, r.Table())
	if r5, r10 := r.Recall(0, 5), r.Recall(0, 10); r5 < 76 || r10 < 83 {
		t.Errorf("R@5 %.1f (want >= 76), R@10 %.1f (want >= 83)", r5, r10)
	}
}

// TestLoCoMoDeterministic: on real conversations, two indexes of the same
// turns (one merged into a single segment, the other built in small
// batches and reopened before searching) give every
// question the same ranked turns with the same scores.
func TestLoCoMoDeterministic(t *testing.T) {
	ix, qs, _ := locomoSetup(t)
	forceMerge(t, ix)
	var docs []Doc
	samples, err := locomo.Load(locomo.DevFile(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, tr := range locomo.Turns(locomo.ImportLines(samples)) {
		docs = append(docs, Doc{
			ID: fmt.Sprintf("%s:%d", tr.Conversation, tr.Number), Kind: KindTurn, UserID: tr.User, ConversationID: tr.Conversation,
			Title: tr.Title, Number: tr.Number, Text: tr.Text, UserText: tr.UserText, Time: tr.Time,
		})
	}
	texts := make([]string, len(qs))
	for i, q := range qs {
		texts[i] = q.Question
	}
	search := func(ix *Index) [][]Hit {
		out := make([][]Hit, len(qs))
		for i, q := range qs {
			hits, err := ix.Search(context.Background(), Query{UserID: q.Sample, Text: q.Question, Limit: 25})
			if err != nil {
				t.Fatal(err)
			}
			out[i] = hits
		}
		return out
	}
	dir := t.TempDir()
	b, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for start := 0; start < len(docs); start += 100 {
		must(t, b.Upsert(docs[start:min(start+100, len(docs))]...))
	}
	must(t, b.Close())
	if b, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	sameHits(t, "LoCoMo, two indexes", texts, search(ix), search(b))
}

// TestLoCoMoAblation prints overall recall with each technique switched
// off in turn: the table in README.md. It takes minutes: run with
// MNEME_LOCOMO=1 or -locomo.
func TestLoCoMoAblation(t *testing.T) {
	if !*locomoFlag && os.Getenv("MNEME_LOCOMO") != "1" {
		t.Skip("LoCoMo ablation (slow): run with MNEME_LOCOMO=1 or -locomo")
	}
	ix, qs, refs := locomoSetup(t)
	var b strings.Builder
	b.WriteString("| variant | R@1 | R@5 | R@10 | R@25 |\n|---|---:|---:|---:|---:|\n")
	row := func(name string, r locomo.Report) {
		fmt.Fprintf(&b, "| %s | %.1f | %.1f | %.1f | %.1f |\n", name, r.Recall(0, 1), r.Recall(0, 5), r.Recall(0, 10), r.Recall(0, 25))
	}
	for _, v := range ablations() {
		ix.params = v.p
		r, _ := evaluate(t, ix, qs, refs)
		row(v.name, r)
	}
	for _, v := range analyzerAblations() {
		aix, aqs, arefs := locomoIndex(t, v.change)
		r, _ := evaluate(t, aix, aqs, arefs)
		row(v.name, r)
	}
	t.Logf("ablation:\n%s", b.String())
}

type variant struct {
	name string
	p    params
}

func ablations() []variant {
	d := defaultParams()
	with := func(name string, f func(*params)) variant {
		p := d
		f(&p)
		return variant{name, p}
	}
	return []variant{
		{"all techniques", d},
		with("no pseudo-relevance feedback", func(p *params) { p.prfDocs = 0 }),
		with("no neighbouring turns", func(p *params) { p.neighbour = 0 }),
		with("no conversation prior", func(p *params) { p.convPrior = 0 }),
		with("no time matching (any time token)", func(p *params) { p.when, p.date = 0, 0 }),
		with("no day / month-of-year tokens", func(p *params) { p.date = 0 }),
		with("no answer type", func(p *params) { p.answerType = 0 }),
		with("no title", func(p *params) { p.title = 0 }),
		with("idf^1 instead of idf^2", func(p *params) { p.idfPow = 1 }),
		with("no coordination", func(p *params) { p.coord = 0 }),
		with("index-wide idf", func(p *params) { p.indexIDF = true }),
		with("Bleve's score, no rescoring", func(p *params) { p.bleveScore = true }),
		with("BM25 only (no context, time, type, feedback)", func(p *params) {
			p.prfDocs, p.neighbour, p.convPrior, p.when, p.date, p.answerType, p.title = 0, 0, 0, 0, 0, 0, 0
		}),
	}
}

type analyzerVariant struct {
	name   string
	change func(*analyzer)
}

func analyzerAblations() []analyzerVariant {
	return []analyzerVariant{
		{"no stemming", func(a *analyzer) { a.stemmer = func(s string) string { return s } }},
		{"no irregular forms", func(a *analyzer) { a.irregular = map[string]string{} }},
	}
}
