// Package recall puts the user's memory before the model: the agent's
// recallers over the search index, for notes and documents' passages.
package recall

import (
	"context"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/printer"
	"github.com/mneme-dev/mneme/memory/index"
)

// Notes recalls notes from the index for the agent and, with Passages
// (doc_recall), a passage of the user's documents that is clearly about
// the prompt.
type Notes struct {
	Index    *index.Index
	Query    index.RecallQuery
	Passages bool
	Log      *slog.Logger
}

// Recall is agent.Recaller's.
func (r Notes) Recall(ctx context.Context, userID, text string) ([]agent.Memory, error) {
	q := r.Query
	q.UserID, q.Text = userID, text
	found, err := r.Index.Recall(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]agent.Memory, len(found), len(found)+1)
	for i, n := range found {
		out[i] = agent.Memory{NoteID: n.ID, Text: n.Content}
	}
	if r.Passages {
		h, ok, err := r.Index.RecallPassage(ctx, index.PassageQuery{UserID: userID, Text: text})
		if err != nil {
			// A passage is an extra: the notes still go in.
			r.Log.Warn("no passage recalled", "err", err)
		}
		if ok {
			out = append(out, passageMemory(h))
		}
	}
	return out, nil
}

// passageMemory is a passage as it goes before the model, and under the
// answer as a source.
func passageMemory(h index.DocHit) agent.Memory {
	source := strings.Join(append([]string{filepath.Base(h.Path)}, printer.Place(h.Page, h.Heading)...), " · ")
	return agent.Memory{Text: h.Passage, Source: source, Citation: &agent.Citation{
		DocumentID: h.DocumentID, Path: h.Path, Title: h.Title, Heading: h.Heading, Page: h.Page, Chunk: h.Chunk, Passage: h.Passage,
	}}
}

// Attached reads the documents just attached (/attach) into the next
// prompt, for a model that does not search them itself.
type Attached struct{ Index *index.Index }

// RecallAttached is agent.AttachedRecaller's.
func (r Attached) RecallAttached(ctx context.Context, userID, text string, docIDs []string) ([]agent.Memory, error) {
	hits, err := r.Index.AttachedPassages(ctx, index.AttachedQuery{UserID: userID, Text: text, Documents: docIDs})
	out := make([]agent.Memory, len(hits))
	for i, h := range hits {
		out[i] = passageMemory(h)
	}
	return out, err
}
