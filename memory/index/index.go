// Package index keeps the derived search state of a memory.Store up to
// date (turns, the Bleve keyword index, embeddings and in-memory vectors)
// and answers searches: turns, notes, recall and finding conversations.
package index

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/docstore"
	"github.com/mneme-dev/mneme/memory/internal/dbfiles"
	"github.com/mneme-dev/mneme/memory/keyword"
)

// EmbedClient is the Ollama call the index needs; *api.Client has it.
type EmbedClient interface {
	Embed(ctx context.Context, req *api.EmbedRequest) (*api.EmbedResponse, error)
}

// EmbedModel is the embedding model in use.
type EmbedModel struct {
	Name string
	// ContextLength is the model's context in tokens, from /api/show.
	ContextLength int
}

// defaultEmbedContext is assumed when the server does not report one.
const defaultEmbedContext = 2048

// IndexOptions configures an Index.
type IndexOptions struct {
	// Embed and Model enable vector search; without them search is
	// keyword-only.
	Embed  EmbedClient
	Model  EmbedModel
	Fusion Fusion
	Log    *slog.Logger
	// Lease tunes how long this process keeps the keyword index, which it
	// shares with the other mneme processes (zero: keyword.DefaultLease).
	Lease keyword.LeaseOptions
	// Progress, if set, is told how far the keyword index has caught up
	// on turns after each batch: done of total turns (total is counted
	// once per catch-up). A rebuild after a crash reports here.
	Progress func(done, total int)
	// DocSimilarity is the least cosine similarity at which a document
	// passage counts as close in meaning (0: DefaultDocSimilarity; below
	// 0: any).
	DocSimilarity float64
	// QueriesOnly: the embedding model is for this process's queries; what
	// lacks vectors under it is not embedded (each owner keeps one model's
	// vectors, and those of the model the user keeps would be replaced).
	QueriesOnly bool
}

// Index keeps the derived search state of a Store up to date (turns, the
// Bleve keyword index, embeddings and in-memory vectors) and answers
// hybrid searches. libSQL stays the source of truth: everything here can be
// rebuilt from it.
type Index struct {
	store *memory.Store
	docs  *docstore.Store
	// docFloor is IndexOptions.DocSimilarity, defaulted.
	docFloor float64
	kw       *keyword.Index
	kwDir    string
	dir      string // the data dir
	// embedLock is held by the one process that embeds in the background.
	embedLock string
	lease     keyword.LeaseOptions
	fusion    Fusion
	log       *slog.Logger
	// progress is IndexOptions.Progress.
	progress func(done, total int)
	// queriesOnly is IndexOptions.QueriesOnly.
	queriesOnly bool
	clean       dbfiles.Clean // the files' state of the last catch-up that found nothing to do

	wake    chan struct{}
	changes chan struct{}

	mu       sync.Mutex
	dirty    map[memory.ConversationRef]struct{}
	emb      embedder                // zero: keyword-only
	vecs     map[vecKey]*userVectors // by user and kind, under emb's model, loaded on first use
	embedErr error                   // last embedding failure, nil once it works again
	// lastQuery is the last query embedded (queryVector), under mu.
	lastQuery embeddedQuery
	bulk      int // bulk jobs of this process under way (follow.go), under mu

	behindBulk      atomic.Bool  // the last Sync left turns to another process's bulk work
	kwDone, kwTotal atomic.Int64 // turns indexed of those to index, while indexKeywords runs (KeywordProgress)
}

// embedder is the embedding model in use and the client that runs it.
type embedder struct {
	client EmbedClient
	model  EmbedModel
}

func (e embedder) enabled() bool { return e.client != nil && e.model.Name != "" }

// embedding returns the embedding model in use.
func (ix *Index) embedding() embedder {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.emb
}

