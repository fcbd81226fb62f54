package keyword

import (
	"context"
	"sort"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// feedback is pseudo-relevance feedback: it expands the query with terms
// of the best-ranked candidates, fetches the documents that match the
// expansion, scores every candidate against it and ranks again. New
// candidates join with no query relevance of their own.
func (ix *Index) feedback(ctx context.Context, bi bleve.Index, q Query, pq parsedQuery, cs, ranked []*cand) ([]*cand, error) {
	weights, idfs, err := ix.expansion(ctx, bi, ranked, pq)
	if err != nil || len(weights) == 0 {
		return ranked, err
	}
	var clauses []query.Query
	for _, t := range sortedKeys(weights) {
		// Bleve weighs a term by its idf squared: the boost makes it the expansion weight.
		clauses = append(clauses, termQuery(fieldText, t, weights[t]/(idfs[t]*idfs[t])))
	}
	seen := make(map[string]bool, len(cs))
	for _, c := range cs {
		seen[c.ID] = true
	}
	more, err := ix.fetch(ctx, bi, clauses, q, max(ix.params.candidates/2, 1), seen) // union keeps only the unseen
	if err != nil {
		return nil, err
	}
	all := union(cs, more)
	s := bm25{k1: ix.params.k1, b: ix.params.b, avgLen: meanLen(all)}
	for _, c := range all {
		c.exp = s.score(weights, c.text)
	}
	scaleToOne(all, func(c *cand) *float64 { return &c.exp })
	return ix.contextualize(all), nil
}

// union appends to cs the candidates of more that it lacks.
func union(cs, more []*cand) []*cand {
	seen := make(map[string]bool, len(cs))
	for _, c := range cs {
		seen[c.ID] = true
	}
	out := append([]*cand(nil), cs...)
	for _, c := range more {
		if !seen[c.ID] {
			out = append(out, c)
		}
	}
	return out
}

// expansion picks feedback terms from the best-ranked candidates, a
// relevance model weighted by idf: a term's weight is the sum over the
// feedback documents of the document's score times the term's share of the
// document, times the term's idf. Query terms are left out (they are
// weighted already). Weights are scaled so the best term has its idf.
func (ix *Index) expansion(ctx context.Context, bi bleve.Index, ranked []*cand, pq parsedQuery) (weights, idfs map[string]float64, err error) {
	p := ix.params
	rm := map[string]float64{}
	for _, c := range ranked[:min(p.prfDocs, len(ranked))] {
		for _, t := range c.text {
			if pq.counts[t] == 0 {
				rm[t] += c.Score / float64(len(c.text))
			}
		}
	}
	if len(rm) == 0 {
		return nil, nil, nil
	}
	idfs, err = indexIDFs(ctx, bi, sortedKeys(rm))
	if err != nil {
		return nil, nil, err
	}
	terms := sortedKeys(rm)
	sort.SliceStable(terms, func(i, j int) bool { return rm[terms[i]]*idfs[terms[i]] > rm[terms[j]]*idfs[terms[j]] })
	terms = terms[:min(p.prfTerms, len(terms))]
	best := rm[terms[0]] * idfs[terms[0]]
	weights = make(map[string]float64, len(terms))
	for _, t := range terms {
		weights[t] = rm[t] * idfs[t] / best * idfs[t]
	}
	return weights, idfs, nil
}

// indexIDFs returns the idf of text terms over the whole index (cheap
// dictionary look-ups; good enough to choose and weigh expansion terms).
func indexIDFs(ctx context.Context, bi bleve.Index, terms []string) (map[string]float64, error) {
	out := make(map[string]float64, len(terms))
	err := withReader(bi, func(r index.IndexReader) error {
		n, err := r.DocCount()
		if err != nil {
			return err
		}
		fts := make([]fieldTerm, len(terms))
		for i, t := range terms {
			fts[i] = fieldTerm{fieldText, t}
		}
		df := map[fieldTerm]float64{}
		if err := dfAll(ctx, r, fts, df); err != nil {
			return err
		}
		for _, ft := range fts {
			out[ft.term] = idf(float64(n), df[ft])
		}
		return nil
	})
	return out, err
}

func sortedKeys(m map[string]float64) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
