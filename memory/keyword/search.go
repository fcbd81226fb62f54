package keyword

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
)

// Query is a keyword search. UserID is required; the other filters are optional.
type Query struct {
	UserID         string
	Text           string
	Limit          int    // default 10, at most 1000
	Kinds          []Kind // any of these kinds; all kinds when empty
	ConversationID string // only this conversation when set
	Since, Until   time.Time
	// Now resolves relative times in Text ("yesterday", "last week");
	// time.Now() when zero.
	Now time.Time
	// Exact ranks on the query's own words only: no feedback expansion and
	// no context from neighbouring or sibling documents, so every hit holds
	// a word of the query (document passages).
	Exact bool
	// alone: the index held only the user's documents when its statistics
	// were read, so a search may leave the user filter out (topN checks
	// that on the search's own snapshot).
	alone bool
}

// Hit is one search result. Scores rank the hits of one query; their scale
// means nothing across queries.
type Hit struct {
	ID             string
	Kind           Kind
	ConversationID string
	Number         int
	Score          float64
	// Related: ranked for the words of the best hits (feedback), without
	// holding any of the query's own words.
	Related bool
}

const (
	defaultLimit = 10
	maxLimit     = 1000
)

// Search ranks the user's documents for q.Text, best first. A query without
// searchable words (only stop words or punctuation) finds nothing.
func (ix *Index) Search(ctx context.Context, q Query) ([]Hit, error) {
	if q.UserID == "" {
		return nil, ErrNoUser
	}
	limit := q.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	limit = min(limit, maxLimit)
	now := q.Now
	if now.IsZero() {
		now = time.Now()
	}
	pq := ix.parseQuery(q.Text, now)
	if pq.empty() {
		return nil, ix.checkOpen()
	}
	var hits []Hit
	err := ix.with(ctx, func(bi bleve.Index) error {
		var err error
		hits, err = ix.rank(ctx, bi, q, pq, limit)
		return err
	})
	return hits, err
}

// rank fetches candidates from Bleve, rescores them, adds neighbour and
// conversation context, and optionally expands the query from the best.
func (ix *Index) rank(ctx context.Context, bi bleve.Index, q Query, pq parsedQuery, limit int) ([]Hit, error) {
	cl := ix.clauses(pq)
	st, err := collectStats(ctx, bi, q.UserID, fieldTerms(cl))
	if err != nil {
		return nil, err
	}
	st.indexWide = ix.params.indexIDF
	q.alone = st.nUser == st.nAll
	cands, err := ix.fetch(ctx, bi, ix.firstStage(cl, st), q, max(ix.params.candidates, limit), nil)
	if err != nil {
		return nil, err
	}
	ix.score(cands, pq, cl, st)
	if q.Exact {
		for _, c := range cands {
			c.Score = c.base
		}
		sortCands(cands)
		return hitsOf(cands, limit, pq), nil
	}
	ranked := ix.contextualize(cands)
	if ix.params.prfDocs > 0 && len(ranked) > 0 {
		if ranked, err = ix.feedback(ctx, bi, q, pq, cands, ranked); err != nil {
			return nil, err
		}
	}
	return hitsOf(ranked, limit, pq), nil
}

// hitsOf is the best limit of ranked candidates.
func hitsOf(ranked []*cand, limit int, pq parsedQuery) []Hit {
	hits := make([]Hit, 0, min(limit, len(ranked)))
	for _, c := range ranked[:min(limit, len(ranked))] {
		h := c.Hit
		h.Related = len(pq.terms) > 0 && !c.holdsAny(pq.terms) // (a query of time words alone has no words to hold)
		hits = append(hits, h)
	}
	return hits
}

// clause is a query term in a field with its weight (count times the field's weight).
type clause struct {
	fieldTerm
	weight float64
}

