package learn

import (
	"context"
	"errors"
	"fmt"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

// IndexNotes is Notes over the search index: notes are found by the hybrid
// search and changed through the index so that search follows; every
// change is marked as the learner's (memory.ByExtracted).
type IndexNotes struct {
	Index *index.Index
	// Source is the turn learnt from: every note added carries it.
	Source memory.NoteSource
}

func (n IndexNotes) Similar(ctx context.Context, userID, text string, limit int) ([]Existing, error) {
	hits, err := n.Index.SearchNotes(ctx, index.NoteQuery{UserID: userID, Text: text, Limit: limit,
		Statuses: index.NotAside, MinSimilarity: index.DefaultRecallSimilarity}) // an archived note is no longer kept
	if err != nil {
		return nil, err
	}
	out := make([]Existing, len(hits))
	for i, h := range hits {
		out[i] = Existing{ID: h.ID, Text: h.Content}
	}
	return out, nil
}

func (n IndexNotes) Add(ctx context.Context, userID string, c Candidate, replaces string) (string, bool, error) {
	// Looked for again just before the write: another mneme (the chat
	// beside a script's ask) may have learnt the same fact while the model
	// decided, seconds ago.
	if kept, ok, err := n.Index.KeptNote(ctx, userID, c.Text); err != nil || ok {
		return kept.ID, ok, err
	}
	src := n.Source
	src.By, src.Confidence, src.Tags, src.Replaces = memory.SourceExtracted, c.Confidence, c.Tags, replaces
	note, err := n.Index.SaveNote(ctx, userID, c.Text, src)
	return note.ID, false, err
}

func (n IndexNotes) Update(ctx context.Context, userID, id, before, text string) error {
	_, err := n.Index.UpdateNoteFrom(memory.ChangedBy(ctx, memory.ByExtracted), userID, id, before, text)
	switch {
	case errors.Is(err, index.ErrNoteChanged):
		return fmt.Errorf("%w: %w", ErrChanged, err)
	case errors.Is(err, index.ErrSameText):
		return fmt.Errorf("%w: %w", ErrKept, err)
	}
	return err
}

func (n IndexNotes) Delete(ctx context.Context, userID, id, before string) error {
	_, err := n.Index.DeleteNoteFrom(memory.ChangedBy(ctx, memory.ByExtracted), userID, id, before)
	if errors.Is(err, index.ErrNoteChanged) {
		return fmt.Errorf("%w: %w", ErrChanged, err)
	}
	return err
}
