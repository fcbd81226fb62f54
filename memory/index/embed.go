package index

import (
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/flock"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/vector"
)

// embedBatch is how many turns are embedded per request.
const embedBatch = 16

// firstEmbedBatch is the size of a backlog's first batch (embedBacklog).
const firstEmbedBatch = 2

// embedSlice is how long a background embedding round runs before it lets
// Run follow writes again (Run comes back for the rest at once): a backlog
// of thousands of turns (an import stopped before embedding, a new
// embedding model) took minutes, during which the chat saw no write of
// another process, nor search its own last turns.
const embedSlice = 2 * time.Second

type sliceKey struct{}

// withSlice bounds the embedding done with ctx to about d (between batches).
func withSlice(ctx context.Context, d time.Duration) context.Context {
	return context.WithValue(ctx, sliceKey{}, time.Now().Add(d))
}

// sliceOver reports whether the slice of ctx, if it has one, is over:
// its time is up, or this process asked for its own writes to be indexed
// (Notify: the chat's new turn is searched for at once).
func (ix *Index) sliceOver(ctx context.Context) bool {
	end, ok := ctx.Value(sliceKey{}).(time.Time)
	return ok && (!time.Now().Before(end) || len(ix.wake) > 0)
}

// embedPending embeds turns that have no vectors under the current model
// for their current text, newest first, paging by id so that the table is
// walked once.
func (ix *Index) embedPending(ctx context.Context) error {
	before := ""
	return ix.embedBacklog(ctx, func(model string, limit int) ([]owned, error) {
		turns, err := ix.store.TurnsNeedingEmbedding(ctx, model, before, limit)
		if err != nil || len(turns) == 0 {
			return nil, err
		}
		before = turns[len(turns)-1].ID
		items := make([]owned, len(turns))
		for i, t := range turns {
			items[i] = owned{id: t.ID, userID: t.UserID, hash: t.Hash, text: t.Text, kind: memory.OwnerTurn}
		}
		return items, nil
	})
}

// embedBacklog embeds, batch by batch, what next returns (at most limit
// items) under the current model, until it returns nothing or the model
// changes. Batches start small and double up to embedBatch, so that a
// drain within a short budget (a search's, an ask's: 3 s) saves some
// vectors even with a slow model, instead of losing one large request at
// every run. Turns' and chunks' vectors join the loaded ones; notes and
// summaries are searched exactly from the database.
func (ix *Index) embedBacklog(ctx context.Context, next func(model string, limit int) ([]owned, error)) error {
	em := ix.embedding()
	if !em.enabled() || ix.queriesOnly { // QueriesOnly: the vectors kept are another model's
		return nil
	}
	for size := firstEmbedBatch; ix.embedding().model == em.model; size = min(2*size, embedBatch) {
		items, err := next(em.model.Name, size)
		if err != nil || len(items) == 0 {
			return err
		}
		sets, err := em.embedOwners(ctx, items)
		if err != nil {
			return err
		}
		if err := ix.store.SaveEmbeddings(ctx, sets...); err != nil {
			return err
		}
		if ix.embedding().model != em.model {
			return nil // switched meanwhile: the loaded vectors are the new model's
		}
		for _, set := range sets {
			ix.addVectors(set) // in memory for turns and document chunks
		}
		if ix.sliceOver(ctx) {
			return errSliceOver
		}
	}
	return nil
}

// owned is a text to embed and what it belongs to.
type owned struct {
	id, userID, hash, text string
	kind                   memory.OwnerKind
}

// embedOwners embeds each owner's text, chunked to the model's context, in
// one request, and returns the sets to store.
func (em embedder) embedOwners(ctx context.Context, items []owned) ([]memory.EmbeddingSet, error) {
	sets := make([]memory.EmbeddingSet, len(items))
	var inputs []string
	for i, it := range items {
		chunks := Chunks(it.text, em.model.ContextLength)
		sets[i] = memory.EmbeddingSet{OwnerID: it.id, Kind: it.kind, UserID: it.userID, Model: em.model.Name, Hash: it.hash, Chunks: chunks}
		inputs = append(inputs, chunks...)
	}
	vecs, err := em.embedTexts(ctx, inputs)
	if err != nil {
		return nil, err
	}
	for i := range sets {
		n := len(sets[i].Chunks)
		sets[i].Vectors, vecs = vecs[:n], vecs[n:]
	}
	return sets, nil
}

