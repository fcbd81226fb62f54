package locomo

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode"
)

const benchFile = "../../../shared/bench/locomo-dev.json"

func loadBench(t *testing.T) []Sample {
	t.Helper()
	if _, err := os.Stat(benchFile); err != nil {
		t.Skipf("LoCoMo data %s not found: %v", benchFile, err)
	}
	samples, err := Load(benchFile)
	if err != nil {
		t.Fatal(err)
	}
	return samples
}

func TestNormalizeEvidence(t *testing.T) {
	got := NormalizeEvidence([]string{"D8:6; D9:17", "D:11:26", "D30:05", "D", "D8:6", ""})
	want := []string{"D8:6", "D9:17", "D11:26", "D30:5"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestParseDateTime(t *testing.T) {
	got, err := ParseDateTime("1:56 pm on 8 May, 2023")
	if err != nil {
		t.Fatal(err)
	}
	if want := "2023-05-08T13:56:00Z"; got.Format("2006-01-02T15:04:05Z07:00") != want {
		t.Fatalf("got %v, want %s", got, want)
	}
	if _, err := ParseDateTime("yesterday"); err == nil {
		t.Fatal("expected an error")
	}
}

func testSample() Sample {
	return Sample{
		ID: "s1", SpeakerA: "Ann", SpeakerB: "Bob",
		Sessions: []Session{{
			Number: 2, DateTime: "10:37 am on 27 June, 2023",
			Messages: []Message{
				{Speaker: "Bob", DiaID: "D2:1", Text: "Hi"},
				{Speaker: "Ann", DiaID: "D2:2", Text: "Hello", BlipCaption: "a cat"},
				{Speaker: "Bob", DiaID: "D2:3", Text: "Nice cat"},
				{Speaker: "Bob", DiaID: "D2:4", Text: "Bye"},
			},
		}},
	}
}

func TestImportLines(t *testing.T) {
	recs := ImportLines([]Sample{testSample()})
	want := []Record{
		{"s1", "s1-session_2", "Session 2", "user", "Bob: Hi", "2023-06-27T10:37:00Z", "D2:1"},
		{"s1", "s1-session_2", "Session 2", "assistant", "Ann: Hello [shared a photo: a cat]", "2023-06-27T10:37:01Z", "D2:2"},
		{"s1", "s1-session_2", "Session 2", "user", "Bob: Nice cat", "2023-06-27T10:37:02Z", "D2:3"},
		{"s1", "s1-session_2", "Session 2", "user", "Bob: Bye", "2023-06-27T10:37:03Z", "D2:4"},
	}
	if !reflect.DeepEqual(recs, want) {
		t.Fatalf("got\n%#v\nwant\n%#v", recs, want)
	}
	// An undated session has no time (not year 1, which import refuses).
	undated := testSample()
	undated.Sessions[0].DateTime = "someday"
	for _, r := range ImportLines([]Sample{undated}) {
		if r.Time != "" {
			t.Fatalf("undated session record has time %q", r.Time)
		}
	}
}

func TestTurns(t *testing.T) {
	recs := []Record{
		{User: "u", Conversation: "c", Role: "assistant", Content: "welcome", Ref: "a0"},
		{User: "u", Conversation: "c", Role: "user", Content: "q1", Ref: "u1"},
		{User: "u", Conversation: "c", Role: "assistant", Content: "a1", Ref: "a1"},
		{User: "u", Conversation: "c", Role: "assistant", Content: "a1b", Ref: "a1b"},
		{User: "u", Conversation: "d", Role: "user", Content: "other", Ref: "d1"},
		{User: "u", Conversation: "c", Role: "user", Content: "q2", Ref: "u2"},
		{User: "u", Conversation: "c", Role: "user", Content: "q3", Ref: "u3"},
		{User: "u", Conversation: "c", Role: "assistant", Content: "a3", Ref: "a3"},
		{User: "u", Conversation: "c", Role: "user", Content: "q4", Ref: "u4"},
	}
	turns := Turns(recs)
	type short struct {
		conv, text, user string
		n                int
		refs             []string
	}
	var got []short
	for _, tr := range turns {
		got = append(got, short{tr.Conversation, tr.Text, tr.UserText, tr.Number, tr.Refs})
	}
	want := []short{
		{"c", "welcome\nq1\na1\na1b", "q1", 1, []string{"a0", "u1", "a1", "a1b"}},
		{"c", "q2\nq3\na3", "q2\nq3", 2, []string{"u2", "u3", "a3"}},
		{"c", "q4", "q4", 3, []string{"u4"}},
		{"d", "other", "other", 1, []string{"d1"}},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got\n%v\nwant\n%v", got, want)
	}
}

func TestScore(t *testing.T) {
	qs := []Question{
		{Category: 1, Evidence: []string{"a", "b"}},
		{Category: 2, Evidence: nil},
		{Category: 2, Evidence: []string{"z"}},
	}
	ranked := [][][]string{
		{{"x"}, {"a", "y"}, {"b"}},
		nil,
		{{"q"}},
	}
	r := Score(qs, ranked)
	checks := []struct {
		c, k int
		want float64
	}{
		{1, 1, 0}, {1, 5, 100}, {2, 1, 50}, {0, 1, 100.0 / 3}, {0, 25, 200.0 / 3},
	}
	for _, c := range checks {
		if got := r.Recall(c.c, c.k); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("Recall(%d, %d) = %v, want %v", c.c, c.k, got, c.want)
		}
	}
	if tab := r.Table(); !strings.Contains(tab, "| multi-hop | 1 | 0.0 | 100.0 | 100.0 | 100.0 |") {
		t.Errorf("table:\n%s", tab)
	}
}

func TestLoadBench(t *testing.T) {
	samples := loadBench(t)
	qs := Questions(samples)
	if len(samples) != 4 || len(qs) != 757 {
		t.Fatalf("%d samples, %d questions", len(samples), len(qs))
	}
	recs := ImportLines(samples)
	turns := Turns(recs)
	refs := map[string]bool{}
	for _, tr := range turns {
		for _, r := range tr.Refs {
			refs[tr.User+"/"+r] = true
		}
	}
	if len(refs) != len(recs) {
		t.Fatalf("%d refs in turns, %d records", len(refs), len(recs))
	}
	missing := 0
	for _, q := range qs {
		for _, e := range q.Evidence {
			if !refs[q.Sample+"/"+e] {
				missing++
			}
		}
	}
	t.Logf("%d records, %d turns, %d questions, %d evidence ids not in the data", len(recs), len(turns), len(qs), missing)
}

// TestPlainBM25Reference checks the conversion and the metric against the
// bench README's plain BM25 reference (k1=1.2, b=0.75, small stop-word list,
// no stemming): R@5 65.1, R@10 71.5.
func TestPlainBM25Reference(t *testing.T) {
	samples := loadBench(t)
	turns := Turns(ImportLines(samples))
	qs := Questions(samples)
	byUser := map[string]*bm25{}
	for _, tr := range turns {
		if byUser[tr.User] == nil {
			byUser[tr.User] = &bm25{}
		}
		byUser[tr.User].add(tr)
	}
	ranked := make([][][]string, len(qs))
	for i, q := range qs {
		ranked[i] = byUser[q.Sample].search(q.Question, 25)
	}
	r := Score(qs, ranked)
	t.Logf("plain BM25 over %s:\n%s", filepath.Base(benchFile), r.Table())
	if r5, r10 := r.Recall(0, 5), r.Recall(0, 10); math.Abs(r5-65.1) > 2 || math.Abs(r10-71.5) > 2 {
		t.Errorf("R@5 %.1f, R@10 %.1f: far from the reference 65.1 / 71.5", r5, r10)
	}
}

// smallStop is the reference's small stop-word list.
func smallStop() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("a an and are as at be but by did do does for from had has have he her his how i in is it its me my of on or our she so that the their them they this to was we were what when where which who why will with would you your") {
		m[w] = true
	}
	return m
}

