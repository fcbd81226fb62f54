package index

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/keyword"
	"github.com/mneme-dev/mneme/memory/vector"
)

// Fusion weighs the rankings that reciprocal rank fusion combines.
type Fusion struct {
	K             int     // RRF constant (default 60)
	KeywordWeight float64 // default 1
	VectorWeight  float64 // default 1
}

func (f Fusion) withDefaults() Fusion {
	if f.K <= 0 {
		f.K = 60
	}
	if f.KeywordWeight <= 0 {
		f.KeywordWeight = 1
	}
	if f.VectorWeight <= 0 {
		f.VectorWeight = 1
	}
	return f
}

// Search limits.
const (
	DefaultSearchLimit = 10
	MaxSearchLimit     = 50
	// candidates is how deep each ranking is read before fusion.
	candidates = 100
)

// SearchQuery is a search over one user's past turns.
type SearchQuery struct {
	UserID          string
	Text            string
	Limit           int // 1-50, default 10
	ConversationID  string
	Since, Until    time.Time
	IncludeArchived bool
	// KeywordOnly leaves the ranking by meaning out: no query embedding,
	// which waits for Ollama (behind a chat's own answer, seconds), so a
	// panel can show the keyword hits at once.
	KeywordOnly bool
	// MinSimilarity leaves out a turn found only by meaning that is less
	// similar to the query than this (cosine, 0-1; 0: none): a vector
	// ranking orders every turn, and its tail is no match for a person
	// asking "when did we talk about …" ("???" found twenty turns). The
	// model's search_chat_history reads the whole ranking, scores shown.
	MinSimilarity float64
}

// MatchKind says which ranking found a result.
type MatchKind string

// Match kinds.
const (
	MatchVector  MatchKind = "vector"
	MatchKeyword MatchKind = "keyword"
	MatchBoth    MatchKind = "both"
	// MatchRelated: found by the keyword ranking, but through the words of
	// its best hits (feedback): it holds none of the query's own words.
	MatchRelated MatchKind = "related"
)

// SearchResult is one past turn that matches a query.
type SearchResult struct {
	ConversationID string    `json:"conversation_id"`
	Title          string    `json:"title"`
	Turn           int       `json:"turn"`
	Snippet        string    `json:"snippet"`
	Score          float64   `json:"score"`
	MatchedBy      MatchKind `json:"matched_by"`
	Time           time.Time `json:"time"`
	Refs           []string  `json:"refs"`
	// Distance is the cosine distance (1 - cosine similarity) of the
	// turn's best chunk when a vector matched; lower is more similar.
	Distance *float64 `json:"distance,omitempty"`
}

type fused struct {
	id       string
	score    float64
	keyword  bool
	vector   bool
	distance float64
	related  bool // the keyword ranking found it without the query's words
}

// checkSearch validates a search's user and limit, defaulting the limit.
func checkSearch(userID string, limit *int) error {
	if userID == "" {
		return memory.ErrNoUser
	}
	if *limit == 0 {
		*limit = DefaultSearchLimit
	}
	if *limit < 1 || *limit > MaxSearchLimit {
		return memory.Invalid("search limit %d not in 1-%d", *limit, MaxSearchLimit)
	}
	return nil
}