// SetEmbedding switches the embedding model, for example once a probe of
// Ollama has found one. Turns without vectors under the new model are
// embedded by the background work; until then search uses keywords.
func (ix *Index) SetEmbedding(client EmbedClient, model EmbedModel) {
	if model.ContextLength <= 0 {
		model.ContextLength = defaultEmbedContext
	}
	ix.mu.Lock()
	changed := ix.emb.model != model || (ix.emb.client == nil) != (client == nil)
	ix.emb = embedder{client: client, model: model}
	if changed {
		clear(ix.vecs)
		ix.embedErr = nil
	}
	ix.mu.Unlock()
	if changed {
		ix.Notify()
	}
}

// Meta keys recording which keyword index the store's local keyword marks
// describe (in the store's local state, never synced: see memory/local.go).
const (
	metaKeywordID      = "keyword_index_id"
	metaKeywordVersion = "keyword_index_version"
	kwMetaID           = "index_id"
)

// OpenIndex opens the derived state kept in dir. A keyword index that is
// missing, corrupt, of another version or out of step with the store is
// rebuilt; the rebuild itself runs with the rest of the indexing work.
func OpenIndex(ctx context.Context, store *memory.Store, dir string, opts IndexOptions) (*Index, error) {
	ix := &Index{
		store: store, dir: dir, kwDir: filepath.Join(dir, "keyword"), embedLock: filepath.Join(dir, embedLockName), lease: opts.Lease,
		fusion: opts.Fusion.withDefaults(), log: opts.Log, wake: make(chan struct{}, 1), changes: make(chan struct{}, 1),
		dirty: map[memory.ConversationRef]struct{}{}, vecs: map[vecKey]*userVectors{}, progress: opts.Progress, queriesOnly: opts.QueriesOnly,
		docFloor: cmp.Or(opts.DocSimilarity, DefaultDocSimilarity),
		clean:    dbfiles.NewClean(store.Path(), filepath.Join(dir, "keyword.clean")),
	}
	if ix.log == nil {
		ix.log = slog.New(slog.DiscardHandler)
	}
	if ix.lease == (keyword.LeaseOptions{}) {
		ix.lease = keyword.DefaultLease
	}
	if opts.Embed != nil && opts.Model.Name != "" {
		ix.SetEmbedding(opts.Embed, opts.Model)
	}
	var err error
	if ix.docs, err = docstore.Open(ctx, store); err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	if err := ix.openKeyword(ctx); err != nil {
		return nil, fmt.Errorf("open index: %w", err)
	}
	return ix, nil
}

func (ix *Index) openKeyword(ctx context.Context) error {
	ix.kw = keyword.New(ix.kwDir, ix.lease)
	var reason string
	err := ix.kw.Hold(ctx, func() error {
		var err error
		reason, err = ix.keywordStale(ctx)
		return err
	})
	switch {
	case errors.Is(err, keyword.ErrCorrupt), errors.Is(err, keyword.ErrStale):
		ix.log.Warn("keyword index unusable; rebuilding", "dir", ix.kwDir, "err", err)
		return ix.recreateKeyword(ctx)
	case err != nil:
		ix.kw.Close()
		return err
	case reason != "":
		ix.log.Info("keyword index out of step; rebuilding", "reason", reason)
		return ix.recreateKeyword(ctx)
	}
	return nil
}

// keywordStale says why the keyword index does not match the store ("" if
// it does). It runs under the index's lease.
func (ix *Index) keywordStale(ctx context.Context) (string, error) {
	want, err := ix.store.LocalMeta(ctx, metaKeywordID)
	if err != nil {
		return "", err
	}
	have, _ := ix.kw.Meta(kwMetaID)
	version, err := ix.store.LocalMeta(ctx, metaKeywordVersion)
	if err != nil {
		return "", err
	}
	switch {
	case want == "" || have != want:
		return "index id differs from the store's", nil
	case version != keyword.Version:
		return "index version " + version + " is not " + keyword.Version, nil
	case ix.clean.Matches(ix.clean.State()): // counted when it was recorded
		return "", nil
	}
	indexed, err := ix.store.CountKeywordIndexed(ctx)
	if err != nil {
		return "", err
	}
	count, err := ix.kw.Count()
	if err != nil {
		return "index unreadable: " + err.Error(), nil
	}
	if int(count) < indexed {
		return fmt.Sprintf("index holds %d documents, the store expects %d", count, indexed), nil
	}
	return "", nil
}

