package keyword

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
)

// fetchSorted is fetch as Bleve's collector does it, sorting every match
// by score and id: what topN must return.
func fetchSorted(t *testing.T, ix *Index, cl []scoring, q Query, size int) []Hit {
	t.Helper()
	var out []Hit
	must(t, ix.withIndex(func(bi bleve.Index) error {
		clauses := make([]query.Query, len(cl))
		for i, c := range cl {
			clauses[i] = termQuery(c.field, c.term, c.boost)
		}
		bq := bleve.NewBooleanQuery()
		bq.AddMust(bleve.NewDisjunctionQuery(clauses...))
		filter := filterQuery(q, true)
		if len(q.Kinds) > 0 { // as it was: each candidate's kind checked
			var kinds []query.Query
			for _, k := range q.Kinds {
				kinds = append(kinds, termQuery(fieldKind, string(k), 1))
			}
			filter = bleve.NewConjunctionQuery(filter, bleve.NewDisjunctionQuery(kinds...))
		}
		bq.AddFilter(filter)
		req := bleve.NewSearchRequestOptions(bq, size, 0, false)
		n, err := bi.DocCount()
		if err != nil {
			return err
		}
		req.PreSearchData = map[string]interface{}{search.BM25PreSearchDataKey: firstStageStats(n)}
		req.SortBy([]string{"-_score", "_id"})
		res, err := bi.SearchInContext(context.Background(), req)
		if err != nil {
			return err
		}
		for _, h := range res.Hits {
			out = append(out, Hit{ID: h.ID, Score: h.Score})
		}
		return nil
	}))
	return out
}

// topN returns what sorting every match by score and id returns, many ties
// at the edge of the kept set included, with the stored fields of each.
func TestTopNIsTheSortedTop(t *testing.T) {
	ix, _ := openTest(t)
	c := newCorpus(7, 60) // a small vocabulary: short documents tie often
	docs := c.docs("u1", 3000)
	for i := range 40 { // the same text under many ids: one score
		docs = append(docs, turn("u1", "u1-same", i+1, "the lighthouse keeper"))
	}
	must(t, ix.Upsert(docs...))
	compareTopN(t, ix, c, Query{UserID: "u1", alone: true}) // only u1's documents: no user filter
	must(t, ix.Upsert(c.docs("u2", 500)...))
	compareTopN(t, ix, c, Query{UserID: "u1"})
	// Statistics that saw u1 alone, a snapshot that holds u2's documents:
	// the search runs again with the user filter.
	compareTopN(t, ix, c, Query{UserID: "u1", alone: true})
	// Kinds: other kinds left out, with and without the user filter.
	notes := c.docs("u1", 300)
	for i := range notes {
		notes[i].ID, notes[i].Kind = "u1-note-"+notes[i].ID, KindNote
	}
	must(t, ix.Upsert(notes...))
	for _, kinds := range [][]Kind{{KindTurn}, {KindNote}, {KindTurn, KindNote}, {KindSummary}} {
		compareTopN(t, ix, c, Query{UserID: "u1", Kinds: kinds})
		compareTopN(t, ix, c, Query{UserID: "u1", Kinds: kinds, alone: true})
	}
}

func compareTopN(t *testing.T, ix *Index, c *corpus, q Query) {
	t.Helper()
	words := append([]string{"lighthouse", "keeper"}, c.vocab[40:60]...)
	for i, w := range words {
		clauses := []scoring{{fieldTerm{fieldText, w}, 1}}
		if i%3 == 0 && i+1 < len(words) {
			clauses = append(clauses, scoring{fieldTerm{fieldText, words[i+1]}, 0.5}, scoring{fieldTerm{fieldTitle, w}, 2})
		}
		for _, size := range []int{1, 5, 17, 100} {
			want := fetchSorted(t, ix, clauses, Query{UserID: q.UserID, Kinds: q.Kinds}, size)
			var got []*cand
			must(t, ix.withIndex(func(bi bleve.Index) error {
				var err error
				got, err = ix.fetch(context.Background(), bi, clauses, q, size, nil)
				return err
			}))
			if len(got) != len(want) {
				t.Fatalf("%q size %d: %d hits, want %d", w, size, len(got), len(want))
			}
			for k := range want {
				if got[k].ID != want[k].ID || got[k].bleve != want[k].Score {
					t.Fatalf("%q size %d: hit %d is %s %v, want %s %v", w, size, k, got[k].ID, got[k].bleve, want[k].ID, want[k].Score)
				}
				if got[k].ConversationID == "" || len(got[k].text) == 0 || !strings.HasPrefix(got[k].ID, "u1-") ||
					(len(q.Kinds) > 0 && !slices.Contains(q.Kinds, got[k].Kind)) {
					t.Fatalf("%q: hit %s without its fields: %+v", w, got[k].ID, got[k])
				}
			}
		}
	}
}