// Search ranks the user's past turns for q by fusing a BM25 ranking and a
// vector ranking (when an embedding model is available) with reciprocal
// rank fusion, then groups by turn.
func (ix *Index) Search(ctx context.Context, q SearchQuery) ([]SearchResult, error) {
	if err := checkSearch(q.UserID, &q.Limit); err != nil {
		return nil, err
	}
	if strings.TrimSpace(q.Text) == "" {
		return []SearchResult{}, nil
	}
	hidden := map[string]bool{}
	if !q.IncludeArchived {
		var err error
		if hidden, err = ix.store.ArchivedConversations(ctx, q.UserID); err != nil {
			return nil, err
		}
	}
	// The two rankings run side by side: a search takes as long as the
	// slower of them, not their sum.
	var (
		vecHits []vectorHit
		vecErr  error
		vecDone = make(chan struct{})
	)
	go func() {
		defer close(vecDone)
		if !q.KeywordOnly {
			vecHits, vecErr = ix.vectorSearch(ctx, q)
		}
	}()
	kwHits, err := ix.kw.Search(ctx, keyword.Query{
		UserID: q.UserID, Text: q.Text, Limit: candidates, Kinds: []keyword.Kind{keyword.KindTurn},
		ConversationID: q.ConversationID, Since: q.Since, Until: q.Until,
	})
	<-vecDone
	if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	if vecErr != nil {
		// Vector search is an extra: without it keyword search still answers.
		ix.log.Warn("vector search unavailable", "err", vecErr)
	}

	shown := vecHits[:0:0]
	for _, h := range vecHits {
		if !hidden[h.conversationID] {
			shown = append(shown, h)
		}
	}
	byMeaning := len(shown) > 0 // beside a ranking by meaning, related hits go (below)
	kwIDs := make([]string, 0, len(kwHits))
	related := map[string]bool{}
	for _, h := range kwHits {
		// Beside a ranking by meaning, the keyword ranking's related hits
		// (pseudo-relevance feedback, its own stand-in for meaning) are
		// left out: counted with the vectors they scored twice, and a turn
		// that holds the query's rare word ("zebra1x99", an error code),
		// not yet embedded or far in meaning, fell below twenty turns
		// that only resemble it.
		if !hidden[h.ConversationID] && !(h.Related && byMeaning) {
			kwIDs = append(kwIDs, h.ID)
			related[h.ID] = h.Related
		}
	}
	// Cut after the floor below, so that the ranks fused stay as they were.
	list := ix.fuse(kwIDs, shown, candidates)
	if q.MinSimilarity > 0 {
		// Found only by meaning, and not close enough: no match.
		list = slices.DeleteFunc(list, func(f *fused) bool { return !f.keyword && 1-f.distance < q.MinSimilarity })
	}
	list = list[:min(len(list), q.Limit)]
	for _, f := range list {
		f.related = related[f.id]
	}
	return ix.results(ctx, q.UserID, q.Text, list)
}

// fuse combines a keyword ranking (ids, best first) and a vector ranking
// (best first) with reciprocal rank fusion and keeps the best limit.
func (ix *Index) fuse(keywordIDs []string, vecHits []vectorHit, limit int) []*fused {
	byID := map[string]*fused{}
	add := func(id string, rank int, w float64) *fused {
		f := byID[id]
		if f == nil {
			f = &fused{id: id}
			byID[id] = f
		}
		f.score += w / float64(ix.fusion.K+rank)
		return f
	}
	for i, id := range keywordIDs {
		add(id, i+1, ix.fusion.KeywordWeight).keyword = true
	}
	for i, h := range vecHits {
		f := add(h.id, i+1, ix.fusion.VectorWeight)
		f.vector, f.distance = true, 1-h.similarity
	}
	list := make([]*fused, 0, len(byID))
	for _, f := range byID {
		list = append(list, f)
	}
	// Equal scores: found by both rankings first, then by words (the hit
	// holds a word of the query), then by id, for a stable order.
	evidence := func(f *fused) int {
		switch {
		case f.keyword && f.vector:
			return 2
		case f.keyword:
			return 1
		}
		return 0
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].score != list[j].score {
			return list[i].score > list[j].score
		}
		if ei, ej := evidence(list[i]), evidence(list[j]); ei != ej {
			return ei > ej
		}
		return list[i].id < list[j].id
	})
	if len(list) > limit {
		list = list[:limit]
	}
	return list
}

// normalised maps a fused score to 0-1: 1 means ranked first by every
// ranking in use.
func (ix *Index) normalised(score float64) float64 {
	best := ix.fusion.KeywordWeight
	if ix.EmbedModelName() != "" {
		best += ix.fusion.VectorWeight
	}
	return min(score/(best/float64(ix.fusion.K+1)), 1)
}

