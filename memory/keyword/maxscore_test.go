package keyword

import (
	"context"
	"fmt"
	"math/rand"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
)

// fetchBoth runs fetch with MaxScore and exhaustively (Bleve's own search)
// and fails unless both return the same documents in the same order with
// bit-equal scores and the same stored fields.
func fetchBoth(t *testing.T, ix *Index, cl []scoring, q Query, size int) int {
	t.Helper()
	var got [2][]*cand
	for i, exhaustive := range []bool{false, true} {
		ix.params.exhaustive = exhaustive
		must(t, ix.withIndex(func(bi bleve.Index) error {
			var err error
			got[i], err = ix.fetch(context.Background(), bi, cl, q, size, nil)
			return err
		}))
	}
	ix.params.exhaustive = false
	a, b := got[0], got[1]
	if len(a) != len(b) {
		t.Fatalf("%v %+v size %d: %d hits, exhaustive %d", cl, q, size, len(a), len(b))
	}
	for k := range a {
		if a[k].ID != b[k].ID || a[k].bleve != b[k].bleve || a[k].ConversationID != b[k].ConversationID ||
			len(a[k].text) != len(b[k].text) || a[k].Kind != b[k].Kind {
			t.Fatalf("%v %+v size %d: hit %d is %s %v, exhaustive %s %v", cl, q, size, k, a[k].ID, a[k].bleve, b[k].ID, b[k].bleve)
		}
	}
	return len(a)
}

// TestMaxScoreIsExhaustive: on the LoCoMo turns (four users in one index),
// the first stage of every question, alone and with kind, conversation and
// date filters, and random clause sets in the text, title and time fields,
// fetch returns what Bleve's exhaustive search returns; and Search ranks
// every question the same either way, scores included.
func TestMaxScoreIsExhaustive(t *testing.T) {
	ix, qs, _ := locomoSetup(t)
	ctx := context.Background()
	hits := 0
	var all []scoring // every first-stage clause seen, for random sets
	for i, lq := range qs {
		pq := ix.parseQuery(lq.Question, time.Now())
		if pq.empty() {
			continue
		}
		cl := ix.clauses(pq)
		var cs []scoring
		must(t, ix.withIndex(func(bi bleve.Index) error {
			st, err := collectStats(ctx, bi, lq.Sample, fieldTerms(cl))
			cs = ix.firstStage(cl, st)
			return err
		}))
		all = append(all, cs...)
		q := Query{UserID: lq.Sample}
		hits += fetchBoth(t, ix, cs, q, 200)
		if i%4 != 0 {
			continue
		}
		fetchBoth(t, ix, cs, Query{UserID: lq.Sample, Kinds: []Kind{KindTurn}}, 100)
		fetchBoth(t, ix, cs, Query{UserID: lq.Sample, Kinds: []Kind{KindNote}}, 10)
		if top, err := ix.Search(ctx, Query{UserID: lq.Sample, Text: lq.Question, Limit: 1}); err == nil && len(top) > 0 {
			fetchBoth(t, ix, cs, Query{UserID: lq.Sample, ConversationID: top[0].ConversationID}, 20)
		}
		since := time.Date(2023, 5, 1, 0, 0, 0, 0, time.UTC)
		fetchBoth(t, ix, cs, Query{UserID: lq.Sample, Since: since, Until: since.AddDate(0, 3, 0)}, 50)
	}
	if hits < 200*len(qs)/2 {
		t.Fatalf("%d hits for %d questions: too few to test the pruning", hits, len(qs))
	}
	rng := rand.New(rand.NewSource(1))
	for range 300 {
		cs := make([]scoring, 2+rng.Intn(9))
		for j := range cs {
			cs[j] = all[rng.Intn(len(all))]
			cs[j].boost *= 0.2 + 2*rng.Float64()
		}
		fetchBoth(t, ix, cs, Query{UserID: qs[rng.Intn(len(qs))].Sample}, 1+rng.Intn(200))
	}
	var ranked [2][][]Hit
	for i, exhaustive := range []bool{false, true} {
		ix.params.exhaustive = exhaustive
		for _, lq := range qs {
			h, err := ix.Search(ctx, Query{UserID: lq.Sample, Text: lq.Question, Limit: 100, Kinds: []Kind{KindTurn}})
			must(t, err)
			ranked[i] = append(ranked[i], h)
		}
	}
	for i := range qs {
		if fmt.Sprint(ranked[0][i]) != fmt.Sprint(ranked[1][i]) {
			t.Fatalf("%q: ranked\n%v\nexhaustive\n%v", qs[i].Question, ranked[0][i], ranked[1][i])
		}
	}
}

// TestMaxScoreIsExhaustiveZipf: the same on 8,000 synthetic turns of two
// users (words of Zipfian frequencies: long posting lists, many ties),
// with questions of 2 to 9 words.
func TestMaxScoreIsExhaustiveZipf(t *testing.T) {
	ix, _ := openTest(t)
	c := newCorpus(11, 3000)
	must(t, ix.Upsert(c.docs("u1", 7000)...))
	must(t, ix.Upsert(c.docs("u2", 1000)...))
	ctx := context.Background()
	for i := range 120 {
		text := c.sentence(2 + i%8)
		pq := ix.parseQuery(text, time.Now())
		if pq.empty() {
			continue
		}
		cl := ix.clauses(pq)
		var cs []scoring
		must(t, ix.withIndex(func(bi bleve.Index) error {
			st, err := collectStats(ctx, bi, "u1", fieldTerms(cl))
			cs = ix.firstStage(cl, st)
			return err
		}))
		fetchBoth(t, ix, cs, Query{UserID: "u1"}, 200)
		fetchBoth(t, ix, cs, Query{UserID: "u1", Kinds: []Kind{KindTurn}}, 100)
		fetchBoth(t, ix, cs, Query{UserID: "u2"}, 25)
		fetchBoth(t, ix, cs, Query{UserID: "u1", ConversationID: fmt.Sprintf("u1-c%d", i)}, 10)
		since := time.Date(2024, 1, 3, 0, 0, 0, 0, time.UTC)
		fetchBoth(t, ix, cs, Query{UserID: "u1", Since: since, Until: since.AddDate(0, 0, 10)}, 50)
	}
}
