package memory

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/mneme-dev/mneme/memory/internal/sqlq"
	"github.com/mneme-dev/mneme/memory/schema"
)

// Every change of a note is recorded in note_changes (migration 8), in the
// same transaction as the change: who made it, when, and the text and
// status before and after. Package history reads it (`memory history`);
// index.Index.Undo reverts a change.

// What a change did (history.Change.Op).
const (
	ChangeCreate  = "create"
	ChangeUpdate  = "update"
	ChangeDelete  = "delete"
	ChangeRestore = "restore"
	ChangeStatus  = "status"
)

// Who made a change (history.Change.By).
const (
	ByUser      = "user"
	ByModel     = "model"
	ByExtracted = "extracted"
	ByRetention = "retention"
	ByImport    = "import"
)

type changeKey struct{}

type changeAttr struct{ by, undoes string }

// ChangedBy marks the note changes made with ctx as made by by (ByModel,
// ByExtracted, ByRetention, ...). Without it a change is the user's
// (SaveNote: the note's source).
func ChangedBy(ctx context.Context, by string) context.Context {
	a, _ := ctx.Value(changeKey{}).(changeAttr)
	a.by = by
	return context.WithValue(ctx, changeKey{}, a)
}

// Undoing marks the note changes made with ctx as the user's undo of the
// change id.
func Undoing(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, changeKey{}, changeAttr{by: ByUser, undoes: id})
}

// changeAttrOf is who ctx says makes a change; fallback when it says nothing.
func changeAttrOf(ctx context.Context, fallback string) changeAttr {
	a, _ := ctx.Value(changeKey{}).(changeAttr)
	if a.by == "" {
		a.by = fallback
	}
	return a
}

// byOfSource is who made a new note from where it comes from.
func byOfSource(src string) string {
	switch src {
	case SourceModel:
		return ByModel
	case SourceExtracted:
		return ByExtracted
	case SourceImported:
		return ByImport
	}
	return ByUser
}

// noteChange is one change to record (package history reads them).
type noteChange struct {
	NoteID, UserID, Op                               string
	BeforeText, AfterText, BeforeStatus, AfterStatus string
}

// recordChange writes c (with its id, who, when) in tx.
func (s *Store) recordChange(ctx context.Context, tx Execer, c noteChange, fallbackBy string) error {
	a := changeAttrOf(ctx, fallbackBy)
	_, err := tx.ExecContext(ctx, `INSERT INTO note_changes (id, note_id, user_id, op, changed_by, at,
		before_text, after_text, before_status, after_status, undoes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		NewID(), c.NoteID, c.UserID, c.Op, a.by, s.nowMS(), c.BeforeText, c.AfterText, c.BeforeStatus, c.AfterStatus, sqlq.NullString(a.undoes))
	return err
}

// exportChanges writes the history of the user's live notes as backup
// lines. Like the notes themselves, a deleted note's history stays out.
func (s *Store) exportChanges(ctx context.Context, userID string, put func(any) error) error {
	after := ""
	for {
		page, err := queryRows(ctx, s.db, func(r rowScanner) (schema.BackupChangeLine, error) {
			c := schema.BackupChangeLine{Type: schema.BackupChange, User: userID}
			var at int64
			err := r.Scan(&c.ID, &c.Note, &c.Op, &c.By, &at, &c.BeforeText, &c.AfterText, &c.BeforeStatus, &c.AfterStatus, &c.Undoes)
			c.At = backupTime(at)
			return c, err
		}, `SELECT c.id, c.note_id, c.op, c.changed_by, c.at, c.before_text, c.after_text, c.before_status, c.after_status,
			COALESCE(c.undoes, '')
			FROM note_changes c JOIN notes n ON n.id = c.note_id AND n.deleted_at IS NULL
			WHERE c.user_id = ? AND c.id > ? ORDER BY c.id LIMIT ?`, userID, after, exportPage)
		if err != nil {
			return err
		}
		for _, c := range page {
			if err := put(c); err != nil {
				return err
			}
		}
		if len(page) < exportPage {
			return nil
		}
		after = page[len(page)-1].ID
	}
}

// restoreChange stores a backup's change line (ids kept, idempotent).
func (imp *importer) restoreChange(ctx context.Context, b schema.BackupChangeLine) (lineErr, err error) {
	user, lerr := imp.lineUser(b.User)
	if lerr != nil {
		return lerr, nil
	}
	if err := cmp.Or(schema.CheckID("id", b.ID), schema.CheckID("note", b.Note), schema.CheckOptionalID("undoes", b.Undoes)); err != nil {
		return err, nil
	}
	switch b.Op {
	case ChangeCreate, ChangeUpdate, ChangeDelete, ChangeRestore, ChangeStatus:
	default:
		return fmt.Errorf(`"op" %q is not a change`, b.Op), nil
	}
	at, lerr := parseBackupTime("at", b.At)
	if lerr != nil {
		return lerr, nil
	}
	err = imp.s.write(ctx, func(tx Execer) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO note_changes (id, note_id, user_id, op, changed_by, at,
			before_text, after_text, before_status, after_status, undoes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
			ON CONFLICT(id) DO NOTHING`,
			b.ID, b.Note, user, b.Op, cmp.Or(b.By, ByUser), at, b.BeforeText, b.AfterText, b.BeforeStatus, b.AfterStatus, sqlq.NullString(b.Undoes))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("import note change: %w", err)
	}
	return nil, nil
}

// ForgetHistory deletes the recorded changes of the user's notes with ids,
// old texts included: a note forgotten with its conversation leaves
// nothing of itself behind (it cannot be undone). The deletes sync.
func (s *Store) ForgetHistory(ctx context.Context, userID string, ids []string) error {
	return s.write(ctx, func(tx Execer) error {
		for part := range slices.Chunk(ids, sqlq.MaxParams) {
			args := append([]any{userID}, sqlq.Args(part)...)
			if _, err := tx.ExecContext(ctx, `DELETE FROM note_changes WHERE user_id = ? AND note_id `+sqlq.In(len(part)), args...); err != nil {
				return fmt.Errorf("forget note history: %w", err)
			}
			if _, err := tx.ExecContext(ctx, `UPDATE notes SET tags = '[]' WHERE user_id = ? AND deleted_at IS NOT NULL AND id `+sqlq.In(len(part)), args...); err != nil {
				return fmt.Errorf("forget note tags: %w", err)
			}
		}
		return nil
	})
}
