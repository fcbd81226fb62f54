package index

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/history"
)

// Undo reverts one recorded change of the user's notes (history.Change)
// through the index, so that search stays in step: the change named by ref
// (id or unique prefix), or when ref is "" the newest change not undone yet
// (of the note noteID, or of any note when noteID is ""). A create is undone
// by deleting the note, a delete by restoring it, an update by putting the
// text before back, a status change by the status before. The undo is
// recorded as a change by the user that undoes the reverted one.
//
// A change whose note has changed since is not reverted (memory.ErrInvalid):
// undo the later change first.
func (ix *Index) Undo(ctx context.Context, userID, ref, noteID string) (history.Change, memory.Note, error) {
	var c history.Change
	var err error
	if ref != "" {
		c, err = history.ByID(ctx, ix.store, userID, ref)
	} else {
		c, err = history.Last(ctx, ix.store, userID, noteID)
	}
	if err != nil {
		return c, memory.Note{}, err
	}
	if c.UndoneBy != "" {
		return c, memory.Note{}, memory.Invalid("change %s was undone already", short(c.ID))
	}
	cur, deleted, err := history.State(ctx, ix.store, userID, c.NoteID)
	if err != nil {
		return c, memory.Note{}, err
	}
	changed := func() error {
		return memory.Invalid("note %s changed after change %s; undo the later change first", short(c.NoteID), short(c.ID))
	}
	uctx := memory.Undoing(ctx, c.ID)
	var n memory.Note
	switch c.Op {
	case memory.ChangeCreate, memory.ChangeRestore:
		if deleted {
			return c, memory.Note{}, changed()
		}
		n, err = ix.DeleteNote(uctx, userID, c.NoteID)
	case memory.ChangeUpdate:
		if deleted || cur.Content != c.AfterText {
			return c, memory.Note{}, changed()
		}
		n, err = ix.updateNote(uctx, userID, c.NoteID, c.BeforeText)
	case memory.ChangeDelete:
		if !deleted {
			return c, memory.Note{}, changed()
		}
		cur.Content = c.BeforeText
		n, err = ix.RestoreNote(uctx, userID, cur)
		if err == nil && c.BeforeStatus != "" && n.Status != c.BeforeStatus {
			n, err = ix.store.SetNoteStatus(uctx, userID, n.ID, c.BeforeStatus)
		}
	case memory.ChangeStatus:
		if deleted || cur.Status != c.AfterStatus {
			return c, memory.Note{}, changed()
		}
		n, err = ix.store.SetNoteStatus(uctx, userID, c.NoteID, c.BeforeStatus)
		if err == nil && c.BeforeStatus == memory.NotePending && cur.Replaces != "" {
			err = ix.undoReplaced(ctx, userID, cur.Replaces, c.At)
		}
	default:
		return c, memory.Note{}, memory.Invalid("change %s (%s) cannot be undone", short(c.ID), c.Op)
	}
	if err != nil {
		return c, memory.Note{}, fmt.Errorf("undo: %w", err)
	}
	return c, n, nil
}

// undoReplaced brings back the note an approval (at) deleted because the
// approved note replaced it: undoing the approval undoes the whole review.
// A note changed since, or deleted otherwise, is left as it is.
func (ix *Index) undoReplaced(ctx context.Context, userID, id string, at time.Time) error {
	hist, err := history.Of(ctx, ix.store, userID, id)
	if err != nil || len(hist) == 0 {
		return nil // gone for good: nothing to bring back
	}
	last := hist[0]
	if last.Op != memory.ChangeDelete || last.UndoneBy != "" || last.At.Sub(at).Abs() > time.Second {
		return nil
	}
	_, _, err = ix.Undo(ctx, userID, last.ID, id)
	return err
}

// NoteHistory lists a note's changes, newest first (history.Of).
func (ix *Index) NoteHistory(ctx context.Context, userID, id string) ([]history.Change, error) {
	return history.Of(ctx, ix.store, userID, id)
}

// SetNoteStatus sets a note's status (memory.Store.SetNoteStatus); the
// memory browser and `memory approve` approve pending notes with it. The
// kept note an approved one replaces leaves search with it.
func (ix *Index) SetNoteStatus(ctx context.Context, userID, id, status string) (memory.Note, error) {
	n, err := ix.store.SetNoteStatus(ctx, userID, id, status)
	if err != nil || n.Replaces == "" || n.Status != memory.NoteActive {
		return n, err
	}
	if _, err := ix.store.Note(ctx, userID, n.Replaces); errors.Is(err, memory.ErrNoteNotFound) {
		ix.forgetNoteKeywords(ctx, n.Replaces)
	}
	return n, nil
}

// short is the part of an id a message names it by.
func short(id string) string { return text.Prefix(id, 13) } // a UUIDv7 to the millisecond
