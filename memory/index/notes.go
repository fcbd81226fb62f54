package index

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/keyword"
	"github.com/mneme-dev/mneme/memory/vector"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// noteEmbedBudget bounds how long saving a note waits for its embedding;
// after it the background work embeds the note. It is well under the
// memory tools' timeout.
const noteEmbedBudget = 3 * time.Second

// SaveNote stores a note and indexes it at once: keyword search finds it
// when SaveNote returns, vector search too if the embedding model answered
// within a short budget (otherwise the background work embeds it). An
// indexing failure is logged, not returned: the note is stored and the
// background work retries.
func (ix *Index) SaveNote(ctx context.Context, userID, content string, src memory.NoteSource) (memory.Note, error) {
	n, err := ix.store.SaveNote(ctx, userID, content, src)
	if err != nil {
		return memory.Note{}, err
	}
	ix.indexNote(ctx, n)
	return n, nil
}

// UpdateNote replaces a note's text (id or unique prefix of the user's
// note), keeps its id and re-indexes it like SaveNote. The text of
// another active note, or of one waiting for review, is refused
// (ErrSameText): the edit would make a copy that takes recall's few slots
// with the same words.
func (ix *Index) UpdateNote(ctx context.Context, userID, id, content string) (memory.Note, error) {
	// A pending note's text is refused too: approved, it would be a copy.
	other, ok, err := ix.noteWithText(ctx, userID, content, func(n memory.Note) bool {
		return (n.Status == memory.NoteActive || n.Status == memory.NotePending) && !strings.HasPrefix(n.ID, id)
	})
	switch {
	case err != nil:
		return memory.Note{}, err
	case ok && other.Status == memory.NotePending:
		return memory.Note{}, fmt.Errorf("note %s, waiting for your review, %w", short(other.ID), ErrSameText)
	case ok:
		return memory.Note{}, fmt.Errorf("note %s %w", short(other.ID), ErrSameText)
	}
	return ix.updateNote(ctx, userID, id, content)
}

// updateNote is UpdateNote whatever the other notes say: undo puts back
// the text a note had.
func (ix *Index) updateNote(ctx context.Context, userID, id, content string) (memory.Note, error) {
	n, err := ix.store.UpdateNote(ctx, userID, id, content)
	if err != nil {
		return memory.Note{}, err
	}
	ix.indexNote(ctx, n)
	return n, nil
}

// UpdateNoteFrom is UpdateNote of a note whose text is still before: a
// change decided on an older text (learning asks a model for seconds)
// does not overwrite an edit made meanwhile (ErrNoteChanged).
func (ix *Index) UpdateNoteFrom(ctx context.Context, userID, id, before, content string) (memory.Note, error) {
	id, err := ix.stillReads(ctx, userID, id, before)
	if err != nil {
		return memory.Note{}, err
	}
	return ix.UpdateNote(ctx, userID, id, content)
}

// DeleteNoteFrom is DeleteNote of a note whose text is still before (as
// UpdateNoteFrom): a note edited while learning decided it was no longer
// true stays (ErrNoteChanged).
func (ix *Index) DeleteNoteFrom(ctx context.Context, userID, id, before string) (memory.Note, error) {
	id, err := ix.stillReads(ctx, userID, id, before)
	if err != nil {
		return memory.Note{}, err
	}
	return ix.DeleteNote(ctx, userID, id)
}

// stillReads returns the full id of the user's note id when its text is
// still before, else ErrNoteChanged.
func (ix *Index) stillReads(ctx context.Context, userID, id, before string) (string, error) {
	cur, err := ix.store.Note(ctx, userID, id)
	if err == nil && cur.Content != before {
		err = fmt.Errorf("note %s: %w", cur.ID, ErrNoteChanged)
	}
	return cur.ID, err
}

// DeleteNote deletes the user's note with its vectors and keyword entry,
// and returns it as it was.
func (ix *Index) DeleteNote(ctx context.Context, userID, id string) (memory.Note, error) {
	n, err := ix.store.DeleteNote(ctx, userID, id)
	if err != nil {
		return memory.Note{}, err
	}
	ix.forgetNoteKeywords(ctx, n.ID)
	return n, nil
}

// forgetNoteKeywords takes a deleted note out of the keyword index; when
// that fails, the maintenance loop takes it out later.
func (ix *Index) forgetNoteKeywords(ctx context.Context, id string) {
	if err := ix.removeNoteKeywords(ctx, []string{id}); err != nil {
		ix.log.Warn("note left in the keyword index for now", "note", id, "err", err)
		ix.Notify()
	}
}

// RestoreNote undoes DeleteNote like Store.RestoreNote and indexes the
// note again at once, like SaveNote.
func (ix *Index) RestoreNote(ctx context.Context, userID string, n memory.Note) (memory.Note, error) {
	restored, err := ix.store.RestoreNote(ctx, userID, n)
	if err != nil {
		return memory.Note{}, err
	}
	ix.indexNote(ctx, restored)
	return restored, nil
}

