package keyword

// parsedQuery is a query's analyzed terms with their counts, in first-seen order.
type parsedQuery struct {
	terms  []string
	counts map[string]float64
	answer string   // the answer type asked for, or ""
	dates  []string // date tokens of the dates the query names (see dateTokens)
}

func (pq parsedQuery) empty() bool { return len(pq.terms) == 0 && len(pq.dates) == 0 }

// parseQuery analyzes a query like a document (question words such as
// "what", "when", "did" are stop words) and detects the answer type it asks for.
func (ix *Index) parseQuery(text string) parsedQuery {
	pq := parsedQuery{counts: map[string]float64{}, answer: ix.ty.queryType(text), dates: queryDates(text)}
	for _, t := range ix.an.terms(text) {
		if pq.counts[t] == 0 {
			pq.terms = append(pq.terms, t)
		}
		pq.counts[t]++
	}
	return pq
}
