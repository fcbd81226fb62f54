package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/mneme-dev/mneme/docs"
	"github.com/mneme-dev/mneme/memory/docstore"
	"github.com/mneme-dev/mneme/memory/index"
)

// Adding documents: read a file (bounded by max_doc_mb), skip it when its
// bytes are unchanged, parse it, cut it into chunks, and store them. The
// keyword index is brought up to date in batches; vectors are computed by
// the background work, like those of turns.

// added is what happened to one file.
type added struct {
	Path    string            `json:"path"`
	Outcome docstore.Outcome  `json:"outcome,omitempty"` // added, updated, unchanged
	Skipped string            `json:"skipped,omitempty"` // why it was not added
	Doc     docstore.Document `json:"-"`
}

// docAdder adds files for one user.
type docAdder struct {
	ix         *index.Index
	userID     string
	collection string
	maxBytes   int64
	chunks     docs.ChunkOptions
	// dataDir is mneme's own: its files are never read as documents (and
	// closing a descriptor of the database would drop this process's
	// SQLite locks on it).
	dataDir string
}

func (s *session) docAdder(ix *index.Index, collection string) docAdder {
	dataDir, err := filepath.EvalSymlinks(s.cfg.DataDir)
	if err != nil {
		dataDir = filepath.Clean(s.cfg.DataDir)
	}
	return docAdder{ix: ix, userID: s.cfg.User, collection: collection, maxBytes: s.cfg.MaxDocBytes(),
		chunks: docs.ChunkOptions{Tokens: s.cfg.DocChunkTokens, Overlap: *s.cfg.DocChunkOverlap}, dataDir: dataDir}
}

// Reasons docs add skips a file.
var (
	errTooLarge  = errors.New("larger than max_doc_mb")
	errMnemeData = errors.New("mneme's own data")
)

// add stores one file; with index, its keyword entries at once, else with
// the next ix.IndexDocuments. Without a collection, a file already added
// keeps its own.
func (d docAdder) add(ctx context.Context, path string, index bool) added {
	out := added{Path: path}
	skip := func(err error) added {
		out.Skipped = err.Error()
		return out
	}
	if rel, err := filepath.Rel(d.dataDir, path); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return skip(errMnemeData)
	}
	data, err := readBounded(path, d.maxBytes)
	if err != nil {
		return skip(err)
	}
	hash := docstore.HashBytes(data)
	collection := d.collection
	old, ok, err := d.ix.Docs().Lookup(ctx, d.userID, path)
	switch {
	case err != nil:
		return skip(err)
	case ok && collection == "":
		collection = old.Collection // moved only by naming a collection
	}
	if ok && old.Hash == hash && old.Collection == collection {
		out.Outcome, out.Doc = docstore.Unchanged, old
		return out
	}
	n := docstore.New{UserID: d.userID, Collection: collection, Path: path, Size: int64(len(data)), Hash: hash}
	if !ok || old.Hash != hash { // an unchanged file only moves: no need to read it again
		p, err := docs.Parse(filepath.Base(path), data)
		if err != nil {
			return skip(err)
		}
		n.Title, n.Type = p.Title, string(p.Type)
		for _, c := range docs.Split(p, d.chunks) {
			n.Pieces = append(n.Pieces, docstore.Piece{Heading: c.Heading, Page: c.Page, Text: c.Text})
		}
		if len(n.Pieces) == 0 {
			return skip(docs.ErrEmpty)
		}
	}
	put := d.ix.Docs().Put
	if index {
		put = d.ix.AddDocument
	}
	out.Doc, out.Outcome, err = put(ctx, n)
	if err != nil {
		return skip(err)
	}
	return out
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
		return nil, fmt.Errorf("%w (%d MB)", errTooLarge, limit>>20)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%w (%d MB)", errTooLarge, limit>>20)
	}
	return data, nil
}

// attachment is what an /attach added: one document, or several (from a
// folder or a glob) as one, "N documents" with their passages summed.
type attachment struct {
	doc     docstore.Document
	outcome docstore.Outcome
	// documents counts those added (or unchanged), unchanged those already
	// there as they are, skipped the files left out (binary, unsupported,
	// too large…).
	documents, unchanged, skipped int
}

// attachDocument adds what path names for the chat's /attach, as
// `mneme docs add` does (a file, a directory, a glob), indexed at once.
// The error is the reason a person reads ("not found").
func (s *session) attachDocument(ctx context.Context, ix *index.Index, path string) (attachment, error) {
	adder := s.docAdder(ix, "")
	var got []added
	var skipped []string
	for _, c := range docs.Expand([]string{path}) {
		r := added{Path: c.Path, Skipped: c.Skip}
		if c.Skip == "" {
			r = adder.add(ctx, c.Path, true)
		}
		if r.Skipped != "" {
			skipped = append(skipped, r.Skipped)
			continue
		}
		got = append(got, r)
	}
	switch {
	case len(got) == 0 && len(skipped) > 1:
		return attachment{}, fmt.Errorf("%d files, none added (the first: %s)", len(skipped), skipped[0])
	case len(got) == 0 && len(skipped) == 1:
		return attachment{}, errors.New(skipped[0])
	case len(got) == 0:
		return attachment{}, errors.New(docs.SkipNoMatch)
	case len(got) == 1:
		return attachment{doc: got[0].Doc, outcome: got[0].Outcome, documents: 1, skipped: len(skipped)}, nil
	}
	abs, _ := filepath.Abs(path)
	all := attachment{doc: docstore.Document{Title: fmt.Sprintf("%d documents", len(got)), Path: abs},
		outcome: docstore.Unchanged, documents: len(got), skipped: len(skipped)}
	for _, r := range got {
		all.doc.Chunks += r.Doc.Chunks
		if r.Outcome == docstore.Added || r.Outcome == docstore.Updated {
			all.outcome = docstore.Added
		} else {
			all.unchanged++
		}
	}
	return all, nil
}