// recreateKeyword replaces the keyword index with an empty one and marks
// every turn for indexing, with no other process in between.
func (ix *Index) recreateKeyword(ctx context.Context) error {
	return ix.kw.Reset(ctx, func() error { return ix.markNewKeywordIndex(ctx) })
}

// markNewKeywordIndex records that the keyword index was replaced: a new
// identity, in the index and in the local state, and no marks (nothing is
// known to be in it). The lease is held.
func (ix *Index) markNewKeywordIndex(ctx context.Context) error {
	id := memory.NewID()
	if err := ix.kw.SetMeta(kwMetaID, id); err != nil {
		return err
	}
	if err := ix.store.ResetKeywordIndexed(ctx); err != nil {
		return err
	}
	if err := ix.docs.ResetMarks(ctx); err != nil {
		return err
	}
	if err := ix.store.SetLocalMeta(ctx, metaKeywordVersion, keyword.Version); err != nil {
		return err
	}
	return ix.store.SetLocalMeta(ctx, metaKeywordID, id)
}

// Close closes the keyword index.
func (ix *Index) Close() error {
	if ix.kw == nil {
		return nil
	}
	return ix.kw.Close()
}

// EmbedModelName is the embedding model in use ("" when keyword-only).
func (ix *Index) EmbedModelName() string {
	if em := ix.embedding(); em.enabled() {
		return em.model.Name
	}
	return ""
}

// Notify marks conversations as changed; the worker re-derives their turns.
// Call it when a run ends, not when it starts, so that a turn still being
// answered is not indexed.
func (ix *Index) Notify(refs ...memory.ConversationRef) {
	ix.mu.Lock()
	for _, r := range refs {
		ix.dirty[r] = struct{}{}
	}
	ix.mu.Unlock()
	select {
	case ix.wake <- struct{}{}:
	default:
	}
}

// pollEvery is how often Run looks for writes made by other processes
// (another chat screen, `mneme ask` in a script, a sync).
const pollEvery = time.Second

// Run does the indexing work in the background until ctx ends: it catches
// up on what was missed, then follows Notify and the writes of other
// processes, which it notices within pollEvery and announces on Changes.
// Embedding failures (Ollama down) are retried with back-off and never
// stop keyword indexing.
func (ix *Index) Run(ctx context.Context) {
	backoff := time.Duration(0)
	poll := time.NewTicker(pollEvery)
	defer poll.Stop()
	mark := ix.store.ChangeMark()
	changed := false
	for {
		// Sync, not its parts: while the database files are as the last
		// catch-up that found nothing left them, it reads nothing (a chat
		// starting at 100k turns would read them all, beside its first paint).
		if err := ix.Sync(ctx); err != nil && ctx.Err() == nil {
			ix.log.Warn("indexing failed", "err", err)
		}
		if changed {
			ix.followVectors(ctx)
			// Announced once search has the new rows, so that whoever
			// listens finds them.
			select {
			case ix.changes <- struct{}{}:
			default:
			}
		}
		busy, more := ix.backgroundEmbed(ctx)
		var retry <-chan time.Time
		switch {
		case more: // the rest after a look at what changed meanwhile
			backoff = 0
			retry = time.After(0)
		case ix.EmbedError() != nil:
			backoff = min(max(2*backoff, 5*time.Second), 5*time.Minute)
			retry = time.After(backoff)
		case busy:
			// Another process embeds: its vectors arrive with its writes
			// (followVectors). Look again later in case it stops.
			backoff = 0
			retry = time.After(embedBusyRetry)
		default:
			backoff = 0
		}
		var ok bool
		if changed, ok = ix.wait(ctx, poll.C, retry, &mark); !ok {
			return
		}
	}
}

