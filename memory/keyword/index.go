// Package keyword is mneme's full-text index of past turns, notes and
// summaries: a Bleve (scorch, on disk) BM25 index with its own English
// analyzer, field boosts and a reranking stage (neighbouring turns,
// conversation prior, pseudo-relevance feedback). See README.md for the
// techniques and what each contributes.
package keyword

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
)

// Kind is the kind of an indexed document.
type Kind string

// Kinds of documents.
const (
	KindTurn    Kind = "turn"
	KindNote    Kind = "note"
	KindSummary Kind = "summary"
	KindChunk   Kind = "chunk" // a piece of an added document
)

// kinds are every kind of document, for the searches that leave some out.
var kinds = []Kind{KindTurn, KindNote, KindSummary, KindChunk}

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool { return slices.Contains(kinds, k) }

// Doc is one searchable document.
type Doc struct {
	ID             string // stable id, e.g. "<conversation>:<turn number>" or a note id
	Kind           Kind
	UserID         string // searches only ever see their own user's documents
	ConversationID string
	Title          string // conversation title
	Number         int    // turn number within the conversation (neighbour context)
	Text           string // full text
	UserText       string // the user's part of a turn
	Time           time.Time
}

// Index is a keyword index on disk, shared with the other mneme processes
// that use the same directory (see lease.go). It is safe for concurrent use.
type Index struct {
	dir    string
	an     *analyzer
	ty     *typer
	params params
	lease  LeaseOptions
	make   func(dir string) (bleve.Index, error) // creates an empty index (create; tests make it fail)

	// gate is held (a one-slot semaphore, so that waiting for it can be
	// cancelled) while the index is opened, closed or reset.
	gate  chan struct{}
	lockf *os.File // "<dir>.lock", taken while the index is open
	waitf *os.File // "<dir>.wait", taken shared while waiting for lockf

	mu         sync.Mutex
	bi         bleve.Index // nil while this process does not hold the index
	users      int         // operations using bi now
	gen        uint64      // bumped on every use; a linger timer of an older gen does nothing
	since      time.Time   // when bi was opened
	yieldUntil time.Time   // after a lease ended for MaxHold: do not take the lock before
	yielding   bool        // the lease ended for MaxHold and is being closed: join it no more
	draining   bool        // Reset or Close is waiting for users to finish
	closed     bool
	closeErr   error // the last failure to close bi, reported by Close
}

// versionKey is the internal key holding Version; metaPrefix prefixes Meta keys.
const (
	versionKey = "mneme:version"
	metaPrefix = "meta:"
	batchSize  = 1024
)

// Open opens the index in dir, creating it when dir is missing or empty. A
// directory that holds no readable index gives an error wrapping ErrCorrupt;
// an index of another Version one wrapping ErrStale.
func Open(dir string) (*Index, error) {
	return OpenLease(context.Background(), dir, DefaultLease)
}

// OpenLease is Open with the given lease timing; ctx bounds the wait for
// another process that holds the index.
func OpenLease(ctx context.Context, dir string, lease LeaseOptions) (*Index, error) {
	ix := New(dir, lease)
	if ix.lease.Wait > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, ix.lease.Wait)
		defer cancel()
	}
	// The first lease checks (or creates) the index.
	if err := ix.with(ctx, func(bleve.Index) error { return nil }); err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
}

// New returns the index in dir without touching the disk: the first
// operation opens it (or creates it), and fails with ErrCorrupt or
// ErrStale as Open would; Reset then starts it afresh.
func New(dir string, lease LeaseOptions) *Index {
	return &Index{
		dir: dir, an: newAnalyzer(), ty: newTyper(), params: defaultParams(),
		lease: lease, gate: make(chan struct{}, 1), make: create,
	}
}

// openBleve opens (or creates) the index in ix.dir and checks its version.
// The lock file is held.
func (ix *Index) openBleve() (bleve.Index, error) {
	empty, err := isEmptyDir(ix.dir)
	if err != nil {
		return nil, fmt.Errorf("keyword: %w", err)
	}
	if empty {
		return create(ix.dir)
	}
	bi, err := openExisting(ix.dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, ix.dir, err)
	}
	v, err := bi.GetInternal([]byte(versionKey))
	if err != nil {
		_ = bi.Close()
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, ix.dir, err)
	}
	if string(v) != Version {
		_ = bi.Close()
		return nil, fmt.Errorf("%w: %s has %q, want %q", ErrStale, ix.dir, v, Version)
	}
	return bi, nil
}