// fusedIDs are the ids of the fused hits, in their order.
func fusedIDs(list []*fused) []string {
	ids := make([]string, len(list))
	for i, f := range list {
		ids[i] = f.id
	}
	return ids
}

// hydrate makes a result of each fused hit from its row, in rank order.
// A hit whose row is gone (removed since it was indexed) is skipped, as is
// one that result refuses.
func hydrate[T, R any](list []*fused, rows map[string]T, result func(*fused, T) (R, bool)) []R {
	out := make([]R, 0, len(list))
	for _, f := range list {
		row, ok := rows[f.id]
		if !ok {
			continue
		}
		if r, ok := result(f, row); ok {
			out = append(out, r)
		}
	}
	return out
}

// vectorDistance is a fused hit's cosine distance to the query, nil when
// only the keyword ranking found it.
func (f *fused) vectorDistance() *float64 {
	if !f.vector {
		return nil
	}
	d := f.distance
	return &d
}

// matchedBy says which rankings found a fused hit.
func (f *fused) matchedBy() MatchKind {
	switch {
	case f.keyword && !f.related && f.vector:
		return MatchBoth
	case f.vector:
		return MatchVector // by meaning, and perhaps related by words
	case f.related:
		return MatchRelated
	}
	return MatchKeyword
}

// results loads what a person needs to see for each fused hit.
func (ix *Index) results(ctx context.Context, userID, query string, list []*fused) ([]SearchResult, error) {
	ids := fusedIDs(list)
	turns, err := ix.store.TurnsByID(ctx, userID, ids)
	if err != nil {
		return nil, err
	}
	found := make([]memory.Turn, 0, len(turns))
	for _, id := range ids {
		if t, ok := turns[id]; ok {
			found = append(found, t)
		}
	}
	titles, err := ix.store.ConversationTitles(ctx, turnConversations(found))
	if err != nil {
		return nil, err
	}
	return hydrate(list, turns, func(f *fused, t memory.Turn) (SearchResult, bool) {
		return SearchResult{
			ConversationID: t.ConversationID, Title: titles[t.ConversationID], Turn: t.Number, Snippet: ix.matchSnippet(t, query, f.keyword),
			Score: ix.normalised(f.score), Time: t.Time, Refs: t.Refs, MatchedBy: f.matchedBy(), Distance: f.vectorDistance(),
		}, true
	}), nil
}

// matchSnippet is what a result shows of its turn: the start of what the
// user said, or, for a hit the keyword ranking found, the words around the
// first word of the turn it matched: in what the user said when it is
// there, else in the answer, so that a person sees why the turn matched.
func (ix *Index) matchSnippet(t memory.Turn, query string, byWords bool) string {
	if !byWords {
		return t.Snippet
	}
	answer := strings.TrimPrefix(t.Text, t.UserText) // the answer alone, when the question leads
	for i, s := range []string{t.UserText, answer} {
		line := text.OneLine(head(s, maxSnippetScan))
		at := ix.kw.FirstMatch(line, query)
		switch {
		case at < 0:
			continue
		case i == 0 && utf8.RuneCountInString(line[:at]) < snippetLead:
			return t.Snippet // the word shows near the question's start
		}
		return snippetAt(line, at, memory.SnippetRunes)
	}
	return t.Snippet
}

// snippetLead is the most a snippet shows before the word it matched: a
// row that shows 100 runes of it (mneme search) shows the word.
const snippetLead = memory.SnippetRunes / 3

// maxSnippetScan bounds how much of a turn's text is read for the words a
// snippet shows: a pasted file of megabytes would cost a search tens of
// milliseconds a hit.
const maxSnippetScan = 256 << 10