// queryVector embeds a query, once per text and model in a row: one
// prompt's recall of notes and of document passages (and a search of
// notes, turns and passages for the same words) asks Ollama once.
func (ix *Index) queryVector(ctx context.Context, em embedder, query string) ([]float32, error) {
	query = text.Prefix(query, em.model.ContextLength*charsPerToken)
	ix.mu.Lock()
	last := ix.lastQuery
	ix.mu.Unlock()
	if last.model == em.model.Name && last.text == query && last.vec != nil {
		return last.vec, nil
	}
	vs, err := em.embedTexts(ctx, []string{query})
	if err != nil {
		return nil, err
	}
	ix.mu.Lock()
	ix.lastQuery = embeddedQuery{model: em.model.Name, text: query, vec: vs[0]}
	ix.mu.Unlock()
	return vs[0], nil
}

// embeddedQuery is the last query queryVector embedded.
type embeddedQuery struct {
	model, text string
	vec         []float32
}

func (em embedder) embedTexts(ctx context.Context, texts []string) ([][]float32, error) {
	resp, err := em.client.Embed(ctx, &api.EmbedRequest{Model: em.model.Name, Input: texts})
	if err != nil {
		return nil, fmt.Errorf("embed with %s: %w", em.model.Name, err)
	}
	if len(resp.Embeddings) != len(texts) {
		return nil, fmt.Errorf("embed with %s: %d vectors for %d texts: %w", em.model.Name, len(resp.Embeddings), len(texts), errNoEmbeddings)
	}
	for _, v := range resp.Embeddings {
		if !usableDim(len(v)) {
			return nil, fmt.Errorf("embed with %s: %d-dimensional vectors: %w", em.model.Name, len(v), errEmbedDim)
		}
	}
	return resp.Embeddings, nil
}

// userVectors is one user's vectors under the current model, in memory.
type userVectors struct {
	load   *vecLoad      // shared by the user's kinds (loadVectors)
	idx    *vector.Index // nil until the first vector is known
	mu     sync.Mutex
	last   int64 // the store's mark of the newest vector read (VectorsSince)
	loaded bool  // the first load is done: later ones read from last on
}

// vecKey names one in-memory vector index: a user's turns or document chunks.
type vecKey struct {
	kind memory.OwnerKind
	user string
}

// vecLoad is the first load of a user's vectors, of every kind at once: the
// embeddings table is read once, not once a kind (a scan of 40k turns'
// vectors took 0.3 s, and ask's recall wants notes and passages too).
type vecLoad struct {
	once sync.Once
	err  error
}

// vectorKinds are the kinds of vectors a user's first load reads.
var vectorKinds = []memory.OwnerKind{memory.OwnerTurn, memory.OwnerNote, memory.OwnerSummary, ownerChunk}

// vectorsFor returns the user's turn vectors under model, loading them
// from the store on first use.
func (ix *Index) vectorsFor(ctx context.Context, userID, model string) (*userVectors, error) {
	return ix.vectorsOf(ctx, memory.OwnerTurn, userID, model)
}

// vectorsOf returns the user's vectors of kind under model, loading them
// from the store on first use.
func (ix *Index) vectorsOf(ctx context.Context, kind memory.OwnerKind, userID, model string) (*userVectors, error) {
	key := vecKey{kind, userID}
	ix.mu.Lock()
	uv := ix.vecs[key]
	if uv == nil {
		uv = &userVectors{load: &vecLoad{}}
		ix.vecs[key] = uv
		for _, k := range vectorKinds { // the user's other kinds come with it
			if ix.vecs[vecKey{k, userID}] == nil {
				ix.vecs[vecKey{k, userID}] = &userVectors{load: uv.load}
			}
		}
	}
	ix.mu.Unlock()
	uv.load.once.Do(func() { uv.load.err = ix.loadVectors(ctx, userID, model, uv.load) })
	if err := uv.load.err; err != nil {
		// Let a later search try again.
		ix.mu.Lock()
		for k, v := range ix.vecs {
			if v.load == uv.load {
				delete(ix.vecs, k)
			}
		}
		ix.mu.Unlock()
		return nil, err
	}
	return uv, nil
}

