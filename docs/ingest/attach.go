package ingest

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/mneme-dev/mneme/docs"
	"github.com/mneme-dev/mneme/memory/docstore"
)

// Attachment is what an /attach added: one document, or several (from a
// folder or a glob) as one, "N documents" with their passages summed.
type Attachment struct {
	Doc     docstore.Document
	Outcome docstore.Outcome
	// Documents counts those added (or unchanged), Unchanged those already
	// there as they are, Skipped the files left out (binary, unsupported,
	// too large…).
	Documents, Unchanged, Skipped int
	// IDs are the documents' ids, for the passages the next prompt carries.
	IDs []string
}

// Attach adds what path names for the chat's /attach, as `mneme docs add`
// does (a file, a directory, a glob), indexed at once. The error is the
// reason a person reads ("not found").
func (adder Adder) Attach(ctx context.Context, path string) (Attachment, error) {
	var got []Added
	var skipped []string
	for _, c := range docs.Expand([]string{path}) {
		r := Added{Path: c.Path, Skipped: c.Skip}
		if c.Skip == "" {
			var err error
			if r, err = adder.Add(ctx, c.Path, true); err != nil {
				return Attachment{}, err
			}
		}
		if r.Skipped != "" {
			skipped = append(skipped, r.Skipped)
			continue
		}
		got = append(got, r)
	}
	switch {
	case len(got) == 0 && len(skipped) > 1:
		return Attachment{}, fmt.Errorf("%d files, none added (the first: %s)", len(skipped), skipped[0])
	case len(got) == 0 && len(skipped) == 1:
		return Attachment{}, errors.New(skipped[0])
	case len(got) == 0:
		return Attachment{}, errors.New(docs.SkipNoMatch)
	case len(got) == 1:
		return Attachment{Doc: got[0].Doc, Outcome: got[0].Outcome, Documents: 1, Skipped: len(skipped), IDs: []string{got[0].Doc.ID}}, nil
	}
	abs, _ := filepath.Abs(path)
	all := Attachment{Doc: docstore.Document{Title: fmt.Sprintf("%d documents", len(got)), Path: abs},
		Outcome: docstore.Unchanged, Documents: len(got), Skipped: len(skipped)}
	for _, r := range got {
		all.IDs = append(all.IDs, r.Doc.ID)
		all.Doc.Chunks += r.Doc.Chunks
		if r.Outcome == docstore.Added || r.Outcome == docstore.Updated {
			all.Outcome = docstore.Added
		} else {
			all.Unchanged++
		}
	}
	return all, nil
}
