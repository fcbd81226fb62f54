package keyword

import (
	"context"
	"fmt"
	"math"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// fieldTerm names a term in a field.
type fieldTerm struct{ field, term string }

// stats holds document counts for a query: over the whole index (All) and
// over the searching user's documents (User), so that idf can be computed
// per user: other users' documents neither skew nor leak into a ranking.
type stats struct {
	nAll, nUser   float64
	dfAll, dfUser map[fieldTerm]float64
	indexWide     bool // idf returns allIDF (ablation)
}

// idf is the idf ranking uses: the user's, 0 when the user has no document with the term.
func (st *stats) idf(ft fieldTerm) float64 {
	if st.indexWide {
		if st.dfUser[ft] == 0 {
			return 0
		}
		return st.allIDF(ft)
	}
	return st.userIDF(ft)
}

// idf is BM25's inverse document frequency.
func idf(n, df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }

// userIDF is the idf of ft among the user's documents (0 when the user has none with it).
func (st *stats) userIDF(ft fieldTerm) float64 {
	df := st.dfUser[ft]
	if df == 0 {
		return 0
	}
	return idf(st.nUser, df)
}

// allIDF is the idf of ft over the whole index.
func (st *stats) allIDF(ft fieldTerm) float64 { return idf(st.nAll, st.dfAll[ft]) }

// collectStats counts the index's documents, the user's, and for each
// field term how many of each contain it. Index-wide counts come from the
// term dictionary; the user's from non-scoring conjunctions, which Bleve
// answers by intersecting posting bitmaps (skipped when the index holds
// only this user's documents).
func collectStats(ctx context.Context, bi bleve.Index, user string, fts []fieldTerm) (*stats, error) {
	st := &stats{dfAll: map[fieldTerm]float64{}, dfUser: map[fieldTerm]float64{}}
	if err := st.countAll(ctx, bi, user, fts); err != nil {
		return nil, err
	}
	userQ := termQuery(fieldUser, user, 1)
	for _, ft := range fts {
		if _, done := st.dfUser[ft]; done {
			continue
		}
		all := st.dfAll[ft]
		switch {
		case st.nUser == st.nAll || all == 0:
			st.dfUser[ft] = all
		case all > exactDFLimit:
			// A common term: its idf is low and barely changes, so estimate
			// rather than count thousands of postings.
			st.dfUser[ft] = math.Max(1, math.Round(all*st.nUser/st.nAll))
		default:
			n, err := count(ctx, bi, bleve.NewConjunctionQuery(userQ, termQuery(ft.field, ft.term, 1)))
			if err != nil {
				return nil, err
			}
			st.dfUser[ft] = float64(n)
		}
	}
	return st, nil
}

// exactDFLimit: terms in more documents than this get an estimated per-user count.
const exactDFLimit = 2000

// countAll fills nAll, nUser and dfAll from the index reader's dictionaries.
func (st *stats) countAll(ctx context.Context, bi bleve.Index, user string, fts []fieldTerm) error {
	return withReader(bi, func(r index.IndexReader) error {
		n, err := r.DocCount()
		if err != nil {
			return err
		}
		st.nAll = float64(n)
		users := map[fieldTerm]float64{}
		if err := dfAll(ctx, r, []fieldTerm{{fieldUser, user}}, users); err != nil {
			return err
		}
		st.nUser = users[fieldTerm{fieldUser, user}]
		return dfAll(ctx, r, fts, st.dfAll)
	})
}

func dfAll(ctx context.Context, r index.IndexReader, fts []fieldTerm, into map[fieldTerm]float64) error {
	for _, ft := range fts {
		if _, done := into[ft]; done {
			continue
		}
		tfr, err := r.TermFieldReader(ctx, []byte(ft.term), ft.field, false, false, false)
		if err != nil {
			return err
		}
		into[ft] = float64(tfr.Count())
		if err := tfr.Close(); err != nil {
			return err
		}
	}
	return nil
}

// withReader runs fn with a point-in-time reader of the index.
func withReader(bi bleve.Index, fn func(index.IndexReader) error) error {
	adv, err := bi.Advanced()
	if err != nil {
		return fmt.Errorf("keyword: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return fmt.Errorf("keyword: reader: %w", err)
	}
	err = fn(r)
	if cerr := r.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("keyword: stats: %w", err)
	}
	return nil
}

func count(ctx context.Context, bi bleve.Index, q query.Query) (uint64, error) {
	req := bleve.NewSearchRequestOptions(q, 0, 0, false)
	req.Score = "none"
	res, err := bi.SearchInContext(ctx, req)
	if err != nil {
		return 0, fmt.Errorf("keyword: count: %w", err)
	}
	return res.Total, nil
}
