package index

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/keyword"
	"github.com/mneme-dev/mneme/memory/vector"
)

// FindQuery asks which of a user's conversations a description is about.
type FindQuery struct {
	UserID string
	Text   string
	Limit  int // 1-50, default 10
	// IncludeArchived also considers archived conversations.
	IncludeArchived bool
	// Now is the time recency is measured from (default: the store's clock).
	Now time.Time
}

// Match signals: what found a conversation.
const (
	FoundBySummary = "summary"
	FoundByTurns   = "turns"
	FoundByTitle   = "title"
)

// ConversationMatch is one conversation that matches a description.
type ConversationMatch struct {
	memory.Conversation
	// Score is the relevance (0-1), discounted a little with age. It orders
	// the matches of one query.
	Score float64 `json:"score"`
	// MatchedBy lists what found it: summary, turns, title.
	MatchedBy []string `json:"matched_by"`
	// Snippet is the best matching summary or turn text, shortened.
	Snippet string `json:"snippet"`
	// Turn is the best matching turn (0 when a summary or the title matched best).
	Turn int `json:"turn,omitempty"`
}

// Tuning of FindConversations.
const (
	// findMinSimilarity is the least cosine similarity at which a text found
	// only by meaning counts as evidence.
	findMinSimilarity = 0.5
	// keywordCeiling caps the keyword evidence so that agreeing signals
	// still add to the best keyword match.
	keywordCeiling = 0.9
	// recencyShare is how much of a score depends on recency, with a
	// half-life of recencyHalfLife.
	recencyShare    = 0.15
	recencyHalfLife = 30 * 24 * time.Hour
	// ClearWinnerRatio is how much better than the second a match must
	// score to be taken without asking.
	ClearWinnerRatio = 1.3
	// maxChoices bounds the close matches offered as a choice.
	maxChoices = 5
	// findCandidates is how deep each ranking is read.
	findCandidates = 200
)

// evidence is what one conversation collected.
type evidence struct {
	keyword, vector, title float64
	by                     map[string]bool
	snippet                string
	snippetScore           float64
	turn                   int
}

func (e *evidence) note(by string, score float64, snippet string, turn int) {
	if e.by == nil {
		e.by = map[string]bool{}
	}
	e.by[by] = true
	if snippet != "" && score > e.snippetScore {
		e.snippet, e.snippetScore, e.turn = snippet, score, turn
	}
}

// FindConversations ranks the user's conversations by how well their
// summaries, turns and titles match a description, by words (BM25) and by
// meaning (when an embedding model is available), with a mild preference
// for recent ones. Use Decide on the result to tell a clear winner from
// several close ones.
func (ix *Index) FindConversations(ctx context.Context, q FindQuery) ([]ConversationMatch, error) {
	if q.UserID == "" {
		return nil, memory.ErrNoUser
	}
	if q.Limit == 0 {
		q.Limit = DefaultSearchLimit
	}
	if q.Limit < 1 || q.Limit > MaxSearchLimit {
		return nil, memory.Invalid("find limit %d not in 1-%d", q.Limit, MaxSearchLimit)
	}
	if strings.TrimSpace(q.Text) == "" {
		return []ConversationMatch{}, nil
	}
	if q.Now.IsZero() {
		q.Now = ix.store.Now()
	}
	convs, err := ix.store.ListConversations(ctx, q.UserID, memory.ListOptions{IncludeArchived: q.IncludeArchived})
	if err != nil {
		return nil, err
	}
	known := make(map[string]memory.Conversation, len(convs))
	for _, c := range convs {
		known[c.ID] = c
	}
	ev := map[string]*evidence{}
	get := func(conv string) *evidence {
		e := ev[conv]
		if e == nil {
			e = &evidence{}
			ev[conv] = e
		}
		return e
	}

	if err := ix.findByKeywords(ctx, q, known, get); err != nil {
		return nil, err
	}
	if err := ix.findByMeaning(ctx, q, known, get); err != nil {
		// Meaning is an extra: words still answer.
		ix.log.Warn("find by meaning unavailable", "err", err)
	}
	words := descriptionWords(q.Text)
	for id, c := range known {
		if share := titleShare(words, c.Title); share > 0 {
			e := get(id)
			e.title = share
			e.note(FoundByTitle, 0, "", 0)
		}
	}

	out := make([]ConversationMatch, 0, len(ev))
	for id, e := range ev {
		c, ok := known[id]
		if !ok {
			continue
		}
		rel := 1 - (1-e.keyword)*(1-e.vector)*(1-e.title)
		if rel <= 0 {
			continue
		}
		age := max(q.Now.Sub(c.Updated), 0)
		recency := math.Exp2(-float64(age) / float64(recencyHalfLife))
		m := ConversationMatch{
			Conversation: c, Score: rel * (1 - recencyShare + recencyShare*recency),
			Snippet: text.Prefix(strings.Join(strings.Fields(e.snippet), " "), memory.SnippetRunes), Turn: e.turn,
			MatchedBy: []string{},
		}
		for _, by := range []string{FoundBySummary, FoundByTurns, FoundByTitle} {
			if e.by[by] {
				m.MatchedBy = append(m.MatchedBy, by)
			}
		}
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		if !out[i].Updated.Equal(out[j].Updated) {
			return out[i].Updated.After(out[j].Updated)
		}
		return out[i].ID < out[j].ID
	})
	if len(out) > q.Limit {
		out = out[:q.Limit]
	}
	return out, nil
}

