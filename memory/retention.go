package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// Retention is how long a user's memory keeps what is not used. A zero
// duration switches its part off.
type Retention struct {
	// ArchiveUnusedAfter archives active notes that were neither changed
	// nor used (recalled, found by memory_search) for this long and whose
	// confidence is below ArchiveBelowConfidence: learnt guesses that
	// never proved useful. What the user or the model saved (confidence 1)
	// stays.
	ArchiveUnusedAfter     time.Duration
	ArchiveBelowConfidence float64
	// DeleteArchivedAfter deletes notes archived this long ago.
	DeleteArchivedAfter time.Duration
	// ArchiveConversationsAfter archives conversations not written to for
	// this long (they stay searchable with --archived).
	ArchiveConversationsAfter time.Duration
}

// Default retention: learnt notes below confidence 0.5 that nothing used
// for 180 days are archived; nothing is deleted; conversations stay.
const (
	DefaultArchiveUnusedAfter     = 180 * 24 * time.Hour
	DefaultArchiveBelowConfidence = 0.5
)

// RetentionResult says what ApplyRetention did, and which archived notes
// are due for deletion (the caller deletes them through the search index,
// so that their vectors and keyword entries go too).
type RetentionResult struct {
	NotesArchived, ConversationsArchived int
	NotesToDelete                        []string
}

// ApplyRetention archives the user's notes and conversations that r says
// are stale, and lists the archived notes old enough to delete.
func (s *Store) ApplyRetention(ctx context.Context, userID string, r Retention) (RetentionResult, error) {
	var res RetentionResult
	if userID == "" {
		return res, ErrNoUser
	}
	now := s.now()
	err := s.write(ctx, func(tx Execer) error {
		if r.ArchiveUnusedAfter > 0 {
			cutoff := now.Add(-r.ArchiveUnusedAfter).UnixMilli()
			const stale = `user_id = ? AND status = 'active' AND deleted_at IS NULL AND confidence < ?
				AND MAX(updated_at, COALESCE((SELECT u.last_at FROM local.note_use u WHERE u.id = notes.id), 0)) < ?`
			// The history first: one status change by retention a note.
			if _, err := tx.ExecContext(ctx, `INSERT INTO note_changes (id, note_id, user_id, op, changed_by, at, before_status, after_status)
				SELECT lower(hex(randomblob(16))), id, user_id, 'status', 'retention', ?, 'active', 'archived' FROM notes WHERE `+stale,
				now.UnixMilli(), userID, r.ArchiveBelowConfidence, cutoff); err != nil {
				return fmt.Errorf("archive notes: %w", err)
			}
			out, err := tx.ExecContext(ctx, `UPDATE notes SET status = 'archived', updated_at = ? WHERE `+stale,
				now.UnixMilli(), userID, r.ArchiveBelowConfidence, cutoff)
			if err != nil {
				return fmt.Errorf("archive notes: %w", err)
			}
			n, _ := out.RowsAffected()
			res.NotesArchived = int(n)
		}
		if r.ArchiveConversationsAfter > 0 {
			out, err := tx.ExecContext(ctx, `UPDATE conversations SET archived = 1
				WHERE user_id = ? AND archived = 0 AND updated_at < ?`, userID, now.Add(-r.ArchiveConversationsAfter).UnixMilli())
			if err != nil {
				return fmt.Errorf("archive conversations: %w", err)
			}
			n, _ := out.RowsAffected()
			res.ConversationsArchived = int(n)
		}
		return nil
	})
	if err != nil || r.DeleteArchivedAfter <= 0 {
		return res, err
	}
	ids, err := s.idSet(ctx, `SELECT id FROM notes WHERE user_id = ? AND status = 'archived' AND deleted_at IS NULL AND updated_at < ?`,
		userID, now.Add(-r.DeleteArchivedAfter).UnixMilli())
	if err != nil {
		return res, fmt.Errorf("archived notes: %w", err)
	}
	for id := range ids {
		res.NotesToDelete = append(res.NotesToDelete, id)
	}
	return res, nil
}

// ListArchivedNotes returns the user's archived notes, newest first.
func (s *Store) ListArchivedNotes(ctx context.Context, userID string) ([]Note, error) {
	if userID == "" {
		return nil, ErrNoUser
	}
	notes, err := s.queryNotes(ctx, `SELECT `+noteColumns+` FROM notes n
		WHERE n.user_id = ? AND n.deleted_at IS NULL AND n.status = 'archived' ORDER BY n.updated_at DESC, n.id DESC`, userID)
	if err != nil {
		return nil, fmt.Errorf("archived notes: %w", err)
	}
	return notes, nil
}

// successor is the kept note that took the place of the one pending note
// n would replace: another proposal to replace it, approved first. n
// replaces that one in turn (two proposals for one fact, both approved, the
// later wins), or nothing when there is none.
func (s *Store) successor(ctx context.Context, n Note) (Note, error) {
	var id string
	err := s.db.QueryRowContext(ctx, `SELECT id FROM notes WHERE user_id = ? AND replaces = ? AND id != ?
		AND status = ? AND deleted_at IS NULL ORDER BY updated_at DESC LIMIT 1`, n.UserID, n.Replaces, n.ID, NoteActive).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return Note{}, nil
	}
	if err != nil {
		return Note{}, err
	}
	return s.Note(ctx, n.UserID, id)
}

// SetNoteStatus sets the status of the user's note (id or unique prefix
// of 8+ characters) and returns it. Approving a pending note that replaces
// a kept one (Note.Replaces) deletes that one in the same transaction.
func (s *Store) SetNoteStatus(ctx context.Context, userID, id, status string) (Note, error) {
	switch status {
	case NoteActive, NotePending, NoteArchived:
	default:
		return Note{}, fmt.Errorf("note status %q: %w", status, ErrInvalid)
	}
	n, err := s.noteToChange(ctx, userID, id)
	if err != nil || n.Status == status {
		return n, err // the same status: nothing written, no history
	}
	var replaced Note
	if n.Status == NotePending && status == NoteActive && n.Replaces != "" {
		// A replaced note waiting for review itself (an older proposal this
		// one merges) goes too: approved later, it would come back.
		if replaced, err = s.Note(ctx, userID, n.Replaces); errors.Is(err, ErrNoteNotFound) {
			replaced, err = s.successor(ctx, n) // gone already: replaced by another proposal
		}
		if err != nil {
			return Note{}, fmt.Errorf("note status: %w", err)
		}
	}
	err = s.write(ctx, func(tx Execer) error {
		res, err := tx.ExecContext(ctx, `UPDATE notes SET status = ?, updated_at = ? WHERE id = ? AND user_id = ? AND deleted_at IS NULL`,
			status, s.nowMS(), n.ID, userID)
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k == 0 {
			return nil
		}
		if replaced.ID != "" {
			if _, err := s.tombstone(ctx, tx, replaced); err != nil {
				return err
			}
		}
		if replaced.ID != "" && replaced.ID != n.Replaces { // what it replaces now, for undo
			if _, err := tx.ExecContext(ctx, `UPDATE notes SET replaces = ? WHERE id = ?`, replaced.ID, n.ID); err != nil {
				return err
			}
		}
		return s.recordChange(ctx, tx, noteChange{NoteID: n.ID, UserID: userID, Op: ChangeStatus,
			BeforeText: n.Content, AfterText: n.Content, BeforeStatus: n.Status, AfterStatus: status}, ByUser)
	})
	if err != nil {
		return Note{}, fmt.Errorf("note status: %w", err)
	}
	return s.Note(ctx, userID, n.ID)
}