// clauses lists what the query is scored on: its terms in the text and
// the title, and the time-words tokens of the temporal expressions it
// names (never its plain words: "may" or "even" is not a time).
func (ix *Index) clauses(pq parsedQuery) []clause {
	p := ix.params
	var out []clause
	add := func(field, term string, w float64) {
		if w > 0 {
			out = append(out, clause{fieldTerm{field, term}, w})
		}
	}
	for _, t := range pq.terms {
		add(fieldText, t, pq.counts[t])
		add(fieldTitle, t, pq.counts[t]*p.title)
	}
	for _, t := range pq.time.loose {
		add(fieldWhen, t, p.when)
	}
	for _, t := range pq.time.exact {
		add(fieldWhen, t, p.date)
	}
	return out
}

func fieldTerms(cl []clause) []fieldTerm {
	out := make([]fieldTerm, len(cl))
	for i, c := range cl {
		out[i] = c.fieldTerm
	}
	return out
}

// firstStage is the candidate query: a disjunction of the clauses. Bleve
// weighs a term by the square of its index-wide idf; the boost swaps that
// for the square of the user's idf. Terms the user never used are left out.
func (ix *Index) firstStage(cl []clause, st *stats) []scoring {
	var out []scoring
	for _, c := range cl {
		u := st.idf(c.fieldTerm)
		if u == 0 {
			continue
		}
		a := st.allIDF(c.fieldTerm)
		out = append(out, scoring{c.fieldTerm, c.weight * u * u / (a * a)})
	}
	return out
}

// fetch runs a disjunction of scoring clauses under the user and q's
// filters and returns the best size documents with their stored terms
// (but for those in known, returned with their id and score only). It
// takes them from maxScore when it can, from Bleve's search otherwise:
// the same documents, scored the same.
func (ix *Index) fetch(ctx context.Context, bi bleve.Index, cl []scoring, q Query, size int, known map[string]bool) ([]*cand, error) {
	if len(cl) == 0 {
		return nil, nil
	}
	n, err := bi.DocCount()
	if err != nil {
		return nil, fmt.Errorf("keyword: count: %w", err)
	}
	n = max(n, 1)
	top := &topN{size: size, known: known, req: bleve.NewSearchRequestOptions(nil, size, 0, false)}
	// Ties are broken by id (topN): Bleve's own tie order follows its
	// internal document numbers, which depend on how segments were merged.
	top.req.Fields = []string{fieldKind, fieldConv, fieldNumber, fieldText, fieldTitle, fieldWhen, fieldTypes}
	if ix.params.exhaustive || len(cl) > searcher.DisjunctionHeapTakeover {
		err = ix.search(ctx, bi, cl, q, n, top)
	} else {
		err = ix.maxScore(ctx, bi, cl, q, n, top)
	}
	if err != nil {
		return nil, fmt.Errorf("keyword: search: %w", err)
	}
	out := make([]*cand, 0, len(top.hits))
	for _, h := range top.hits {
		out = append(out, toCand(h))
	}
	return out, nil
}

// search collects into top Bleve's search of the disjunction of cl under
// q's filters.
func (ix *Index) search(ctx context.Context, bi bleve.Index, cl []scoring, q Query, n uint64, top *topN) error {
	clauses := make([]query.Query, len(cl))
	for i, c := range cl {
		clauses[i] = termQuery(c.field, c.term, c.boost)
	}
	bq := bleve.NewBooleanQuery()
	bq.AddMust(bleve.NewDisjunctionQuery(clauses...))
	bq.AddMustNot(dropped(q)...)
	if f := filterQuery(q, !q.alone); f != nil {
		bq.AddFilter(f)
	}
	req := bleve.NewSearchRequestOptions(bq, top.size, 0, false)
	req.PreSearchData = map[string]interface{}{search.BM25PreSearchDataKey: firstStageStats(n)}
	req.Fields = top.req.Fields
	top.req = req
	top.alone = "" // a retry searches with the user filter
	if q.alone {
		top.alone = q.UserID
	}
	if _, err := bi.SearchInContext(withTopN(ctx, top), req); errors.Is(err, errNotAlone) {
		q.alone = false // another user's documents came in since the statistics
		return ix.search(ctx, bi, cl, q, n, top)
	} else if err != nil {
		return err
	}
	return nil
}

