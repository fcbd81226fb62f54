package keyword

import (
	"context"
	"slices"
	"sort"

	"github.com/blevesearch/bleve/v2"
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
	var clauses []scoring
	for _, t := range sortedKeys(weights) {
		// Bleve weighs a term by its idf squared: the boost makes it the expansion weight.
		clauses = append(clauses, scoring{fieldTerm{fieldText, t}, weights[t] / (idfs[t] * idfs[t])})
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
	idfs, err = expansionIDFs(ctx, bi, rm, p.prfTerms)
	if err != nil {
		return nil, nil, err
	}
	terms := sortedKeys(idfs)
	sort.SliceStable(terms, func(i, j int) bool { return rm[terms[i]]*idfs[terms[i]] > rm[terms[j]]*idfs[terms[j]] })
	terms = terms[:min(p.prfTerms, len(terms))]
	best := rm[terms[0]] * idfs[terms[0]]
	weights = make(map[string]float64, len(terms))
	for _, t := range terms {
		weights[t] = rm[t] * idfs[t] / best * idfs[t]
	}
	return weights, idfs, nil
}

// expansionIDFs returns the idf over the whole index (dictionary look-ups;
// good enough to choose and weigh expansion terms) of the terms of rm that
// may be among the k best by rm times idf. Terms are looked up by falling
// rm, and the rest are skipped once even the largest idf there is (a term
// in no document) could not lift them to the k-th best found: the k best
// are the same as with every term looked up.
func expansionIDFs(ctx context.Context, bi bleve.Index, rm map[string]float64, k int) (map[string]float64, error) {
	byRM := sortedKeys(rm)
	sort.SliceStable(byRM, func(i, j int) bool { return rm[byRM[i]] > rm[byRM[j]] })
	out := make(map[string]float64, len(byRM))
	err := withReader(bi, func(r index.IndexReader) error {
		n, err := r.DocCount()
		if err != nil {
			return err
		}
		bound := idf(float64(n), 0)
		var best []float64 // the k best rm times idf so far, falling
		df := map[fieldTerm]float64{}
		for _, t := range byRM {
			if k > 0 && len(best) == k && rm[t]*bound < best[k-1] {
				break
			}
			ft := fieldTerm{fieldText, t}
			if err := dfAll(ctx, r, []fieldTerm{ft}, df); err != nil {
				return err
			}
			out[t] = idf(float64(n), df[ft])
			v := rm[t] * out[t]
			i := sort.Search(len(best), func(i int) bool { return best[i] < v })
			best = slices.Insert(best, i, v)[:min(len(best)+1, k)]
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
