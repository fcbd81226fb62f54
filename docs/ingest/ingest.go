// Package ingest adds files to the user's documents: read a file (bounded
// by max_doc_mb), skip it when its bytes are unchanged, parse it, cut it
// into chunks, and store them. `mneme docs add` and the chat's /attach
// both add through it.
package ingest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/mneme-dev/mneme/docs"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory/docstore"
)

// The keyword index is brought up to date in batches; vectors are computed
// by the background work, like those of turns.

// Added is what happened to one file.
type Added struct {
	Path    string            `json:"path"`
	Outcome docstore.Outcome  `json:"outcome,omitempty"` // added, updated, unchanged
	Skipped string            `json:"skipped,omitempty"` // why it was not added
	Doc     docstore.Document `json:"-"`
}

// String is the line `mneme docs add` prints of it, sanitised.
func (r Added) String() string {
	path := sanitize.Line(r.Path)
	switch {
	case r.Skipped != "":
		return fmt.Sprintf("skipped    %s: %s", path, sanitize.Line(r.Skipped))
	case r.Outcome == docstore.Unchanged:
		return "unchanged  " + path
	case r.Outcome == docstore.Removed:
		return "removed    " + path + ": no longer in the folder"
	case r.Outcome == docstore.Moved:
		return fmt.Sprintf("moved      %s → collection %q", path, sanitize.Line(r.Doc.Collection))
	}
	return fmt.Sprintf("%-10s %s · %s", r.Outcome, path, text.Count(r.Doc.Chunks, "passage", "passages"))
}

// Library is where documents are kept; *index.Index is one, and with
// AddDocument also puts a document's words in the keyword index at once.
type Library interface {
	Docs() *docstore.Store
	AddDocument(ctx context.Context, n docstore.New) (docstore.Document, docstore.Outcome, error)
}

// Adder adds files for one user.
type Adder struct {
	Library    Library
	UserID     string
	Collection string // "" keeps a file's own (or none)
	MaxBytes   int64  // a larger file is skipped
	Chunks     docs.ChunkOptions
	// DataDir is mneme's own: its files are never read as documents (and
	// closing a descriptor of the database would drop this process's
	// SQLite locks on it). Give it with its links resolved.
	DataDir string
}

// Reasons docs add skips a file.
var (
	ErrTooLarge  = errors.New("larger than max_doc_mb")
	ErrMnemeData = errors.New("mneme's own data")
)

// Add stores one file; with index, its keyword entries at once, else with
// the next index.IndexDocuments. Without a collection, a file already added
// keeps its own. A file that is no document (unreadable, binary, too
// large…) is Skipped; the error is the store's (locked, full, read-only):
// no file after it could be stored either.
func (d Adder) Add(ctx context.Context, path string, index bool) (Added, error) {
	out := Added{Path: path}
	skip := func(err error) (Added, error) {
		out.Skipped = err.Error()
		return out, nil
	}
	if docs.Within(d.DataDir, path) {
		return skip(ErrMnemeData)
	}
	data, err := readBounded(path, d.MaxBytes)
	if err != nil {
		return skip(err)
	}
	hash := docstore.HashBytes(data)
	collection := d.Collection
	old, ok, err := d.Library.Docs().Lookup(ctx, d.UserID, path)
	switch {
	case err != nil:
		return out, err
	case ok && collection == "":
		collection = old.Collection // moved only by naming a collection
	}
	if ok && old.Hash == hash && old.Collection == collection {
		out.Outcome, out.Doc = docstore.Unchanged, old
		return out, nil
	}
	n := docstore.New{UserID: d.UserID, Collection: collection, Path: path, Size: int64(len(data)), Hash: hash}
	if !ok || old.Hash != hash { // an unchanged file only moves: no need to read it again
		p, err := docs.Parse(filepath.Base(path), data)
		if err != nil {
			return skip(err)
		}
		n.Title, n.Type = p.Title, string(p.Type)
		for _, c := range docs.Split(p, d.Chunks) {
			n.Pieces = append(n.Pieces, docstore.Piece{Heading: c.Heading, Page: c.Page, Text: c.Text})
		}
		if len(n.Pieces) == 0 {
			return skip(docs.ErrEmpty)
		}
	}
	put := d.Library.Docs().Put
	if index {
		put = d.Library.AddDocument
	}
	out.Doc, out.Outcome, err = put(ctx, n)
	return out, err
}

// readBounded reads a file of at most limit bytes.
func readBounded(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrPermission) {
			return nil, errors.New(docs.SkipDenied)
		}
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, errors.New(docs.SkipNotRegular)
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("%w (%d MB)", ErrTooLarge, limit>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w (%d MB)", ErrTooLarge, limit>>20)
	}
	return data, nil
}