func openExisting(dir string) (bi bleve.Index, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic opening index: %v", r)
		}
	}()
	return bleve.OpenUsing(dir, map[string]interface{}{"bolt_timeout": boltTimeout})
}

func isEmptyDir(dir string) (bool, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	return len(entries) == 0, nil
}

func create(dir string) (bleve.Index, error) {
	m, err := newMapping()
	if err != nil {
		return nil, fmt.Errorf("keyword: mapping: %w", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, fmt.Errorf("keyword: %w", err)
	}
	bi, err := bleve.NewUsing(dir, m, scorch.Name, scorch.Name, map[string]interface{}{"bolt_timeout": boltTimeout})
	if err != nil {
		return nil, fmt.Errorf("keyword: create %s: %w", dir, err)
	}
	if err := bi.SetInternal([]byte(versionKey), []byte(Version)); err != nil {
		_ = bi.Close()
		return nil, fmt.Errorf("keyword: %w", err)
	}
	return bi, nil
}

// Reset replaces the index with an empty one and runs during while no
// other process can use it, so that records kept elsewhere about what is
// indexed can be reset in step. It waits for this process's operations to
// finish; it must not be called from inside Hold.
func (ix *Index) Reset(ctx context.Context, during func() error) error {
	return ix.swapIn(ctx, "", during)
}

// swapIn replaces the index with the one built in prepared ("": a new
// empty one) and runs during while no other process can use the index.
func (ix *Index) swapIn(ctx context.Context, prepared string, during func() error) error {
	if err := ix.takeGate(ctx); err != nil {
		return err
	}
	defer ix.dropGate()
	if err := ix.drain(ctx); err != nil {
		return err
	}
	ix.mu.Lock()
	held, closed := ix.bi != nil, ix.closed
	ix.mu.Unlock()
	if closed {
		ix.undrain()
		return ErrClosed
	}
	if !held {
		if err := ix.lockFile(ctx); err != nil {
			ix.undrain()
			return err
		}
	}
	nbi, err := ix.replaceDir(prepared)
	if err != nil {
		ix.mu.Lock()
		open := ix.bi != nil
		ix.mu.Unlock()
		if !open {
			ix.unlockFile()
		}
		ix.undrain()
		return err
	}
	ix.mu.Lock()
	// A lease given up a moment ago is replaced by this one: the work
	// during Reset must join it (it would wait for the gate Reset holds).
	ix.bi, ix.since, ix.draining, ix.yielding = nbi, time.Now(), false, false
	ix.users++
	ix.mu.Unlock()
	defer ix.release()
	if during == nil {
		return nil
	}
	return during()
}

// replaceDir swaps in the index built in fresh ("": an empty one, made
// beside the old one first): when the new one cannot be made or moved (a
// read-only or full disk), the old one stays as it was and keeps
// answering. The gate and the lock are held.
func (ix *Index) replaceDir(fresh string) (bleve.Index, error) {
	if fresh == "" {
		fresh = ix.dir + ".new"
		if err := os.RemoveAll(fresh); err != nil {
			return nil, fmt.Errorf("keyword: rebuild: %w", err)
		}
		bi, err := ix.make(fresh)
		if err != nil {
			os.RemoveAll(fresh)
			return nil, fmt.Errorf("keyword: rebuild: the old index is kept: %w", err)
		}
		if err := bi.Close(); err != nil {
			os.RemoveAll(fresh)
			return nil, fmt.Errorf("keyword: rebuild: the old index is kept: %w", err)
		}
	}
	ix.mu.Lock()
	old := ix.bi
	ix.bi = nil
	ix.mu.Unlock()
	if old != nil {
		_ = old.Close()
	}
	stale := ix.dir + ".old"
	os.RemoveAll(stale)
	if err := os.Rename(ix.dir, stale); err != nil && !errors.Is(err, os.ErrNotExist) {
		os.RemoveAll(fresh)
		return nil, fmt.Errorf("keyword: rebuild: the old index is kept: %w", err)
	}
	if err := os.Rename(fresh, ix.dir); err != nil {
		os.Rename(stale, ix.dir)
		return nil, fmt.Errorf("keyword: rebuild: the old index is kept: %w", err)
	}
	os.RemoveAll(stale)
	return ix.openBleve()
}

// Close closes the index; later calls return ErrClosed. It waits for the
// operations under way.
func (ix *Index) Close() error {
	ix.gate <- struct{}{}
	defer ix.dropGate()
	_ = ix.drain(context.Background())
	ix.mu.Lock()
	if ix.closed {
		ix.mu.Unlock()
		return ErrClosed
	}
	ix.closed = true
	bi := ix.bi
	ix.bi = nil
	ix.mu.Unlock()
	if bi != nil {
		ix.closeLease(bi)
	}
	if ix.lockf != nil {
		ix.lockf.Close()
		ix.waitf.Close()
	}
	if ix.closeErr != nil {
		return fmt.Errorf("keyword: close: %w", ix.closeErr)
	}
	return nil
}

// Upsert adds or replaces documents by ID, in batches.
func (ix *Index) Upsert(docs ...Doc) error {
	for _, d := range docs {
		if err := validate(d); err != nil {
			return err
		}
	}
	return ix.withIndex(func(bi bleve.Index) error { return ix.put(bi, docs) })
}

// put writes valid docs to bi in batches.
func (ix *Index) put(bi bleve.Index, docs []Doc) error {
	for start := 0; start < len(docs); start += batchSize {
		chunk := docs[start:min(start+batchSize, len(docs))]
		b := bi.NewBatch()
		for i, f := range ix.analyze(chunk) {
			if err := b.Index(chunk[i].ID, f); err != nil {
				return fmt.Errorf("keyword: index %s: %w", chunk[i].ID, err)
			}
		}
		if err := bi.Batch(b); err != nil {
			return fmt.Errorf("keyword: batch: %w", err)
		}
	}
	return nil
}

// analyze renders documents as Bleve fields, on all CPUs.
func (ix *Index) analyze(docs []Doc) []map[string]interface{} {
	out := make([]map[string]interface{}, len(docs))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(docs)/16))
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(docs); i += workers {
				out[i] = ix.fields(docs[i])
			}
		}()
	}
	wg.Wait()
	return out
}