// wait blocks until there is work: a Notify, a retry, or a write seen in
// the store's files since mark (changed). It returns ok false when ctx ends.
func (ix *Index) wait(ctx context.Context, poll, retry <-chan time.Time, mark *string) (changed, ok bool) {
	for {
		select {
		case <-ctx.Done():
			return false, false
		case <-ix.wake:
		case <-retry:
		case <-poll:
			if m := ix.store.ChangeMark(); m == *mark {
				continue
			}
		}
		// Woken, or back for more: another process may have written too.
		m := ix.store.ChangeMark()
		changed, *mark = m != *mark, m
		return changed, true
	}
}

// Changes receives a value when Run has seen the store change, possibly by
// another process, and has brought keyword search up to date. Lists shown
// to the user (conversations, notes) should be read again.
func (ix *Index) Changes() <-chan struct{} { return ix.changes }

// Drain does all pending work now: it returns once every stored message is
// in a turn, every turn is in the keyword index and (when an embedding model
// is available) embedded. An embedding failure is not an error here: it is
// recorded for Status and keyword search still covers everything. When ctx
// ends first, the embeddings not done yet are left for later.
func (ix *Index) Drain(ctx context.Context) error {
	if err := ix.Sync(ctx); err != nil {
		return err
	}
	ix.embedStep(ctx)
	return nil
}

// Sync brings turns and the keyword index up to date, leaving embeddings
// for the background: after it, keyword search sees every stored message
// and note.
func (ix *Index) Sync(ctx context.Context) error {
	state := ix.clean.State() // before reading: see dbfiles.Clean
	ix.mu.Lock()
	clean := len(ix.dirty) == 0 && ix.clean.Matches(state)
	ix.mu.Unlock()
	if clean {
		ix.behindBulk.Store(false)
		return nil
	}
	// Another process's import or reindex indexes its own turns: what lags
	// is left to it (this process's own changes are still indexed).
	bulk := ix.othersBulk()
	ix.behindBulk.Store(bulk)
	if !bulk {
		if err := ix.catchUp(ctx); err != nil {
			return err
		}
	}
	if err := ix.indexAllKeywords(ctx, !bulk); err != nil {
		return err
	}
	if !bulk && ix.clean.State() == state {
		ix.clean.Record(state)
	}
	return nil
}