// findByKeywords collects BM25 evidence from turns and summaries: each
// conversation's best hit, relative to the best hit of the query.
func (ix *Index) findByKeywords(ctx context.Context, q FindQuery, known map[string]memory.Conversation, get func(string) *evidence) error {
	hits, err := ix.kw.Search(ctx, keyword.Query{
		UserID: q.UserID, Text: q.Text, Limit: findCandidates, Kinds: []keyword.Kind{keyword.KindTurn, keyword.KindSummary},
	})
	if err != nil {
		return fmt.Errorf("find: %w", err)
	}
	top := 0.0
	for _, h := range hits {
		if _, ok := known[h.ConversationID]; ok {
			top = max(top, h.Score)
		}
	}
	if top <= 0 {
		return nil
	}
	var turnIDs, summaryIDs []string
	for _, h := range hits {
		if _, ok := known[h.ConversationID]; !ok {
			continue
		}
		if h.Kind == keyword.KindSummary {
			summaryIDs = append(summaryIDs, h.ID)
		} else {
			turnIDs = append(turnIDs, h.ID)
		}
	}
	turns, err := ix.store.TurnsByID(ctx, q.UserID, turnIDs)
	if err != nil {
		return err
	}
	sums, err := ix.store.SummariesByID(ctx, q.UserID, summaryIDs)
	if err != nil {
		return err
	}
	for _, h := range hits {
		if _, ok := known[h.ConversationID]; !ok {
			continue
		}
		e := get(h.ConversationID)
		score := keywordCeiling * h.Score / top
		e.keyword = max(e.keyword, score)
		if h.Kind == keyword.KindSummary {
			if sum, ok := sums[h.ID]; ok {
				e.note(FoundBySummary, score, sum.Text, 0)
			}
		} else if t, ok := turns[h.ID]; ok {
			e.note(FoundByTurns, score, t.Snippet, t.Number)
		}
	}
	return nil
}

