package keyword

import (
	"math"
	"strings"
)

// cand is a candidate document with its stored terms and partial scores.
type cand struct {
	Hit
	text, title, when []string
	types             string  // answer types the text holds
	bleve             float64 // Bleve's first-stage score
	base              float64 // relevance to the query, the best candidate has 1
	exp               float64 // relevance to the feedback terms, the best candidate has 1
}

// bm25 scores a document for weighted terms with BM25's term-frequency
// saturation and length normalisation, times the share of the terms
// matched to the power coord (a soft AND: documents matching more of the
// query's terms win).
type bm25 struct {
	k1, b, avgLen float64
	coord         float64
}

func (s bm25) score(weights map[string]float64, doc []string) float64 {
	if len(weights) == 0 {
		return 0
	}
	// Terms are summed in the order they first occur in doc, not in map
	// order: float addition is not associative, and a sum whose order
	// changed from run to run would reorder near-ties.
	tf := map[string]float64{}
	var order []string
	for _, t := range doc {
		if _, ok := weights[t]; ok {
			if tf[t] == 0 {
				order = append(order, t)
			}
			tf[t]++
		}
	}
	norm := s.k1 * (1 - s.b + s.b*float64(len(doc))/s.avgLen)
	sum := 0.0
	for _, t := range order {
		f := tf[t]
		sum += weights[t] * f * (s.k1 + 1) / (f + norm)
	}
	if s.coord > 0 {
		sum *= math.Pow(float64(len(tf))/float64(len(weights)), s.coord)
	}
	return sum
}

// meanLen is the candidates' mean text length: the length BM25 normalises to.
func meanLen(cs []*cand) float64 {
	total := 0
	for _, c := range cs {
		total += len(c.text)
	}
	return math.Max(1, float64(total)/float64(max(1, len(cs))))
}

// weights gives each clause term of field its weight times its idf among
// the user's documents to the power pow; terms the user never used are left out.
func weights(cl []clause, st *stats, field string, pow float64) map[string]float64 {
	w := map[string]float64{}
	for _, c := range cl {
		if c.field != field {
			continue
		}
		if u := st.idf(c.fieldTerm); u > 0 {
			w[c.term] += c.weight * math.Pow(u, pow)
		}
	}
	return w
}

// score sets each candidate's base relevance: BM25 of its text, plus the
// weights of the query terms found in its title and of the query's time
// tokens matching the time it was written, times the
// answer-type boost; scaled so the best candidate has 1.
func (ix *Index) score(cs []*cand, pq parsedQuery, cl []clause, st *stats) {
	p := ix.params
	s := bm25{k1: p.k1, b: p.b, avgLen: meanLen(cs), coord: p.coord}
	text := weights(cl, st, fieldText, p.idfPow)
	title := weights(cl, st, fieldTitle, p.idfPow)
	when := weights(cl, st, fieldWhen, p.idfPow)
	for _, c := range cs {
		v := s.score(text, c.text) + matched(title, c.title) + matched(when, c.when)
		if p.bleveScore {
			v = c.bleve
		}
		if pq.answer != "" && strings.Contains(c.types, pq.answer) {
			v *= 1 + p.answerType
		}
		c.base = v
	}
	scaleToOne(cs, func(c *cand) *float64 { return &c.base })
}

// scaleToOne divides a score of every candidate by the largest.
func scaleToOne(cs []*cand, field func(*cand) *float64) {
	top := 0.0
	for _, c := range cs {
		top = math.Max(top, *field(c))
	}
	if top <= 0 {
		return
	}
	for _, c := range cs {
		*field(c) /= top
	}
}

// matched sums the weights of the terms found in doc.
func matched(weights map[string]float64, doc []string) float64 {
	if len(weights) == 0 {
		return 0
	}
	sum := 0.0
	seen := map[string]bool{}
	for _, t := range doc {
		if w, ok := weights[t]; ok && !seen[t] {
			seen[t] = true
			sum += w
		}
	}
	return sum
}