// ListNotes lists the user's notes like Store.ListNotes, so that the Index
// alone serves a note browser: list, search, update, delete and restore.
func (ix *Index) ListNotes(ctx context.Context, userID string) ([]memory.Note, error) {
	return ix.store.ListNotes(ctx, userID)
}

// KeptNote is the user's active note whose text is content, white space
// aside: saving it again would make a copy that takes recall's few slots
// with the same words (`memory add`, the model's memory_save).
func (ix *Index) KeptNote(ctx context.Context, userID, content string) (memory.Note, bool, error) {
	return ix.noteWithText(ctx, userID, content, func(n memory.Note) bool { return n.Status == memory.NoteActive })
}

// ApprovePending approves the user's note waiting for review whose text
// is content, if there is one: the user saying it is the review (approved
// later, it would have been a second copy). The model's memory_save does
// not: its changes wait for the user.
func (ix *Index) ApprovePending(ctx context.Context, userID, content string) (memory.Note, bool, error) {
	n, ok, err := ix.noteWithText(ctx, userID, content, func(n memory.Note) bool { return n.Status == memory.NotePending })
	if err != nil || !ok {
		return n, false, err
	}
	n, err = ix.SetNoteStatus(ctx, userID, n.ID, memory.NoteActive)
	return n, err == nil, err
}

// noteWithText is the user's note, of those match takes, whose text is
// content, case, white space and the punctuation around words aside ("Has
// a cat called Tom." is "has a CAT called tom!!"; "Uses C#" is not "Uses
// C"); it reads the notes once.
func (ix *Index) noteWithText(ctx context.Context, userID, content string, match func(memory.Note) bool) (memory.Note, bool, error) {
	notes, err := ix.store.ListNotes(ctx, userID)
	if err != nil {
		return memory.Note{}, false, err
	}
	want := sameWords(content)
	for _, n := range notes {
		if match(n) && slices.Equal(sameWords(n.Content), want) {
			return n, true, nil
		}
	}
	return memory.Note{}, false, nil
}

