package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Every change of a note is recorded in note_changes (migration 8), in the
// same transaction as the change: who made it, when, and the text and
// status before and after. The history is what `memory history` shows and
// what undo reverts (index.Index.Undo).

// What a change did (NoteChange.Op).
const (
	ChangeCreate  = "create"
	ChangeUpdate  = "update"
	ChangeDelete  = "delete"
	ChangeRestore = "restore"
	ChangeStatus  = "status"
)

// Who made a change (NoteChange.By).
const (
	ByUser      = "user"
	ByModel     = "model"
	ByExtracted = "extracted"
	ByRetention = "retention"
	ByImport    = "import"
)

// NoteChange is one recorded change of a note.
type NoteChange struct {
	ID           string    `json:"id"`
	NoteID       string    `json:"note_id"`
	UserID       string    `json:"user"`
	Op           string    `json:"op"`
	By           string    `json:"by"`
	At           time.Time `json:"at"`
	BeforeText   string    `json:"before_text,omitempty"`
	AfterText    string    `json:"after_text,omitempty"`
	BeforeStatus string    `json:"before_status,omitempty"`
	AfterStatus  string    `json:"after_status,omitempty"`
	// Undoes is the change this one reverted ("" for an ordinary change).
	Undoes string `json:"undoes,omitempty"`
	// UndoneBy is the change that reverted this one, if any (read, not stored).
	UndoneBy string `json:"undone_by,omitempty"`
}

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