// dropped are the documents a search leaves out: when turns are wanted,
// the documents of the other kinds. Every document has one valid kind:
// leaving out the few of the other kinds is cheaper than checking each of
// the many turns.
func dropped(q Query) []query.Query {
	var out []query.Query
	if slices.Contains(q.Kinds, KindTurn) {
		for _, k := range kinds {
			if !slices.Contains(q.Kinds, k) {
				out = append(out, termQuery(fieldKind, string(k), 1))
			}
		}
	}
	return out
}

// firstStageStats are the BM25 statistics of the first stage for an index
// of n documents. Left to itself, Bleve derives a field's mean length from
// the sum of each segment's distinct-term count, which changes as segments
// merge in the background: the same query on the same documents then picks
// a different set of candidates from one moment to the next. A fixed
// reference length per field (in terms) keeps the first stage a function
// of the documents alone; the rescoring normalises to the candidates' true
// mean length.
func firstStageStats(n uint64) *search.BM25Stats {
	n = max(n, 1)
	card := func(length int) int { return length * int(n) }
	return &search.BM25Stats{DocCount: float64(n), FieldCardinality: map[string]int{
		fieldText: card(40), fieldTitle: card(4), fieldWhen: card(8), fieldTypes: card(1),
		fieldKind: card(1), fieldUser: card(1), fieldConv: card(1), fieldTime: card(1),
		"*": card(1), // Bleve's merged searcher of an unscored disjunction (the date range filter)
	}}
}

func toCand(h *search.DocumentMatch) *cand {
	c := &cand{Hit: Hit{ID: h.ID}, bleve: h.Score}
	str := func(f string) string { s, _ := h.Fields[f].(string); return s }
	c.Kind = Kind(str(fieldKind))
	c.ConversationID = str(fieldConv)
	if v, ok := h.Fields[fieldNumber].(float64); ok {
		c.Number = int(v)
	}
	c.text = strings.Fields(str(fieldText))
	c.title = strings.Fields(str(fieldTitle))
	c.when = strings.Fields(str(fieldWhen))
	c.types = str(fieldTypes)
	return c
}

// filterQuery restricts a search to the user (with user) and the query's
// conversation and dates; it does not score. It is nil when there is
// nothing to restrict. (Kinds are left out by fetch.)
func filterQuery(q Query, user bool) query.Query {
	var conj []query.Query
	if user {
		conj = append(conj, termQuery(fieldUser, q.UserID, 1))
	}
	if q.ConversationID != "" {
		conj = append(conj, termQuery(fieldConv, q.ConversationID, 1))
	}
	if len(q.Kinds) > 0 && !slices.Contains(q.Kinds, KindTurn) {
		// Notes, summaries or passages, without turns: the kinds wanted
		// are the few (fetch leaves the others out when turns are wanted).
		wanted := make([]query.Query, len(q.Kinds))
		for i, k := range q.Kinds {
			wanted[i] = termQuery(fieldKind, string(k), 1)
		}
		conj = append(conj, bleve.NewDisjunctionQuery(wanted...))
	}
	if !q.Since.IsZero() || !q.Until.IsZero() {
		inclusive, exclusive := true, false
		dr := bleve.NewDateRangeInclusiveQuery(q.Since, q.Until, &inclusive, &exclusive)
		dr.SetField(fieldTime)
		conj = append(conj, dr)
	}
	switch len(conj) {
	case 0:
		return nil
	case 1:
		return conj[0]
	}
	return bleve.NewConjunctionQuery(conj...)
}

func termQuery(field, term string, boost float64) *query.TermQuery {
	tq := bleve.NewTermQuery(term)
	tq.SetField(field)
	tq.SetBoost(boost)
	return tq
}

// holdsAny reports whether the candidate's text or title holds one of
// terms (the query's, analysed as the index analyses text).
func (c *cand) holdsAny(terms []string) bool {
	for _, t := range terms {
		if slices.Contains(c.text, t) || slices.Contains(c.title, t) {
			return true
		}
	}
	return false
}