// sameWords are the words of s as noteWithText compares them: composed
// alike (NFC: macOS writes "é" as two code points), case folded ("STRASSE"
// is "straße"), without the invisible format characters (a zero-width
// space, a bidi control) that made two notes that read the same differ.
func sameWords(s string) []string {
	s = strings.Map(func(r rune) rune {
		if unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, norm.NFC.String(s))
	words := strings.Fields(cases.Fold().String(s))
	for i, w := range words {
		words[i] = strings.Trim(w, `.,;:!?"'()[]`)
	}
	return slices.DeleteFunc(words, func(w string) bool { return w == "" })
}

// EmbedNote embeds note n now, when the index has an embedding model (in
// at most noteEmbedBudget); else, or when Ollama fails, the next run with
// the model embeds it.
func (ix *Index) EmbedNote(ctx context.Context, n memory.Note) {
	em := ix.embedding()
	if !em.enabled() || ix.queriesOnly {
		return
	}
	ectx, cancel := context.WithTimeout(ctx, noteEmbedBudget)
	defer cancel()
	if err := ix.embedNotes(ectx, em, []memory.Note{n}); err != nil {
		ix.log.Info("note not embedded yet", "note", n.ID, "err", err)
		ix.Notify()
	}
}

// indexNote writes one note to the keyword index and embeds it.
func (ix *Index) indexNote(ctx context.Context, n memory.Note) {
	if err := ix.upsertNoteKeywords(ctx, []memory.Note{n}); err != nil {
		ix.log.Warn("note not in the keyword index yet", "note", n.ID, "err", err)
		ix.Notify()
	}
	ix.EmbedNote(ctx, n)
}

// NoteQuery is a search over one user's notes.
type NoteQuery struct {
	UserID string
	Text   string
	Limit  int // 1-50, default 10
	// Touch counts the notes returned as used (the memory_search tool):
	// their access count rises and their last access is now.
	Touch bool
	// Statuses keeps only notes of these statuses (nil: every live note):
	// the model's search reads the notes in use, learning those in use or
	// waiting for review.
	Statuses []string
	// MinSimilarity leaves out a note found only by meaning that is less
	// similar than this (cosine, 0-1): notes are few, and every one of
	// them is some distance from any query.
	MinSimilarity float64
}

// Which notes a search reads (NoteQuery.Statuses).
var (
	InUse    = []string{memory.NoteActive}
	NotAside = []string{memory.NoteActive, memory.NotePending}
)

// NoteResult is one note that matches a query.
type NoteResult struct {
	memory.Note
	// Score is the fused rank score normalised to 0-1, as in SearchResult:
	// 1 means ranked first by every ranking in use. It orders results of
	// one query and means nothing across queries.
	Score     float64   `json:"score"`
	MatchedBy MatchKind `json:"matched_by"`
	// Distance is the cosine distance (1 - cosine similarity) of the note's
	// best chunk when a vector matched; lower is more similar.
	Distance *float64 `json:"distance,omitempty"`
}

// SearchNotes ranks the user's notes for q like Search ranks turns: a BM25
// ranking and (with an embedding model) a vector ranking, fused with
// reciprocal rank fusion.
func (ix *Index) SearchNotes(ctx context.Context, q NoteQuery) ([]NoteResult, error) {
	if err := checkSearch(q.UserID, &q.Limit); err != nil {
		return nil, err
	}
	if strings.TrimSpace(q.Text) == "" {
		return []NoteResult{}, nil
	}
	kwHits, err := ix.kw.Search(ctx, keyword.Query{UserID: q.UserID, Text: q.Text, Limit: candidates, Kinds: []keyword.Kind{keyword.KindNote}})
	if err != nil {
		return nil, fmt.Errorf("search notes: %w", err)
	}
	vecHits, err := ix.noteVectorSearch(ctx, q.UserID, q.Text)
	if err != nil {
		ix.log.Warn("vector search of notes unavailable", "err", err)
	}
	kwIDs := make([]string, 0, len(kwHits))
	related := map[string]bool{}
	for _, h := range kwHits {
		if !(h.Related && len(vecHits) > 0) { // as in Search: feedback is no second ranking by meaning
			kwIDs = append(kwIDs, h.ID)
			related[h.ID] = h.Related
		}
	}
	list := ix.fuse(kwIDs, vecHits, candidates) // cut after the filters below
	for _, f := range list {
		f.related = related[f.id]
	}
	notes, err := ix.store.NotesByID(ctx, q.UserID, fusedIDs(list))
	if err != nil {
		return nil, err
	}
	out := hydrate(list, notes, func(f *fused, n memory.Note) (NoteResult, bool) {
		r := NoteResult{Note: n, Score: ix.normalised(f.score), MatchedBy: f.matchedBy(), Distance: f.vectorDistance()}
		weak := r.MatchedBy == MatchVector && 1-f.distance < q.MinSimilarity
		return r, !weak && (q.Statuses == nil || slices.Contains(q.Statuses, n.Status))
	})
	out = out[:min(len(out), q.Limit)]
	if q.Touch {
		ix.touch(ctx, out)
	}
	return out, nil
}

// touch records the notes as used; a failure is logged, never returned.
func (ix *Index) touch(ctx context.Context, notes []NoteResult) {
	ids := make([]string, len(notes))
	for i, n := range notes {
		ids[i] = n.ID
	}
	if err := ix.store.TouchNotes(ctx, ids); err != nil {
		ix.log.Warn("note use not recorded", "err", err)
	}
}

// noteVectorSearch ranks the user's notes by their best chunk's cosine
// similarity to query. Notes are few, so every stored note vector is scored
// exactly; nothing is kept in memory, and a note changed by another
// process is seen at once.
func (ix *Index) noteVectorSearch(ctx context.Context, userID, query string) ([]vectorHit, error) {
	em := ix.embedding()
	if !em.enabled() {
		return nil, nil
	}
	var stored []memory.StoredVector
	err := ix.store.NoteVectors(ctx, userID, em.model.Name, func(sv memory.StoredVector) error {
		stored = append(stored, sv)
		return nil
	})
	if err != nil || len(stored) == 0 {
		return nil, err
	}
	qv, err := ix.queryVector(ctx, em, query)
	if err != nil {
		return nil, err
	}
	best := map[string]float64{}
	for _, sv := range stored {
		if len(sv.Vector) != len(qv) {
			continue // from a model of the same name but another size
		}
		sim := float64(vector.Cosine(qv, sv.Vector))
		if cur, ok := best[sv.OwnerID]; !ok || sim > cur {
			best[sv.OwnerID] = sim
		}
	}
	hits := make([]vectorHit, 0, len(best))
	for id, sim := range best {
		hits = append(hits, vectorHit{id: id, similarity: sim})
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].similarity != hits[j].similarity {
			return hits[i].similarity > hits[j].similarity
		}
		return hits[i].id < hits[j].id
	})
	return hits, nil
}

// Recall defaults.
const (
	DefaultRecallLimit      = 5
	DefaultRecallSimilarity = 0.5
	// DefaultRecallHalfLife is how long a note goes unused before its
	// freshness in recall is halved.
	DefaultRecallHalfLife = 90 * 24 * time.Hour
)