// recordChange writes c (its id, user, by and time filled in) in tx.
func (s *Store) recordChange(ctx context.Context, tx Execer, c NoteChange, fallbackBy string) error {
	a := changeAttrOf(ctx, fallbackBy)
	_, err := tx.ExecContext(ctx, `INSERT INTO note_changes (id, note_id, user_id, op, changed_by, at,
		before_text, after_text, before_status, after_status, undoes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		NewID(), c.NoteID, c.UserID, c.Op, a.by, s.nowMS(), c.BeforeText, c.AfterText, c.BeforeStatus, c.AfterStatus, nullString(a.undoes))
	return err
}

const changeColumns = `c.id, c.note_id, c.user_id, c.op, c.changed_by, c.at, c.before_text, c.after_text,
	c.before_status, c.after_status, COALESCE(c.undoes, ''),
	COALESCE((SELECT u.id FROM note_changes u WHERE u.undoes = c.id ORDER BY u.at DESC, u.id DESC LIMIT 1), '')`

func scanChange(r rowScanner) (NoteChange, error) {
	var c NoteChange
	var at int64
	err := r.Scan(&c.ID, &c.NoteID, &c.UserID, &c.Op, &c.By, &at, &c.BeforeText, &c.AfterText,
		&c.BeforeStatus, &c.AfterStatus, &c.Undoes, &c.UndoneBy)
	c.At = fromMS(at)
	return c, err
}

func (s *Store) queryChanges(ctx context.Context, q string, args ...any) ([]NoteChange, error) {
	return queryRows(ctx, s.db, scanChange, q, args...)
}

// NoteHistory lists the changes of the user's note (id or unique prefix of
// at least four characters; a deleted note too), newest first.
func (s *Store) NoteHistory(ctx context.Context, userID, id string) ([]NoteChange, error) {
	if userID == "" {
		return nil, ErrNoUser
	}
	id = strings.TrimSpace(id)
	noteID, err := s.uniqueID(ctx, `SELECT DISTINCT id FROM notes WHERE user_id = ? AND id LIKE ? LIMIT 2`, userID, id)
	if errors.Is(err, ErrNotFound) {
		noteID, err = s.uniqueID(ctx, `SELECT DISTINCT note_id FROM note_changes WHERE user_id = ? AND note_id LIKE ? LIMIT 2`, userID, id)
	}
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			return nil, fmt.Errorf("%w: %q", ErrNoteNotFound, id)
		}
		return nil, fmt.Errorf("note %q: %w", id, err)
	}
	out, err := s.queryChanges(ctx, `SELECT `+changeColumns+` FROM note_changes c
		WHERE c.user_id = ? AND c.note_id = ? ORDER BY c.at DESC, c.id DESC`, userID, noteID)
	if err != nil {
		return nil, fmt.Errorf("note history: %w", err)
	}
	if out == nil {
		out = []NoteChange{}
	}
	return out, nil
}

// uniqueID runs q (user, LIKE pattern) for an exact id or a prefix of at
// least four characters: ErrNotFound, ErrAmbiguous or the one id.
func (s *Store) uniqueID(ctx context.Context, q, userID, id string) (string, error) {
	if id == "" || strings.ContainsAny(id, "%_") {
		return "", ErrNotFound
	}
	pattern := id
	if len(id) >= minPrefix {
		pattern = id + "%"
	}
	ids, err := queryRows(ctx, s.db, func(r rowScanner) (string, error) {
		var v string
		return v, r.Scan(&v)
	}, q, userID, pattern)
	if err != nil {
		return "", err
	}
	for _, v := range ids {
		if v == id {
			return v, nil
		}
	}
	switch len(ids) {
	case 0:
		return "", ErrNotFound
	case 1:
		return ids[0], nil
	}
	return "", ErrAmbiguous
}

// ErrNothingToUndo is returned when there is no change left to undo.
var ErrNothingToUndo = errors.New("nothing to undo")

// NoteChangeByID returns the user's change with that id (or unique prefix
// of at least four characters).
func (s *Store) NoteChangeByID(ctx context.Context, userID, id string) (NoteChange, error) {
	if userID == "" {
		return NoteChange{}, ErrNoUser
	}
	id = strings.TrimSpace(id)
	full, err := s.uniqueID(ctx, `SELECT id FROM note_changes WHERE user_id = ? AND id LIKE ? LIMIT 2`, userID, id)
	if err != nil {
		return NoteChange{}, fmt.Errorf("change %q: %w", id, err)
	}
	out, err := s.queryChanges(ctx, `SELECT `+changeColumns+` FROM note_changes c WHERE c.id = ?`, full)
	if err != nil || len(out) == 0 {
		return NoteChange{}, fmt.Errorf("change %q: %w", id, errors.Join(err, ErrNotFound))
	}
	return out[0], nil
}

// LastChange is the user's newest change that is neither an undo nor
// undone yet: of the note noteID, or of any note when noteID is "".
func (s *Store) LastChange(ctx context.Context, userID, noteID string) (NoteChange, error) {
	if userID == "" {
		return NoteChange{}, ErrNoUser
	}
	q := `SELECT ` + changeColumns + ` FROM note_changes c WHERE c.user_id = ? AND c.undoes IS NULL
		AND NOT EXISTS (SELECT 1 FROM note_changes u WHERE u.undoes = c.id)`
	args := []any{userID}
	if noteID != "" {
		q += ` AND c.note_id = ?`
		args = append(args, noteID)
	}
	out, err := s.queryChanges(ctx, q+` ORDER BY c.at DESC, c.id DESC LIMIT 1`, args...)
	if err != nil {
		return NoteChange{}, fmt.Errorf("last change: %w", err)
	}
	if len(out) == 0 {
		return NoteChange{}, ErrNothingToUndo
	}
	return out[0], nil
}

// NoteState returns the user's note with that exact id whether it is live
// or deleted (a tombstone: no text), and whether it is deleted.
func (s *Store) NoteState(ctx context.Context, userID, id string) (Note, bool, error) {
	var deleted sql.NullInt64
	n, err := scanNote(s.db.QueryRowContext(ctx, `SELECT `+noteColumns+` FROM notes n WHERE n.user_id = ? AND n.id = ?`,
		userID, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Note{}, false, fmt.Errorf("%w: %q", ErrNoteNotFound, id)
	}
	if err != nil {
		return Note{}, false, fmt.Errorf("note: %w", err)
	}
	err = s.db.QueryRowContext(ctx, `SELECT deleted_at FROM notes WHERE id = ?`, id).Scan(&deleted)
	return n, deleted.Valid, err
}

// exportChanges writes the history of the user's live notes as backup
// lines. Like the notes themselves, a deleted note's history stays out.
func (s *Store) exportChanges(ctx context.Context, userID string, put func(any) error) error {
	after := ""
	for {
		page, err := queryRows(ctx, s.db, func(r rowScanner) (BackupChangeLine, error) {
			c := BackupChangeLine{Type: BackupChange, User: userID}
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

// BackupChangeLine is one change of a note's history.
type BackupChangeLine struct {
	Type         string `json:"type"`
	ID           string `json:"id"`
	User         string `json:"user,omitempty"`
	Note         string `json:"note"`
	Op           string `json:"op"`
	By           string `json:"by"`
	At           string `json:"at"`
	BeforeText   string `json:"before_text,omitempty"`
	AfterText    string `json:"after_text,omitempty"`
	BeforeStatus string `json:"before_status,omitempty"`
	AfterStatus  string `json:"after_status,omitempty"`
	Undoes       string `json:"undoes,omitempty"`
}

// restoreChange stores a backup's change line (ids kept, idempotent).
func (imp *importer) restoreChange(ctx context.Context, b BackupChangeLine) (lineErr, err error) {
	user, lerr := imp.lineUser(b.User)
	if lerr != nil {
		return lerr, nil
	}
	if strings.TrimSpace(b.ID) == "" || strings.TrimSpace(b.Note) == "" {
		return errors.New(`missing "id" or "note"`), nil
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
			b.ID, b.Note, user, b.Op, first(b.By, ByUser), at, b.BeforeText, b.AfterText, b.BeforeStatus, b.AfterStatus, nullString(b.Undoes))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("import note change: %w", err)
	}
	return nil, nil
}