// findByMeaning collects vector evidence: each conversation's most similar
// turn or summary chunk, when similar enough to count.
func (ix *Index) findByMeaning(ctx context.Context, q FindQuery, known map[string]memory.Conversation, get func(string) *evidence) error {
	em := ix.embedding()
	if !em.enabled() {
		return nil
	}
	strength := func(sim float64) float64 {
		return (sim - findMinSimilarity) / (1 - findMinSimilarity)
	}
	turnHits, err := ix.vectorSearch(ctx, SearchQuery{UserID: q.UserID, Text: q.Text})
	if err != nil {
		return err
	}
	var turnIDs []string
	for _, h := range turnHits {
		if _, ok := known[h.conversationID]; ok && h.similarity >= findMinSimilarity {
			turnIDs = append(turnIDs, h.id)
		}
	}
	turns, err := ix.store.TurnsByID(ctx, q.UserID, turnIDs)
	if err != nil {
		return err
	}
	for _, h := range turnHits {
		if _, ok := known[h.conversationID]; !ok || h.similarity < findMinSimilarity {
			continue
		}
		e := get(h.conversationID)
		s := strength(h.similarity)
		e.vector = max(e.vector, s)
		if t, ok := turns[h.id]; ok {
			e.note(FoundByTurns, s, t.Snippet, t.Number)
		}
	}

	type best struct {
		conv string
		sim  float64
	}
	bySummary := map[string]best{}
	var qv []float32
	err = ix.store.SummaryVectors(ctx, q.UserID, em.model.Name, func(conv string, sv memory.StoredVector) error {
		if _, ok := known[conv]; !ok {
			return nil
		}
		if qv == nil {
			var err error
			if qv, err = ix.queryVector(ctx, em, q.Text); err != nil {
				return err
			}
		}
		if len(sv.Vector) != len(qv) {
			return nil
		}
		sim := float64(vector.Cosine(qv, sv.Vector))
		if b, ok := bySummary[sv.OwnerID]; !ok || sim > b.sim {
			bySummary[sv.OwnerID] = best{conv: conv, sim: sim}
		}
		return nil
	})
	if err != nil {
		return err
	}
	var ids []string
	for id, b := range bySummary {
		if b.sim >= findMinSimilarity {
			ids = append(ids, id)
		}
	}
	sums, err := ix.store.SummariesByID(ctx, q.UserID, ids)
	if err != nil {
		return err
	}
	for _, id := range ids {
		b := bySummary[id]
		e := get(b.conv)
		s := strength(b.sim)
		e.vector = max(e.vector, s)
		e.note(FoundBySummary, s, sums[id].Text, 0)
	}
	return nil
}

// descriptionWords are the words of a description that can match a
// title: lowercased, three letters or more.
func descriptionWords(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}) {
		if len([]rune(w)) >= 3 && !seen[w] && !findStopWords[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// findStopWords are words of a description that say nothing about a
// conversation ("the chat where we ...").
var findStopWords = map[string]bool{
	"the": true, "and": true, "where": true, "when": true, "what": true, "that": true, "this": true,
	"with": true, "about": true, "chat": true, "conversation": true, "talked": true, "discussed": true,
	"let": true, "lets": true, "back": true, "for": true, "our": true, "was": true, "were": true,
	"you": true, "from": true, "one": true, "which": true, "had": true, "have": true, "did": true,
}

// titleShare is the share of the description's words found in title.
func titleShare(words []string, title string) float64 {
	if len(words) == 0 || title == "" {
		return 0
	}
	have := map[string]bool{}
	for _, w := range descriptionWords(title) {
		have[w] = true
	}
	n := 0
	for _, w := range words {
		if have[w] {
			n++
		}
	}
	return float64(n) / float64(len(words))
}

// Decide tells a clear winner among ranked matches from several close ones:
// it returns the winner (nil when there is none or the choice is not
// clear) and the matches worth offering as a choice (at most five, best
// first). A match is a clear winner when it is the only one, or scores at
// least ClearWinnerRatio times the second.
func Decide(matches []ConversationMatch) (winner *ConversationMatch, choices []ConversationMatch) {
	switch {
	case len(matches) == 0:
		return nil, nil
	case len(matches) == 1 || matches[0].Score >= ClearWinnerRatio*matches[1].Score:
		return &matches[0], matches[:1]
	}
	for _, m := range matches {
		if len(choices) == maxChoices || m.Score*ClearWinnerRatio < matches[0].Score {
			break
		}
		choices = append(choices, m)
	}
	return nil, choices
}