// loadVectors reads the user's vectors under model into every kind's
// in-memory index that shares load, in one scan of the table.
func (ix *Index) loadVectors(ctx context.Context, userID, model string, load *vecLoad) error {
	ix.mu.Lock()
	kinds := map[memory.OwnerKind]*userVectors{}
	for k, uv := range ix.vecs {
		if k.user == userID && uv.load == load {
			kinds[k.kind] = uv
		}
	}
	ix.mu.Unlock()
	last, err := ix.store.VectorsSince(ctx, userID, model, 0, func(sv memory.StoredVector) error {
		if uv := kinds[sv.Kind]; uv != nil {
			uv.add(vector.Key{Turn: sv.OwnerID, Chunk: sv.Chunk}, sv.Vector, ix)
		}
		return nil
	})
	for _, uv := range kinds {
		uv.mu.Lock()
		uv.last, uv.loaded = last, err == nil
		uv.mu.Unlock()
	}
	return err
}

// followVectors adds to the loaded vectors those that other processes
// stored since they were read (an ask in a script embeds its turn).
func (ix *Index) followVectors(ctx context.Context) {
	em := ix.embedding()
	if !em.enabled() {
		return
	}
	ix.mu.Lock()
	loaded := make(map[vecKey]*userVectors, len(ix.vecs))
	for k, uv := range ix.vecs {
		loaded[k] = uv
	}
	ix.mu.Unlock()
	for key, uv := range loaded {
		uv.mu.Lock()
		after, done := uv.last, uv.loaded
		uv.mu.Unlock()
		if !done {
			continue // the first load reads everything
		}
		replaced := map[string]bool{}
		last, err := ix.store.VectorsSince(ctx, key.user, em.model.Name, after, func(sv memory.StoredVector) error {
			if sv.Kind != key.kind {
				return nil
			}
			if !replaced[sv.OwnerID] {
				replaced[sv.OwnerID] = true
				ix.forgetVectorsOf(key, []string{sv.OwnerID})
			}
			uv.add(vector.Key{Turn: sv.OwnerID, Chunk: sv.Chunk}, sv.Vector, ix)
			return nil
		})
		if err != nil {
			ix.log.Warn("vectors of other processes not loaded", "err", err)
			continue
		}
		uv.mu.Lock()
		uv.last = max(uv.last, last)
		uv.mu.Unlock()
	}
}

// Preload loads the user's vectors so that the first search is fast.
func (ix *Index) Preload(ctx context.Context, userID string) error {
	em := ix.embedding()
	if !em.enabled() {
		return nil
	}
	_, err := ix.vectorsFor(ctx, userID, em.model.Name)
	return err
}

// errEmbedDim: the embedding model's vectors are too long (or empty) for
// the vector index.
var errEmbedDim = fmt.Errorf("mneme takes vectors of 1 to %d dimensions", vector.MaxDim)

// usableDim says whether the vector index takes vectors of n dimensions.
func usableDim(n int) bool { return n >= 1 && n <= vector.MaxDim }

func (uv *userVectors) add(k vector.Key, v []float32, ix *Index) {
	if !usableDim(len(v)) { // stored by an older mneme or another device
		ix.log.Warn("vector not indexed", "turn", k.Turn, "dim", len(v))
		return
	}
	uv.mu.Lock()
	if uv.idx == nil {
		uv.idx = vector.New(len(v))
	}
	idx := uv.idx
	uv.mu.Unlock()
	if err := idx.Add(k, v); err != nil {
		ix.log.Warn("vector not indexed", "turn", k.Turn, "err", err)
	}
}

func (uv *userVectors) index() *vector.Index {
	uv.mu.Lock()
	defer uv.mu.Unlock()
	return uv.idx
}

// addVectors puts freshly embedded vectors into the user's loaded vectors.
// Users whose vectors are not loaded pick them up when they load.
func (ix *Index) addVectors(set memory.EmbeddingSet) {
	key := vecKey{set.Kind, set.UserID}
	ix.mu.Lock()
	uv := ix.vecs[key]
	ix.mu.Unlock()
	if uv == nil {
		return
	}
	ix.forgetVectorsOf(key, []string{set.OwnerID})
	for i, v := range set.Vectors {
		uv.add(vector.Key{Turn: set.OwnerID, Chunk: i}, v, ix)
	}
}

