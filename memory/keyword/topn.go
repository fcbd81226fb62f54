package keyword

import (
	"cmp"
	"container/heap"
	"context"
	"errors"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	index "github.com/blevesearch/bleve_index_api"
)

// topN keeps the best size documents of a Bleve search by score, ties
// broken by id: what sorting by "-_score", "_id" returns. Sorting by id
// makes Bleve's collector read the id of every matching document (tens of
// thousands for common words, a quarter of a search at 100k turns); topN
// reads an id only to break a tie at the edge of the kept set, then loads
// the stored fields of the documents it kept. It is Bleve's document match
// handler for one search (search.MakeDocumentMatchHandlerKey), or maxScore's.
type topN struct {
	size int
	req  *bleve.SearchRequest
	// alone, when set, is the user whose documents must be all the
	// snapshot holds: the search left the user filter out.
	alone string
	known map[string]bool // documents whose fields are not loaded
	err   error
	kept  worst
	hits  []*search.DocumentMatch // best first, once the search is done
}

// withTopN returns ctx making the searches run in it collect into t.
func withTopN(ctx context.Context, t *topN) context.Context {
	return context.WithValue(ctx, search.MakeDocumentMatchHandlerKey, search.MakeDocumentMatchHandler(t.handler))
}

// errNotAlone ends a search without the user filter on a snapshot that
// holds other documents than the user's.
var errNotAlone = errors.New("keyword: the index holds other users' documents")

func (t *topN) handler(sctx *search.SearchContext) (search.DocumentMatchHandler, bool, error) {
	r := sctx.IndexReader
	if t.alone != "" {
		if alone, err := onlyUser(r, t.alone); err != nil || !alone {
			return nil, false, cmp.Or(err, errNotAlone)
		}
	}
	t.kept = worst{r: r, t: t}
	return func(d *search.DocumentMatch) error {
		if t.err != nil {
			return t.err
		}
		if d == nil { // the search is done
			return t.finish(r)
		}
		if len(t.kept.docs) < t.size {
			heap.Push(&t.kept, d)
			return t.err
		}
		if w := t.kept.docs[0]; t.kept.before(w, d) { // d is better than the worst kept
			t.kept.docs[0] = d
			heap.Fix(&t.kept, 0)
			sctx.DocumentMatchPool.Put(w)
		} else {
			sctx.DocumentMatchPool.Put(d)
		}
		return t.err
	}, false, nil
}

// onlyUser says whether every document r holds is user's: each holds one
// user term, and deleted documents are counted by neither.
func onlyUser(r index.IndexReader, user string) (bool, error) {
	n, err := r.DocCount()
	if err != nil {
		return false, err
	}
	tfr, err := r.TermFieldReader(context.Background(), []byte(user), fieldUser, false, false, false)
	if err != nil {
		return false, err
	}
	defer tfr.Close()
	return tfr.Count() == n, nil
}

// finish orders the kept documents best first and loads their fields.
func (t *topN) finish(r index.IndexReader) error {
	t.hits = make([]*search.DocumentMatch, len(t.kept.docs))
	for i := len(t.hits) - 1; i >= 0; i-- {
		t.hits[i] = heap.Pop(&t.kept).(*search.DocumentMatch)
	}
	if t.err != nil {
		return t.err
	}
	for _, h := range t.hits {
		if err := t.kept.id(h); err != nil {
			return err
		}
		if t.known[h.ID] {
			continue
		}
		if err, _ := bleve.LoadAndHighlightAllFields(h, t.req, "", r, nil); err != nil {
			return err
		}
	}
	return nil
}

// worst is a heap of documents, the worst on top.
type worst struct {
	r    index.IndexReader
	t    *topN
	docs []*search.DocumentMatch
}

// id reads d's id when it is not known yet.
func (w *worst) id(d *search.DocumentMatch) error {
	if d.ID != "" {
		return nil
	}
	id, err := w.r.ExternalID(d.IndexInternalID)
	d.ID = id
	return err
}

// before says whether a ranks below b: a lower score, or the same score
// and a later id.
func (w *worst) before(a, b *search.DocumentMatch) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	if err := w.id(a); err != nil && w.t.err == nil {
		w.t.err = err
	}
	if err := w.id(b); err != nil && w.t.err == nil {
		w.t.err = err
	}
	return a.ID > b.ID
}

func (w *worst) Len() int           { return len(w.docs) }
func (w *worst) Less(i, j int) bool { return w.before(w.docs[i], w.docs[j]) }
func (w *worst) Swap(i, j int)      { w.docs[i], w.docs[j] = w.docs[j], w.docs[i] }
func (w *worst) Push(x any)         { w.docs = append(w.docs, x.(*search.DocumentMatch)) }
func (w *worst) Pop() any {
	d := w.docs[len(w.docs)-1]
	w.docs = w.docs[:len(w.docs)-1]
	return d
}