// RecallQuery asks which notes are worth reminding the model of before it
// answers Text.
type RecallQuery struct {
	UserID string
	Text   string
	Limit  int // at most this many notes (default 5)
	// MinSimilarity is the least cosine similarity (0-1) at which a note
	// found only by meaning is recalled. A note that shares a telling word
	// with Text (keyword.Index.Telling) is recalled whatever its similarity.
	MinSimilarity float64
	// HalfLife is the freshness half-life of RecallScore (default
	// DefaultRecallHalfLife).
	HalfLife time.Duration
}

// Recall returns the notes worth reminding the model of before it answers
// q.Text, best first by RecallScore: notes that share a telling word with
// it, and notes whose meaning is at least MinSimilarity close (with no
// embedding model only the first kind exist). The notes returned count as used.
func (ix *Index) Recall(ctx context.Context, q RecallQuery) ([]NoteResult, error) {
	if q.Limit <= 0 {
		q.Limit = DefaultRecallLimit
	}
	if q.HalfLife <= 0 {
		q.HalfLife = DefaultRecallHalfLife
	}
	res, err := ix.SearchNotes(ctx, NoteQuery{UserID: q.UserID, Text: q.Text, Limit: MaxSearchLimit,
		Statuses: InUse, MinSimilarity: q.MinSimilarity}) // pending review, or archived: never recalled
	if err != nil {
		return nil, err
	}
	now := ix.store.Now()
	type ranked struct {
		NoteResult
		score float64
	}
	var eligible []ranked
	telling := map[string]bool{} // the message's telling terms
	for _, t := range ix.kw.Terms(q.Text) {
		if ix.kw.Telling(t) {
			telling[t] = true
		}
	}
	for _, r := range res {
		// Its meaning is close, or it shares a telling word with the text:
		// one word of everyday chat ("called", "number", "7") is no reason
		// to put a note before the model.
		if r.MatchedBy == MatchVector || r.MatchedBy == MatchBoth || r.MatchedBy == MatchKeyword && ix.sharesTelling(telling, r.Content) {
			eligible = append(eligible, ranked{r, RecallScore(r.Score, r.Note, now, q.HalfLife)})
		}
	}
	// Stable: equal scores keep the search's order, which is deterministic.
	sort.SliceStable(eligible, func(i, j int) bool { return eligible[i].score > eligible[j].score })
	// A text saved twice (two scripts, an add repeated) is recalled once:
	// the copies took the model's few slots with the same words.
	out := make([]NoteResult, 0, min(len(eligible), q.Limit))
	seen := map[string]bool{}
	for _, r := range eligible {
		if len(out) == q.Limit {
			break
		}
		if !seen[r.Note.Hash] {
			seen[r.Note.Hash] = true
			out = append(out, r.NoteResult)
		}
	}
	ix.touch(ctx, out)
	return out, nil
}

// sharesTelling reports whether text holds one of the terms telling.
func (ix *Index) sharesTelling(telling map[string]bool, text string) bool {
	for _, t := range ix.kw.Terms(text) {
		if telling[t] {
			return true
		}
	}
	return false
}

// RecallScore ranks a note for recall: its relevance to the prompt (the
// fused search score, 0-1) weighed by how sure the note is, how fresh it
// is and how often it was used:
//
//	relevance × (0.6 + 0.4·confidence) × (0.5 + 0.5·2^(−age/halfLife)) × (1 + 0.1·ln(1 + uses))
//
// where age runs from the note's last change or last use, whichever is
// later. Only notes that match the prompt are ranked at all; relevance is a
// fused rank score, in which close matches differ little, so among them
// the surer, fresher and more used note comes first. A note unused for
// many half-lives keeps half its freshness: it fades, it is not forgotten.
func RecallScore(relevance float64, n memory.Note, now time.Time, halfLife time.Duration) float64 {
	last := n.Updated
	if n.LastAccessed != nil && n.LastAccessed.After(last) {
		last = *n.LastAccessed
	}
	age := max(now.Sub(last), 0)
	fresh := 0.5 + 0.5*math.Exp2(-float64(age)/float64(halfLife))
	sure := 0.6 + 0.4*min(max(n.Confidence, 0), 1)
	used := 1 + 0.1*math.Log1p(float64(max(n.AccessCount, 0)))
	return relevance * sure * fresh * used
}

// ApplyRetention applies r to the user's memory (memory.Store.ApplyRetention)
// and deletes the archived notes it says are due, with their vectors and
// keyword entries.
func (ix *Index) ApplyRetention(ctx context.Context, userID string, r memory.Retention) (memory.RetentionResult, error) {
	ctx = memory.ChangedBy(ctx, memory.ByRetention)
	res, err := ix.store.ApplyRetention(ctx, userID, r)
	if err != nil {
		return res, err
	}
	for _, id := range res.NotesToDelete {
		if _, err := ix.DeleteNote(ctx, userID, id); err != nil {
			return res, fmt.Errorf("delete archived note: %w", err)
		}
	}
	return res, nil
}