// forgetVectors drops turns' vectors from memory.
func (ix *Index) forgetVectors(userID string, ids []string) {
	ix.forgetVectorsOf(vecKey{memory.OwnerTurn, userID}, ids)
}

func (ix *Index) forgetVectorsOf(key vecKey, ids []string) {
	ix.mu.Lock()
	uv := ix.vecs[key]
	ix.mu.Unlock()
	if uv == nil || uv.index() == nil {
		return
	}
	idx := uv.index()
	for _, id := range ids {
		for c := 0; idx.Contains(vector.Key{Turn: id, Chunk: c}); c++ {
			idx.Remove(vector.Key{Turn: id, Chunk: c})
		}
	}
}

// Chunks splits text into pieces of at most maxTokens (estimated) that
// overlap by about 10%, cutting between words. Text that fits is one chunk.
func Chunks(text string, maxTokens int) []string {
	maxChars := maxTokens * charsPerToken
	if maxTokens <= 0 || len(text) <= maxChars {
		return []string{text}
	}
	words := strings.Fields(text)
	var chunks []string
	for start := 0; start < len(words); {
		end, size := start, 0
		for end < len(words) && (end == start || size+len(words[end])+1 <= maxChars) {
			size += len(words[end]) + 1
			end++
		}
		chunks = append(chunks, strings.Join(words[start:end], " "))
		if end == len(words) {
			break
		}
		overlap := (end - start) / 10
		start = max(end-overlap, start+1)
	}
	return chunks
}

// charsPerToken is a conservative estimate for English text, so that
// estimated chunks stay inside the embedding model's context.
const charsPerToken = 3

// embedPendingAll embeds the turns, notes and summaries that have no
// vectors for their current text under the current model.
func (ix *Index) embedPendingAll(ctx context.Context) error {
	if err := ix.embedPending(ctx); err != nil {
		return err
	}
	err := ix.embedBacklog(ctx, func(model string, limit int) ([]owned, error) {
		notes, err := ix.store.NotesNeedingEmbedding(ctx, model, limit)
		return noteOwners(notes), err
	})
	if err != nil {
		return err
	}
	err = ix.embedBacklog(ctx, func(model string, limit int) ([]owned, error) {
		list, err := ix.store.SummariesNeedingEmbedding(ctx, model, limit)
		return summaryOwners(list), err
	})
	if err != nil {
		return err
	}
	return ix.EmbedDocuments(ctx)
}

func noteOwners(notes []memory.Note) []owned {
	items := make([]owned, len(notes))
	for i, n := range notes {
		items[i] = owned{id: n.ID, userID: n.UserID, hash: n.Hash, text: n.Content, kind: memory.OwnerNote}
	}
	return items
}

func (ix *Index) embedNotes(ctx context.Context, em embedder, notes []memory.Note) error {
	sets, err := em.embedOwners(ctx, noteOwners(notes))
	if err != nil {
		return err
	}
	return ix.store.SaveEmbeddings(ctx, sets...)
}

func summaryOwners(list []memory.Summary) []owned {
	items := make([]owned, len(list))
	for i, sum := range list {
		items[i] = owned{id: sum.ID, userID: sum.UserID, hash: sum.Hash, text: sum.Text, kind: memory.OwnerSummary}
	}
	return items
}

// Background embedding is done by one process at a time: two open chats
// would otherwise both send the same pending turns to Ollama. The others
// follow its vectors as it stores them.
const (
	embedLockName  = "embed.lock"
	embedBusyRetry = 5 * time.Second
)

// backgroundEmbed embeds what is pending for about embedSlice unless
// another process is doing it (then busy, and nothing embedded); more says
// that the slice ended first. Without an embedding model there is nothing
// to do. Foreground work (Drain) does not ask: a command waits for its own
// turns.
func (ix *Index) backgroundEmbed(ctx context.Context) (busy, more bool) {
	if !ix.embedding().enabled() {
		return false, false
	}
	ctx = withSlice(ctx, embedSlice)
	f, err := os.OpenFile(ix.embedLock, os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		ix.log.Warn("embed lock", "err", err)
		return false, ix.embedStep(ctx)
	}
	defer f.Close()
	if !flock.Try(f, flock.Exclusive) {
		return true, false
	}
	defer flock.Unlock(f)
	return false, ix.embedStep(ctx)
}