func validate(d Doc) error {
	switch {
	case d.ID == "":
		return fmt.Errorf("%w: empty id", ErrInvalid)
	case d.UserID == "":
		return fmt.Errorf("%w: %s", ErrNoUser, d.ID)
	case !d.Kind.Valid():
		return fmt.Errorf("%w: %s: kind %q", ErrInvalid, d.ID, d.Kind)
	}
	return nil
}

// fields renders a document as Bleve fields.
func (ix *Index) fields(d Doc) map[string]interface{} {
	f := map[string]interface{}{
		fieldKind:   string(d.Kind),
		fieldUser:   d.UserID,
		fieldConv:   d.ConversationID,
		fieldNumber: float64(d.Number),
		fieldText:   strings.Join(ix.an.terms(d.Text), " "),
		fieldTitle:  strings.Join(ix.an.terms(d.Title), " "),
		fieldTypes:  ix.ty.docTypes(d.Text),
	}
	if !d.Time.IsZero() {
		f[fieldTime] = d.Time.UTC()
		f[fieldWhen] = strings.Join(whenTokens(d.Time), " ")
	}
	return f
}

// Delete removes documents by ID; unknown IDs are ignored.
func (ix *Index) Delete(ids ...string) error {
	return ix.withIndex(func(bi bleve.Index) error {
		for start := 0; start < len(ids); start += batchSize {
			b := bi.NewBatch()
			for _, id := range ids[start:min(start+batchSize, len(ids))] {
				b.Delete(id)
			}
			if err := bi.Batch(b); err != nil {
				return fmt.Errorf("keyword: delete: %w", err)
			}
		}
		return nil
	})
}

// Count returns the number of indexed documents (all users).
func (ix *Index) Count() (uint64, error) {
	var n uint64
	err := ix.withIndex(func(bi bleve.Index) error {
		var err error
		n, err = bi.DocCount()
		return err
	})
	return n, err
}

// Meta returns a value stored with SetMeta, or "" when unset.
func (ix *Index) Meta(key string) (string, error) {
	var v []byte
	err := ix.withIndex(func(bi bleve.Index) error {
		var err error
		v, err = bi.GetInternal([]byte(metaPrefix + key))
		return err
	})
	return string(v), err
}

// SetMeta stores a small value with the index, e.g. an import watermark.
func (ix *Index) SetMeta(key, value string) error {
	return ix.withIndex(func(bi bleve.Index) error {
		return bi.SetInternal([]byte(metaPrefix+key), []byte(value))
	})
}