// bm25 is the plain reference: lower-cased letter/digit words, small stop
// list, no stemming, k1 1.2, b 0.75.
type bm25 struct {
	stop map[string]bool
	docs []map[string]int
	lens []int
	refs [][]string
	df   map[string]int
	sum  int
}

func (b *bm25) tokens(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if !b.stop[w] {
			out = append(out, w)
		}
	}
	return out
}

func (b *bm25) add(t Turn) {
	if b.df == nil {
		b.df = map[string]int{}
		b.stop = smallStop()
	}
	tf := map[string]int{}
	toks := b.tokens(t.Text)
	for _, w := range toks {
		tf[w]++
	}
	for w := range tf {
		b.df[w]++
	}
	b.docs = append(b.docs, tf)
	b.lens = append(b.lens, len(toks))
	b.refs = append(b.refs, t.Refs)
	b.sum += len(toks)
}

func (b *bm25) search(q string, k int) [][]string {
	n := float64(len(b.docs))
	avg := float64(b.sum) / n
	scores := make([]float64, len(b.docs))
	for _, w := range b.tokens(q) {
		df := float64(b.df[w])
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for i, tf := range b.docs {
			f := float64(tf[w])
			if f > 0 {
				scores[i] += idf * f * 2.2 / (f + 1.2*(0.25+0.75*float64(b.lens[i])/avg))
			}
		}
	}
	idx := make([]int, len(scores))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, c int) bool { return scores[idx[a]] > scores[idx[c]] })
	var out [][]string
	for _, i := range idx[:min(k, len(idx))] {
		out = append(out, b.refs[i])
	}
	return out
}
