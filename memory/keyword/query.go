package keyword

import "time"

// parsedQuery is a query's analyzed terms with their counts, in first-seen order.
type parsedQuery struct {
	terms  []string
	counts map[string]float64
	answer string    // the answer type asked for, or ""
	time   timeQuery // time-words tokens of the temporal expressions the query holds
}

func (pq parsedQuery) empty() bool { return len(pq.terms) == 0 && pq.time.empty() }

// parseQuery analyzes a query like a document (question words such as
// "what", "when", "did" are stop words), detects the answer type it asks
// for and the times it names (relative ones resolved against now).
func (ix *Index) parseQuery(text string, now time.Time) parsedQuery {
	pq := parsedQuery{counts: map[string]float64{}, answer: ix.ty.queryType(text)}
	pq.time = queryTime(text, now, pq.answer == typeTime)
	for _, t := range ix.an.terms(text) {
		if pq.counts[t] == 0 {
			pq.terms = append(pq.terms, t)
		}
		pq.counts[t]++
	}
	return pq
}
