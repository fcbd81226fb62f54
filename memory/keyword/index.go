// Package keyword is mneme's full-text index of past turns, notes and
// summaries: a Bleve (scorch, on disk) BM25 index with its own English
// analyzer, field boosts and a reranking stage (neighbouring turns,
// conversation prior, pseudo-relevance feedback). See README.md for the
// techniques and what each contributes.
package keyword

import (
	"errors"
	"fmt"
	"os"
	"runtime"
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
)

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool { return k == KindTurn || k == KindNote || k == KindSummary }

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

// Index is a keyword index on disk. It is safe for concurrent use.
type Index struct {
	mu     sync.RWMutex
	bi     bleve.Index // nil once closed
	an     *analyzer
	ty     *typer
	params params
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
	empty, err := isEmptyDir(dir)
	if err != nil {
		return nil, fmt.Errorf("keyword: %w", err)
	}
	if empty {
		return create(dir)
	}
	bi, err := openBleve(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, dir, err)
	}
	v, err := bi.GetInternal([]byte(versionKey))
	if err != nil {
		_ = bi.Close()
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, dir, err)
	}
	if string(v) != Version {
		_ = bi.Close()
		return nil, fmt.Errorf("%w: %s has %q, want %q", ErrStale, dir, v, Version)
	}
	return newIndex(bi), nil
}

func openBleve(dir string) (bi bleve.Index, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic opening index: %v", r)
		}
	}()
	return bleve.Open(dir)
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

func create(dir string) (*Index, error) {
	m, err := newMapping()
	if err != nil {
		return nil, fmt.Errorf("keyword: mapping: %w", err)
	}
	if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("keyword: %w", err)
	}
	bi, err := bleve.NewUsing(dir, m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return nil, fmt.Errorf("keyword: create %s: %w", dir, err)
	}
	if err := bi.SetInternal([]byte(versionKey), []byte(Version)); err != nil {
		_ = bi.Close()
		return nil, fmt.Errorf("keyword: %w", err)
	}
	return newIndex(bi), nil
}

func newIndex(bi bleve.Index) *Index {
	return &Index{bi: bi, an: newAnalyzer(), ty: newTyper(), params: defaultParams()}
}

// Close closes the index; later calls return ErrClosed.
func (ix *Index) Close() error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.bi == nil {
		return ErrClosed
	}
	err := ix.bi.Close()
	ix.bi = nil
	if err != nil {
		return fmt.Errorf("keyword: close: %w", err)
	}
	return nil
}

// withIndex runs fn with the open Bleve index under the read lock.
func (ix *Index) withIndex(fn func(bleve.Index) error) error {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.bi == nil {
		return ErrClosed
	}
	return fn(ix.bi)
}

// Upsert adds or replaces documents by ID, in batches.
func (ix *Index) Upsert(docs ...Doc) error {
	for _, d := range docs {
		if err := validate(d); err != nil {
			return err
		}
	}
	return ix.withIndex(func(bi bleve.Index) error {
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
	})
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
