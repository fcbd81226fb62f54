package memory

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

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
}

// MatchKind says which ranking found a result.
type MatchKind string

// Match kinds.
const (
	MatchVector  MatchKind = "vector"
	MatchKeyword MatchKind = "keyword"
	MatchBoth    MatchKind = "both"
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
}

// checkSearch validates a search's user and limit, defaulting the limit.
func checkSearch(userID string, limit *int) error {
	if userID == "" {
		return ErrNoUser
	}
	if *limit == 0 {
		*limit = DefaultSearchLimit
	}
	if *limit < 1 || *limit > MaxSearchLimit {
		return fmt.Errorf("search limit %d not in 1-%d: %w", *limit, MaxSearchLimit, ErrInvalid)
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
	hidden, err := ix.store.archivedConversations(ctx, q)
	if err != nil {
		return nil, err
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
		vecHits, vecErr = ix.vectorSearch(ctx, q)
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

	kwIDs := make([]string, 0, len(kwHits))
	for _, h := range kwHits {
		if !hidden[h.ConversationID] {
			kwIDs = append(kwIDs, h.ID)
		}
	}
	shown := vecHits[:0:0]
	for _, h := range vecHits {
		if !hidden[h.conversationID] {
			shown = append(shown, h)
		}
	}
	return ix.results(ctx, q.UserID, ix.fuse(kwIDs, shown, q.Limit))
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
	sort.Slice(list, func(i, j int) bool {
		if list[i].score != list[j].score {
			return list[i].score > list[j].score
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

// matchedBy says which rankings found a fused hit.
func (f *fused) matchedBy() MatchKind {
	switch {
	case f.keyword && f.vector:
		return MatchBoth
	case f.vector:
		return MatchVector
	}
	return MatchKeyword
}

// results loads what a person needs to see for each fused hit.
func (ix *Index) results(ctx context.Context, userID string, list []*fused) ([]SearchResult, error) {
	ids := make([]string, len(list))
	for i, f := range list {
		ids[i] = f.id
	}
	turns, err := ix.store.TurnsByID(ctx, userID, ids)
	if err != nil {
		return nil, err
	}
	found := make([]Turn, 0, len(turns))
	for _, id := range ids {
		if t, ok := turns[id]; ok {
			found = append(found, t)
		}
	}
	titles, err := ix.store.conversationTitles(ctx, found)
	if err != nil {
		return nil, err
	}
	out := make([]SearchResult, 0, len(list))
	for _, f := range list {
		t, ok := turns[f.id]
		if !ok {
			continue // deleted since it was indexed
		}
		r := SearchResult{
			ConversationID: t.ConversationID, Title: titles[t.ConversationID], Turn: t.Number, Snippet: t.Snippet,
			Score: ix.normalised(f.score), Time: t.Time, Refs: t.Refs, MatchedBy: f.matchedBy(),
		}
		if f.vector {
			d := f.distance
			r.Distance = &d
		}
		out = append(out, r)
	}
	return out, nil
}

type vectorHit struct {
	id, conversationID string
	similarity         float64
}

// vectorSearch ranks turns by their best chunk's cosine similarity to the
// query. Candidates come from the compact in-memory index and are rescored
// exactly from the stored float32 vectors.
func (ix *Index) vectorSearch(ctx context.Context, q SearchQuery) ([]vectorHit, error) {
	em := ix.embedding()
	if !em.enabled() {
		return nil, nil
	}
	uv, err := ix.vectorsFor(ctx, q.UserID, em.model.Name)
	if err != nil {
		return nil, err
	}
	idx := uv.index()
	if idx == nil {
		return nil, nil
	}
	qv, err := em.embedTexts(ctx, []string{cutRunes(q.Text, em.model.ContextLength*charsPerToken)})
	if err != nil {
		return nil, err
	}
	var filter func(vector.Key) bool
	if q.ConversationID != "" || !q.Since.IsZero() || !q.Until.IsZero() {
		allowed, err := ix.store.turnIDsIn(ctx, q)
		if err != nil {
			return nil, err
		}
		filter = func(k vector.Key) bool { return allowed[k.Turn] }
	}
	cands, err := idx.Search(qv[0], candidates, filter)
	if err != nil {
		return nil, err
	}
	keys := make([]VectorKey, len(cands))
	for i, c := range cands {
		keys[i] = VectorKey{OwnerID: c.Key.Turn, Chunk: c.Key.Chunk}
	}
	exact, err := ix.store.VectorsByKey(ctx, q.UserID, em.model.Name, keys)
	if err != nil {
		return nil, err
	}
	best := map[string]float64{}
	for _, c := range cands {
		sim := float64(c.Score)
		if v, ok := exact[VectorKey{OwnerID: c.Key.Turn, Chunk: c.Key.Chunk}]; ok {
			sim = float64(vector.Cosine(qv[0], v))
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

// archivedConversations returns the user's archived conversations, which
// search hides unless asked to include them.
func (s *Store) archivedConversations(ctx context.Context, q SearchQuery) (map[string]bool, error) {
	out := map[string]bool{}
	if q.IncludeArchived {
		return out, nil
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id FROM conversations WHERE user_id = ? AND archived = 1`, q.UserID)
	if err != nil {
		return nil, fmt.Errorf("archived conversations: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// turnIDsIn returns the ids of the user's turns inside q's conversation and time filters.
func (s *Store) turnIDsIn(ctx context.Context, q SearchQuery) (map[string]bool, error) {
	sqlq := `SELECT id FROM turns WHERE user_id = ?`
	args := []any{q.UserID}
	if q.ConversationID != "" {
		sqlq += ` AND conversation_id = ?`
		args = append(args, q.ConversationID)
	}
	if !q.Since.IsZero() {
		sqlq += ` AND created_at >= ?`
		args = append(args, q.Since.UnixMilli())
	}
	if !q.Until.IsZero() {
		sqlq += ` AND created_at < ?`
		args = append(args, q.Until.UnixMilli())
	}
	rows, err := s.db.QueryContext(ctx, sqlq, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := map[string]bool{}
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		out[id] = true
	}
	return out, rows.Err()
}

// conversationTitles maps the turns' conversations to their titles.
func (s *Store) conversationTitles(ctx context.Context, turns []Turn) (map[string]string, error) {
	seen := map[string]bool{}
	var ids []string
	for _, t := range turns {
		if !seen[t.ConversationID] {
			seen[t.ConversationID] = true
			ids = append(ids, t.ConversationID)
		}
	}
	out := make(map[string]string, len(ids))
	for start := 0; start < len(ids); start += maxParams {
		part := ids[start:min(start+maxParams, len(ids))]
		rows, err := s.db.QueryContext(ctx, `SELECT id, title FROM conversations WHERE id IN (`+placeholders(len(part))+`)`, toAny(part)...)
		if err != nil {
			return nil, fmt.Errorf("titles: %w", err)
		}
		for rows.Next() {
			var id, title string
			if err := rows.Scan(&id, &title); err != nil {
				rows.Close()
				return nil, err
			}
			out[id] = title
		}
		rows.Close()
	}
	return out, nil
}
