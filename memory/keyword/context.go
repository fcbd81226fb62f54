package keyword

import (
	"math"
	"sort"
)

// turnKey locates a turn in its conversation.
type turnKey struct {
	conv string
	num  int
}

// relevance is a candidate's own relevance: to the query and to the feedback terms.
func (ix *Index) relevance(c *cand) float64 { return c.base + ix.params.prfWeight*c.exp }

// contextualize sets each candidate's final score: its relevance plus a
// share of its adjacent turns' relevance (an answer often sits next to the
// turn that names the topic) plus a share of its conversation's score (a
// conversation that matches well as a whole is about the topic); and
// returns the candidates sorted best first.
func (ix *Index) contextualize(cs []*cand) []*cand {
	p := ix.params
	turns := make(map[turnKey]float64, len(cs))
	for _, c := range cs {
		if c.Kind == KindTurn || c.Kind == KindChunk {
			turns[turnKey{c.ConversationID, c.Number}] = ix.relevance(c)
		}
	}
	conv := ix.convScores(cs)
	out := make([]*cand, len(cs))
	for i, c := range cs {
		s := ix.relevance(c)
		if c.Kind == KindTurn || c.Kind == KindChunk {
			prev := turns[turnKey{c.ConversationID, c.Number - 1}]
			next := turns[turnKey{c.ConversationID, c.Number + 1}]
			s += p.neighbour * (prev + next)
		}
		if c.ConversationID != "" {
			s += p.convPrior * conv[c.ConversationID]
		}
		c.Score = s
		out[i] = c
	}
	sortCands(out)
	return out
}

// convScores sums each conversation's best convTop relevances, scaled so
// the best conversation has 1.
func (ix *Index) convScores(cs []*cand) map[string]float64 {
	per := map[string][]float64{}
	for _, c := range cs {
		if c.ConversationID != "" {
			per[c.ConversationID] = append(per[c.ConversationID], ix.relevance(c))
		}
	}
	out := make(map[string]float64, len(per))
	best := 0.0
	for conv, s := range per {
		sort.Sort(sort.Reverse(sort.Float64Slice(s)))
		sum := 0.0
		for _, v := range s[:min(ix.params.convTop, len(s))] {
			sum += v
		}
		out[conv] = sum
		best = math.Max(best, sum)
	}
	if best > 0 {
		for conv := range out {
			out[conv] /= best
		}
	}
	return out
}

// sortCands orders candidates by score, best first, ties by id.
func sortCands(cs []*cand) {
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].Score != cs[j].Score {
			return cs[i].Score > cs[j].Score
		}
		return cs[i].ID < cs[j].ID
	})
}
