package keyword

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
)

// searchAll runs every query for user and returns the full hit lists.
func searchAll(t *testing.T, ix *Index, user string, queries []string, limit int) [][]Hit {
	t.Helper()
	out := make([][]Hit, len(queries))
	for i, q := range queries {
		hits, err := ix.Search(context.Background(), Query{UserID: user, Text: q, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		out[i] = hits
	}
	return out
}

// buildAndSearch indexes docs in batches of batch documents (many small
// segments, merged in the background as Bleve sees fit; or, with merge,
// merged into one segment at once), searches, closes the index, opens it
// again and searches again.
func buildAndSearch(t *testing.T, dir string, docs []Doc, batch int, merge bool, user string, queries []string, limit int) (fresh, reopened [][]Hit) {
	t.Helper()
	ix, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	for start := 0; start < len(docs); start += batch {
		if err := ix.Upsert(docs[start:min(start+batch, len(docs))]...); err != nil {
			t.Fatal(err)
		}
	}
	if merge {
		forceMerge(t, ix)
	}
	fresh = searchAll(t, ix, user, queries, limit)
	must(t, ix.Close())
	if ix, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	return fresh, searchAll(t, ix, user, queries, limit)
}

// forceMerge merges the index's segments into one.
func forceMerge(t *testing.T, ix *Index) {
	t.Helper()
	must(t, ix.withIndex(func(bi bleve.Index) error {
		adv, err := bi.Advanced()
		if err != nil {
			return err
		}
		s, ok := adv.(*scorch.Scorch)
		if !ok {
			return fmt.Errorf("index is a %T, not scorch", adv)
		}
		return s.ForceMerge(context.Background(), nil)
	}))
}

// sameHits fails the test at the first query whose hit lists differ in
// ids or order, or in scores by more than scoreNoise. Bleve's scores
// carry float noise of about 1e-5 that depends on how an index is split
// into segments (one force-merged, one built in batches and still
// merging in the background), so two indexes of the same documents agree
// on the ranking, not on every bit of a score.
func sameHits(t *testing.T, what string, queries []string, a, b [][]Hit) {
	t.Helper()
	for i := range queries {
		if len(a[i]) != len(b[i]) {
			t.Fatalf("%s: query %q: %d hits vs %d", what, queries[i], len(a[i]), len(b[i]))
		}
		for j := range a[i] {
			x, y := a[i][j], b[i][j]
			if x.ID != y.ID || x.Kind != y.Kind || x.ConversationID != y.ConversationID || x.Number != y.Number ||
				math.Abs(x.Score-y.Score) > scoreNoise*math.Max(1, math.Abs(x.Score)) {
				t.Fatalf("%s: query %q differs at rank %d: %+v vs %+v", what, queries[i], j+1, x, y)
			}
		}
	}
}

// scoreNoise is the relative difference in score two indexes of the same
// documents may show (see sameHits).
const scoreNoise = 1e-4

// TestRankingIsDeterministic: the same documents and queries give the same
// ranked lists, scores included, in two separately built indexes (built
// in different batch sizes, one merged into a single segment, so their
// segments differ) and after reopening.
// Many near-identical documents make ties and near-ties common, so an
// order that depended on map iteration or on Bleve's internal document
// numbers would show.
func TestRankingIsDeterministic(t *testing.T) {
	c := newCorpus(7, 400)
	docs := c.docs("u", 1500)
	// Duplicated texts under other ids: exact score ties that only an id
	// tie-break can order.
	for i := 0; i < 300; i += 3 {
		d := docs[i]
		d.ID, d.ConversationID, d.Number = fmt.Sprintf("dup-%d:1", i), fmt.Sprintf("dup-%d", i), 1
		docs = append(docs, d)
	}
	queries := make([]string, 60)
	for i := range queries {
		queries[i] = c.sentence(2 + i%5)
	}
	root := t.TempDir()
	a, a2 := buildAndSearch(t, filepath.Join(root, "a"), docs, 1000, true, "u", queries, 100)
	b, b2 := buildAndSearch(t, filepath.Join(root, "b"), docs, 37, false, "u", queries, 100)
	hits := 0
	for _, h := range a {
		hits += len(h)
	}
	if hits < len(queries)*50 {
		t.Fatalf("only %d hits for %d queries: the test would not exercise ranking", hits, len(queries))
	}
	sameHits(t, "two indexes", queries, a, b)
	sameHits(t, "reopened", queries, a, a2)
	sameHits(t, "reopened, other batches", queries, a, b2)
}
