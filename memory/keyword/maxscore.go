package keyword

import (
	"context"
	"math"
	"slices"
	"sort"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// scoring is a clause of a fetch: a term in a field scored by Bleve with a boost.
type scoring struct {
	fieldTerm
	boost float64
}

// maxScore collects into top what Bleve's search of the disjunction of cl
// under q's filters would, scores bit for bit included, without scoring
// every document that holds a common word: MaxScore (Turtle and Flood,
// 1995) over Bleve's own term searchers.
//
// Bleve scores a document the sum, in the order of its disjunction
// searcher (clauses by rising document count, sort.Sort of
// searcher.OrderedSearcherList), of each matching clause's BM25 score, times
// the share of the clauses it matches; the conjunction and boolean
// searchers above add that to 0. The term searchers, their query norm,
// that order and that arithmetic are reproduced here, so a document's
// score is the one Bleve gives it.
//
// A clause adds at most its bound: the term score
// idf·tf·k1/(tf + k1·(1-b+b·len/avg)) is below idf·k1, times the clause's
// query weight. Once top holds size documents, clauses whose bounds
// together (times the best share of clauses they could match) stay below
// the worst score kept are non-essential: a document that holds only those
// cannot enter, so documents are visited in the postings of the others,
// and the non-essential clauses are looked up for a visited document only
// when its bound can still reach the worst kept. Bounds carry a margin and
// comparisons are strict, so a skipped document could not have entered,
// even on a tie broken by id.
func (ix *Index) maxScore(ctx context.Context, bi bleve.Index, cl []scoring, q Query, n uint64, top *topN) (err error) {
	adv, err := bi.Advanced()
	if err != nil {
		return err
	}
	r, err := adv.Reader()
	if err != nil {
		return err
	}
	defer func() {
		if cerr := r.Close(); err == nil {
			err = cerr
		}
	}()
	m := bi.Mapping()
	// What Bleve's SearchInContext puts in the context of its searchers.
	ctx = context.WithValue(ctx, search.GetScoringModelCallbackKey,
		search.GetScoringModelCallbackFn(func() string { return index.BM25Scoring }))
	ctx = context.WithValue(ctx, search.BM25StatsKey, firstStageStats(n))
	ms := &maxScorer{size: top.size, sctx: &search.SearchContext{
		DocumentMatchPool: search.NewDocumentMatchPool(top.size+len(cl)+8, 0),
		IndexReader:       r,
	}}
	defer ms.close()
	if err := ms.open(ctx, r, m, cl, n); err != nil {
		return err
	}
	if err := ms.filters(ctx, r, m, q); err != nil {
		return err
	}
	offer, _, err := top.handler(ms.sctx)
	if err != nil {
		return err
	}
	if err := ms.run(ctx, top, offer); err != nil {
		return err
	}
	return offer(nil)
}

// maxScorer is the state of one maxScore search.
type maxScorer struct {
	size  int
	sctx  *search.SearchContext
	terms []*termCursor // by rising bound
	total int           // clauses
	ness  int           // terms[:ness] are non-essential
	rest  float64       // sum of the non-essential bounds
	theta float64       // the worst score kept, once top is full
	full  bool
	// per clause, in Bleve's order: the score of the document visited
	scores []float64
	hit    []bool
	// the document must be in keep (when set) and not in drop (when set)
	keep, drop *cursor
}

// termCursor is a clause's term searcher at its current document.
type termCursor struct {
	cursor
	ub  float64 // bound of the clause's score
	pos int     // place in Bleve's order of the clauses
}

// cursor is a searcher at its current document (nil once exhausted).
type cursor struct {
	s     search.Searcher
	cur   *search.DocumentMatch
	ended bool
}

// at moves c to the first document at or after id and says whether it is id.
func (c *cursor) at(sctx *search.SearchContext, id index.IndexInternalID) (bool, error) {
	if c.cur != nil && c.cur.IndexInternalID.Compare(id) >= 0 {
		return c.cur.IndexInternalID.Equals(id), nil
	}
	if c.ended {
		return false, nil
	}
	if c.cur != nil {
		sctx.DocumentMatchPool.Put(c.cur)
	}
	var err error
	if c.cur, err = c.s.Advance(sctx, id); err != nil {
		return false, err
	}
	c.ended = c.cur == nil
	return !c.ended && c.cur.IndexInternalID.Equals(id), nil
}

// next moves c past its current document.
func (c *cursor) next(sctx *search.SearchContext) error {
	if c.cur != nil {
		sctx.DocumentMatchPool.Put(c.cur)
	}
	var err error
	c.cur, err = c.s.Next(sctx)
	c.ended = c.cur == nil
	return err
}

// open builds the term searchers as Bleve's disjunction does, sets their
// query norm and orders them by bound.
func (ms *maxScorer) open(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, cl []scoring, n uint64) error {
	opts := search.SearcherOptions{}
	byBleve := make(searcher.OrderedSearcherList, 0, len(cl))
	for _, c := range cl {
		s, err := termQuery(c.field, c.term, c.boost).Searcher(ctx, r, m, opts)
		if err != nil {
			return err
		}
		ms.terms = append(ms.terms, &termCursor{cursor: cursor{s: s}})
		byBleve = append(byBleve, s)
	}
	bleveOrder := slices.Clone(byBleve)
	sort.Sort(bleveOrder) // as searcher.newDisjunctionSliceSearcher does
	var sum float64
	for _, s := range bleveOrder {
		sum += s.Weight()
	}
	norm := 1.0 / math.Sqrt(sum)
	for _, s := range bleveOrder {
		s.SetQueryNorm(norm)
	}
	for i, t := range ms.terms {
		t.pos = slices.Index(bleveOrder, byBleve[i])
		idf := bleveIDF(n, float64(t.s.Count())) // as the term's scorer has it
		t.ub = cl[i].boost * idf * norm * idf * search.BM25_k1 * (1 + 1e-9)
		if err := t.next(ms.sctx); err != nil {
			return err
		}
	}
	slices.SortStableFunc(ms.terms, func(a, b *termCursor) int { return cmpFloat(a.ub, b.ub) })
	ms.total = len(cl)
	ms.scores = make([]float64, len(cl))
	ms.hit = make([]bool, len(cl))
	return nil
}

// filters opens the searchers of q's filters: the documents kept must be
// in keep and not in drop, as fetch's boolean query has them.
func (ms *maxScorer) filters(ctx context.Context, r index.IndexReader, m mapping.IndexMapping, q Query) error {
	opts := search.SearcherOptions{Score: "none"}
	user := true
	if q.alone {
		alone, err := onlyUser(r, q.UserID)
		if err != nil {
			return err
		}
		user = !alone
	}
	var err error
	if f := filterQuery(q, user); f != nil {
		ms.keep = &cursor{}
		if ms.keep.s, err = f.Searcher(ctx, r, m, opts); err != nil {
			return err
		}
	}
	if d := dropped(q); len(d) > 0 {
		ms.drop = &cursor{}
		if ms.drop.s, err = bleve.NewDisjunctionQuery(d...).Searcher(ctx, r, m, opts); err != nil {
			return err
		}
	}
	return nil
}

// run visits the documents of the essential clauses' postings, best
// first into offer.
func (ms *maxScorer) run(ctx context.Context, top *topN, offer search.DocumentMatchHandler) error {
	var id index.IndexInternalID
	for visited := 0; ; visited++ {
		if visited%1024 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		// The next document: the smallest of the essential clauses'.
		var next index.IndexInternalID
		for _, t := range ms.terms[ms.ness:] {
			if t.cur != nil && (next == nil || t.cur.IndexInternalID.Compare(next) < 0) {
				next = t.cur.IndexInternalID
			}
		}
		if next == nil {
			return nil
		}
		id = append(id[:0], next...)
		if err := ms.visit(id, top, offer); err != nil {
			return err
		}
		for _, t := range ms.terms {
			if t.cur != nil && t.cur.IndexInternalID.Equals(id) {
				if err := t.next(ms.sctx); err != nil {
					return err
				}
			}
		}
	}
}

// visit scores document id when it can enter the top and offers it.
func (ms *maxScorer) visit(id index.IndexInternalID, top *topN, offer search.DocumentMatchHandler) error {
	clear(ms.hit)
	partial, count := 0.0, 0
	for _, t := range ms.terms[ms.ness:] {
		if t.cur != nil && t.cur.IndexInternalID.Equals(id) {
			ms.scores[t.pos], ms.hit[t.pos] = t.cur.Score, true
			partial += t.cur.Score
			count++
		}
	}
	if ms.full && ms.below(partial+ms.rest, count+ms.ness) {
		return nil
	}
	if ok, err := ms.admitted(id); !ok || err != nil {
		return err
	}
	for i := ms.ness - 1; i >= 0; i-- {
		t := ms.terms[i]
		ok, err := t.at(ms.sctx, id)
		if err != nil {
			return err
		}
		if ok {
			ms.scores[t.pos], ms.hit[t.pos] = t.cur.Score, true
			partial += t.cur.Score
			count++
		}
		if ms.full && ms.below(partial+ms.bounds(i), count+i) {
			return nil
		}
	}
	// Bleve's arithmetic: the sum in its order, times the share matched.
	var sum float64
	matched := 0
	for pos, ok := range ms.hit {
		if ok {
			sum += ms.scores[pos]
			matched++
		}
	}
	d := ms.sctx.DocumentMatchPool.Get()
	d.IndexInternalID = append(d.IndexInternalID[:0], id...)
	d.Score = sum * (float64(matched) / float64(ms.total))
	if err := offer(d); err != nil {
		return err
	}
	if len(top.kept.docs) == ms.size {
		ms.full, ms.theta = true, top.kept.docs[0].Score
		ms.essential()
	}
	return nil
}

// below says whether a document whose matched clauses sum at most sum,
// matching at most count clauses, scores below the worst kept.
func (ms *maxScorer) below(sum float64, count int) bool {
	return sum*(float64(min(count, ms.total))/float64(ms.total))*(1+1e-9) < ms.theta
}

// bounds is the sum of the bounds of terms[:i].
func (ms *maxScorer) bounds(i int) float64 {
	sum := 0.0
	for _, t := range ms.terms[:i] {
		sum += t.ub
	}
	return sum
}

// essential makes non-essential the clauses of smallest bound that a
// document holding only them could not enter with.
func (ms *maxScorer) essential() {
	for ms.ness < len(ms.terms) {
		// A document holding only terms[:ness+1] matches m of them: at
		// most the m largest bounds, times m/total.
		best, sum := 0.0, 0.0
		for m, i := 1, ms.ness; i >= 0; m, i = m+1, i-1 {
			sum += ms.terms[i].ub
			best = math.Max(best, sum*float64(m)/float64(ms.total))
		}
		if best*(1+1e-9) >= ms.theta {
			return
		}
		ms.ness++
		ms.rest = ms.bounds(ms.ness)
	}
}

// admitted says whether id passes q's filters.
func (ms *maxScorer) admitted(id index.IndexInternalID) (bool, error) {
	if ms.drop != nil {
		if in, err := ms.drop.at(ms.sctx, id); in || err != nil {
			return false, err
		}
	}
	if ms.keep != nil {
		return ms.keep.at(ms.sctx, id)
	}
	return true, nil
}

func (ms *maxScorer) close() {
	for _, t := range ms.terms {
		_ = t.s.Close()
	}
	for _, c := range []*cursor{ms.keep, ms.drop} {
		if c != nil && c.s != nil {
			_ = c.s.Close()
		}
	}
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// bleveIDF is the idf of Bleve's BM25 scorer for a term in df of n documents.
func bleveIDF(n uint64, df float64) float64 {
	return math.Log(1 + (float64(n)-df+0.5)/(df+0.5))
}
