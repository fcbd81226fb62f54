package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/mneme-dev/mneme/docs"
	"github.com/mneme-dev/mneme/docs/ingest"
	"github.com/mneme-dev/mneme/memory/docstore"
	"github.com/mneme-dev/mneme/memory/index"
)

// docAdder adds files for the session's user, as configured.
func (s *session) docAdder(ix *index.Index, collection string) ingest.Adder {
	dataDir, err := filepath.EvalSymlinks(s.cfg.DataDir)
	if err != nil {
		dataDir = filepath.Clean(s.cfg.DataDir)
	}
	return ingest.Adder{Library: ix, UserID: s.cfg.User, Collection: collection, MaxBytes: s.cfg.MaxDocBytes(),
		Chunks: docs.ChunkOptions{Tokens: s.cfg.DocChunkTokens, Overlap: *s.cfg.DocChunkOverlap}, DataDir: dataDir}
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
	var got []ingest.Added
	var skipped []string
	for _, c := range docs.Expand([]string{path}) {
		r := ingest.Added{Path: c.Path, Skipped: c.Skip}
		if c.Skip == "" {
			r = adder.Add(ctx, c.Path, true)
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