// SyncNotified derives and keyword-indexes the turns of at most limit of
// the conversations notified since, without Sync's scans for everything
// else that lags, and reports whether more are left: an import calls it
// after each batch it stores, a part at a time so that it can let another
// process have the keyword index in between, and Sync once at the end.
func (ix *Index) SyncNotified(ctx context.Context, limit int) (more bool, err error) {
	if err := ix.syncTurnsUpTo(ctx, limit); err != nil {
		return false, err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return len(ix.dirty) > 0, nil
}

// indexAllKeywords derives the turns of changed conversations and brings
// the keyword index up to date with notes, summaries and documents, and
// with every turn unless turns is false.
func (ix *Index) indexAllKeywords(ctx context.Context, turns bool) error {
	if err := ix.syncTurns(ctx); err != nil {
		return err
	}
	if turns {
		if err := ix.indexKeywords(ctx); err != nil {
			return err
		}
	}
	if err := ix.indexNoteKeywords(ctx); err != nil {
		return err
	}
	if err := ix.indexSummaryKeywords(ctx); err != nil {
		return err
	}
	return ix.indexDocKeywords(ctx)
}

// catchUp marks conversations whose turns lag their messages.
func (ix *Index) catchUp(ctx context.Context) error {
	stale, err := ix.store.StaleConversations(ctx)
	if err != nil {
		return err
	}
	ix.mu.Lock()
	for _, r := range stale {
		ix.dirty[r] = struct{}{}
	}
	ix.mu.Unlock()
	return nil
}

// QueriesOnly says the embedding model is for this process's queries only
// (IndexOptions.QueriesOnly): nothing is embedded under it.
func (ix *Index) QueriesOnly() bool { return ix.queriesOnly }

// embedStep embeds what is pending, and reports whether ctx's slice ended
// first (more to do); a failure is recorded for Status and the back-off,
// never returned: keyword search covers everything.
func (ix *Index) embedStep(ctx context.Context) (more bool) {
	err := ix.embedPendingAll(ctx)
	switch {
	case errors.Is(err, errSliceOver):
		ix.setEmbedErr(nil)
		return true
	case err != nil && ctx.Err() != nil:
		return false // stopped, not failed: the rest waits for later
	case err != nil:
		ix.setEmbedErr(err)
		ix.log.Warn("embedding paused", "model", ix.EmbedModelName(), "err", err)
		return false
	}
	ix.setEmbedErr(nil)
	return false
}

func (ix *Index) syncTurns(ctx context.Context) error { return ix.syncTurnsUpTo(ctx, 0) }

// syncTurnsUpTo is syncTurns for at most limit conversations (0: all).
func (ix *Index) syncTurnsUpTo(ctx context.Context, limit int) error {
	ix.mu.Lock()
	refs := make([]memory.ConversationRef, 0, len(ix.dirty))
	for r := range ix.dirty {
		if limit > 0 && len(refs) == limit {
			break
		}
		refs = append(refs, r)
		delete(ix.dirty, r)
	}
	ix.mu.Unlock()
	pipe := ix.newTurnPipe(ctx, refs)
	err := ix.syncTurnsOf(ctx, refs, pipe)
	if perr := pipe.close(); err == nil {
		err = perr
	}
	return err
}

// syncTurnsOf derives the turns of the conversations refs, giving those
// that changed to pipe for the keyword index.
func (ix *Index) syncTurnsOf(ctx context.Context, refs []memory.ConversationRef, pipe *turnPipe) error {
	for i, r := range refs {
		changed, removed, err := ix.store.SyncTurns(ctx, r.UserID, r.ConversationID)
		if err != nil {
			ix.Notify(refs[i:]...) // keep what was not done
			return err
		}
		pipe.add(changed)
		if len(removed) > 0 {
			if err := ix.kw.Delete(removed...); err != nil {
				return err
			}
			ix.forgetVectors(r.UserID, removed)
		}
	}
	return nil
}

// Reindex rebuilds the keyword index from the store.
func (ix *Index) Reindex(ctx context.Context) error {
	defer ix.markBulk()()
	var built builtMarks
	err := ix.kw.Rebuild(ctx, func(put func(...keyword.Doc) error) error {
		return ix.buildKeywords(ctx, put, &built)
	}, func() error {
		// The new index is in place: its records are written whole, even
		// if Ctrl+C came meanwhile (half of them would cost a rebuild).
		ctx := context.WithoutCancel(ctx)
		if err := ix.markNewKeywordIndex(ctx); err != nil {
			return err
		}
		return built.mark(ctx, ix)
	})
	if err != nil {
		return fmt.Errorf("reindex: %w", err)
	}
	return ix.Drain(ctx) // what changed while it was built
}

func (ix *Index) setEmbedErr(err error) {
	ix.mu.Lock()
	ix.embedErr = err
	ix.mu.Unlock()
}

// EmbedError is the last embedding failure, or nil.
func (ix *Index) EmbedError() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return ix.embedErr
}

// IndexStatus describes the state of search.
type IndexStatus struct {
	EmbedModel  string `json:"embed_model,omitempty"`
	KeywordOnly bool   `json:"keyword_only"`
	Turns       int    `json:"turns"`
	Pending     int    `json:"pending_embeddings"`
	EmbedError  string `json:"embed_error,omitempty"`
}

// Status reports the state of search. It queries the store.
func (ix *Index) Status(ctx context.Context) (IndexStatus, error) {
	st := IndexStatus{EmbedModel: ix.EmbedModelName(), KeywordOnly: ix.EmbedModelName() == ""}
	var err error
	if st.Turns, err = ix.store.CountTurns(ctx); err != nil {
		return st, err
	}
	if !st.KeywordOnly {
		if st.Pending, err = ix.store.CountTurnsNeedingEmbedding(ctx, st.EmbedModel); err != nil {
			return st, err
		}
	}
	if e := ix.EmbedError(); e != nil {
		st.EmbedError = sanitize.Line(e.Error()) // the embedding server's words, printed as they are
	}
	return st, nil
}