// head is at most the first n bytes of s, cut where a character begins.
func head(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

type vectorHit struct {
	id, conversationID string
	similarity         float64
}

// vectorSearch ranks turns by their best chunk's cosine similarity to the
// query. Candidates come from the compact in-memory index and are rescored
// exactly from the stored float32 vectors.
func (ix *Index) vectorSearch(ctx context.Context, q SearchQuery) ([]vectorHit, error) {
	var filter func(vector.Key) bool
	if q.ConversationID != "" || !q.Since.IsZero() || !q.Until.IsZero() {
		allowed, err := ix.store.TurnIDsIn(ctx, memory.TurnFilter{
			UserID: q.UserID, ConversationID: q.ConversationID, Since: q.Since, Until: q.Until,
		})
		if err != nil {
			return nil, err
		}
		filter = func(k vector.Key) bool { return allowed[k.Turn] }
	}
	return ix.vectorRank(ctx, memory.OwnerTurn, q.UserID, q.Text, filter)
}

// vectorRank ranks the user's owners of kind (turns, document chunks) by
// their best chunk's similarity to text: candidates from the in-memory
// vectors (those filter keeps), rescored exactly. Without an embedding
// model or vectors it ranks nothing.
func (ix *Index) vectorRank(ctx context.Context, kind memory.OwnerKind, userID, query string, filter func(vector.Key) bool) ([]vectorHit, error) {
	em := ix.embedding()
	if !em.enabled() {
		return nil, nil
	}
	uv, err := ix.vectorsOf(ctx, kind, userID, em.model.Name)
	if err != nil {
		return nil, err
	}
	idx := uv.index()
	if idx == nil {
		return nil, nil
	}
	qv, err := ix.queryVector(ctx, em, query)
	if err != nil {
		return nil, err
	}
	cands, err := idx.Search(qv, candidates, filter)
	if err != nil {
		return nil, err
	}
	return ix.rescore(ctx, userID, em.model.Name, qv, cands)
}

// rescore scores candidates exactly from their stored float32 vectors
// (the estimate where one is missing) and keeps each owner's best chunk,
// best first.
func (ix *Index) rescore(ctx context.Context, userID, model string, qv []float32, cands []vector.Candidate) ([]vectorHit, error) {
	keys := make([]memory.VectorKey, len(cands))
	for i, c := range cands {
		keys[i] = memory.VectorKey{OwnerID: c.Key.Turn, Chunk: c.Key.Chunk}
	}
	exact, err := ix.store.VectorsByKey(ctx, userID, model, keys)
	if err != nil {
		return nil, err
	}
	best := map[string]float64{}
	for _, c := range cands {
		sim := float64(c.Score)
		if v, ok := exact[memory.VectorKey{OwnerID: c.Key.Turn, Chunk: c.Key.Chunk}]; ok {
			sim = float64(vector.Cosine(qv, v))
		}
		if cur, ok := best[c.Key.Turn]; !ok || sim > cur {
			best[c.Key.Turn] = sim
		}
	}
	hits := make([]vectorHit, 0, len(best))
	for id, sim := range best {
		conv, _, _ := strings.Cut(id, ":")
		hits = append(hits, vectorHit{id: id, conversationID: conv, similarity: sim})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].similarity != hits[j].similarity {
			return hits[i].similarity > hits[j].similarity
		}
		return hits[i].id < hits[j].id
	})
	return hits, nil
}

// The dates search can filter on: the search index holds times as
// nanoseconds since 1970 in an int64, which reach from 1677 to 2262.
var (
	firstSearchDate = time.Date(1678, 1, 1, 0, 0, 0, 0, time.UTC)
	lastSearchDate  = time.Date(2262, 1, 1, 0, 0, 0, 0, time.UTC)
)

// ParseSearchDate reads a date a search filters on (text.ParseDate, as of
// now): "" is none; one the index cannot hold is an error that says which
// dates it can.
func ParseSearchDate(s string, now time.Time) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	t, err := text.ParseDate(s, now)
	if err != nil {
		return time.Time{}, err
	}
	if t.Before(firstSearchDate) || !t.Before(lastSearchDate) {
		return time.Time{}, fmt.Errorf("%q is out of range: want a date from %s to %s", s,
			firstSearchDate.Format("2006-01-02"), lastSearchDate.AddDate(0, 0, -1).Format("2006-01-02"))
	}
	return t, nil
}
