package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/mneme-dev/mneme/memory/internal/sqlq"
)

// RestoreNote undoes DeleteNote: the note n (as DeleteNote returned it)
// comes back under the same id, with its text, provenance and creation
// time. The tombstone is revived rather than a new note made, so that sync
// carries the undo as a newer change of the same row. When no row with
// that id exists at all, it is created with that id. Restoring a note that
// is not deleted is ErrInvalid; one of another user is ErrNoteNotFound.
//
// The restored note counts as changed now; its keyword entry and vectors
// are rebuilt (index.Index.RestoreNote does it at once).
func (s *Store) RestoreNote(ctx context.Context, userID string, n Note) (Note, error) {
	if strings.TrimSpace(userID) == "" {
		return Note{}, ErrNoUser
	}
	if strings.TrimSpace(n.ID) == "" {
		return Note{}, fmt.Errorf("restore note: no id: %w", ErrInvalid)
	}
	content, err := CheckNote(n.Content)
	if err != nil {
		return Note{}, fmt.Errorf("restore note: %w", err)
	}
	src, err := checkSource(NoteSource{By: n.Source, Confidence: n.Confidence, Tags: n.Tags})
	if err != nil {
		return Note{}, fmt.Errorf("restore note: %w", err)
	}
	now := s.nowMS()
	hash := noteHash(content)
	err = s.write(ctx, func(tx Execer) error {
		var owner string
		var deleted sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT user_id, deleted_at FROM notes WHERE id = ?`, n.ID).Scan(&owner, &deleted)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			created := now
			if !n.Created.IsZero() {
				created = n.Created.UnixMilli()
			}
			if err := ensureUser(ctx, tx, userID, now); err != nil {
				return err
			}
			_, err := tx.ExecContext(ctx, `INSERT INTO notes (id, user_id, content, conversation_id, turn_number, created_at, updated_at, hash,
				source, confidence, tags) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
				n.ID, userID, content, sqlq.NullString(n.ConversationID), sqlq.NullInt(n.ConversationID != "", n.TurnNumber), created, now, hash,
				src.By, src.Confidence, encodeTags(src.Tags))
			if err != nil {
				return err
			}
			return s.recordChange(ctx, tx, noteChange{NoteID: n.ID, UserID: userID, Op: ChangeRestore,
				AfterText: content, AfterStatus: NoteActive}, ByUser)
		case err != nil:
			return err
		case owner != userID:
			return fmt.Errorf("%w: %q", ErrNoteNotFound, n.ID)
		case !deleted.Valid:
			return fmt.Errorf("note %q is not deleted: %w", n.ID, ErrInvalid)
		}
		// Tags given win; none given (an undo) keeps those the tombstone kept.
		tags := encodeTags(src.Tags)
		_, err = tx.ExecContext(ctx, `UPDATE notes SET content = ?, hash = ?, tags = CASE WHEN ? = '[]' THEN tags ELSE ? END,
			updated_at = ?, deleted_at = NULL WHERE id = ? AND user_id = ? AND deleted_at IS NOT NULL`,
			content, hash, tags, tags, now, n.ID, userID)
		if err != nil {
			return err
		}
		var status string
		if err := tx.QueryRowContext(ctx, `SELECT status FROM notes WHERE id = ?`, n.ID).Scan(&status); err != nil {
			return err
		}
		if err := s.recordChange(ctx, tx, noteChange{NoteID: n.ID, UserID: userID, Op: ChangeRestore,
			AfterText: content, AfterStatus: status}, ByUser); err != nil {
			return err
		}
		// No keyword mark puts the note back in the keyword index's queue.
		return forgetMarks(ctx, tx, []string{n.ID})
	})
	if err != nil {
		return Note{}, fmt.Errorf("restore note: %w", err)
	}
	return s.Note(ctx, userID, n.ID)
}
