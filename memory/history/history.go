// Package history reads the history of notes: the rows package memory
// writes to note_changes in the same transaction as each change of a note
// (memory/note_history.go). index.Index.Undo reverts a change with it.
package history

import (
	"cmp"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/mneme-dev/mneme/memory"
)

// What a change did (Change.Op).
const (
	Create  = memory.ChangeCreate
	Update  = memory.ChangeUpdate
	Delete  = memory.ChangeDelete
	Restore = memory.ChangeRestore
	Status  = memory.ChangeStatus
)

// Change is one recorded change of a note.
type Change struct {
	ID           string    `json:"id"`
	NoteID       string    `json:"note_id"`
	UserID       string    `json:"user"`
	Op           string    `json:"op"`
	By           string    `json:"by"` // memory.ByUser, ByModel, ByExtracted, ByRetention, ByImport
	At           time.Time `json:"at"`
	BeforeText   string    `json:"before_text,omitempty"`
	AfterText    string    `json:"after_text,omitempty"`
	BeforeStatus string    `json:"before_status,omitempty"`
	AfterStatus  string    `json:"after_status,omitempty"`
	// Undoes is the change this one reverted ("" for an ordinary change).
	Undoes string `json:"undoes,omitempty"`
	// UndoneBy is the change that reverted this one, if any.
	UndoneBy string `json:"undone_by,omitempty"`
}

// ErrNothingToUndo is returned when there is no change left to undo.
var ErrNothingToUndo = errors.New("nothing to undo")

// minPrefix is the shortest id prefix accepted in place of a full id: an
// undo is a change, and the first characters of a UUIDv7 are its time.
const minPrefix = memory.MinChangePrefix

const columns = `c.id, c.note_id, c.user_id, c.op, c.changed_by, c.at, c.before_text, c.after_text,
	c.before_status, c.after_status, COALESCE(c.undoes, ''),
	COALESCE((SELECT u.id FROM note_changes u WHERE u.undoes = c.id ORDER BY u.at DESC, u.id DESC LIMIT 1), '')`

func query(ctx context.Context, s *memory.Store, q string, args ...any) ([]Change, error) {
	rows, err := s.DB().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Change{}
	for rows.Next() {
		var c Change
		var at int64
		if err := rows.Scan(&c.ID, &c.NoteID, &c.UserID, &c.Op, &c.By, &at, &c.BeforeText, &c.AfterText,
			&c.BeforeStatus, &c.AfterStatus, &c.Undoes, &c.UndoneBy); err != nil {
			return nil, err
		}
		c.At = time.UnixMilli(at)
		// The words of a change come from any device's sync: only words
		// mneme writes are shown as they are.
		c.Op, c.By = known(c.Op), known(c.By)
		c.BeforeStatus, c.AfterStatus = known(c.BeforeStatus), known(c.AfterStatus)
		out = append(out, c)
	}
	return out, rows.Err()
}

// Of lists the changes of the user's note (id or unique prefix of at least
// four characters; a deleted note too), newest first.
func Of(ctx context.Context, s *memory.Store, userID, id string) ([]Change, error) {
	if userID == "" {
		return nil, memory.ErrNoUser
	}
	id = strings.TrimSpace(id)
	noteID, err := uniqueID(ctx, s, `SELECT DISTINCT id FROM notes WHERE user_id = ? AND id LIKE ? LIMIT 2`, userID, id)
	if errors.Is(err, memory.ErrNotFound) {
		noteID, err = uniqueID(ctx, s, `SELECT DISTINCT note_id FROM note_changes WHERE user_id = ? AND note_id LIKE ? LIMIT 2`, userID, id)
	}
	if errors.Is(err, memory.ErrNotFound) {
		return nil, fmt.Errorf("%w: %q", memory.ErrNoteNotFound, id)
	}
	if err != nil {
		return nil, fmt.Errorf("note %q: %w", id, err)
	}
	out, err := query(ctx, s, `SELECT `+columns+` FROM note_changes c
		WHERE c.user_id = ? AND c.note_id = ? ORDER BY c.at DESC, c.id DESC`, userID, noteID)
	if err != nil {
		return nil, fmt.Errorf("note history: %w", err)
	}
	return out, nil
}

// uniqueID runs q (user, LIKE pattern) for an exact id or a prefix of at
// least four characters: memory.ErrNotFound, memory.ErrAmbiguous or the id.
func uniqueID(ctx context.Context, s *memory.Store, q, userID, id string) (string, error) {
	if id == "" || strings.ContainsAny(id, "%_") || !utf8.ValidString(id) {
		return "", memory.ErrNotFound
	}
	pattern := id
	if len(id) >= minPrefix {
		pattern = id + "%"
	}
	rows, err := s.DB().QueryContext(ctx, q, userID, pattern)
	if err != nil {
		return "", err
	}
	defer rows.Close()
	var ids []string
	for rows.Next() {
		var v string
		if err := rows.Scan(&v); err != nil {
			return "", err
		}
		if v == id {
			return v, nil
		}
		ids = append(ids, v)
	}
	if err := rows.Err(); err != nil {
		return "", err
	}
	switch {
	case len(ids) == 0 && len(id) < minPrefix:
		return "", fmt.Errorf("%w (an id prefix needs %d characters)", memory.ErrNotFound, minPrefix)
	case len(ids) == 0:
		return "", memory.ErrNotFound
	case len(ids) == 1:
		return ids[0], nil
	}
	return "", memory.ErrAmbiguous
}

// ShortID is how much of the change id a listing shows: its first 13
// characters (the millisecond it was made), or more when another change
// of the user's shares them (an approval of many notes at once), so that
// what is shown names it (ByID, `memory undo`). A failure shows it whole.
func ShortID(ctx context.Context, s *memory.Store, userID, id string) string {
	for _, n := range []int{13, 18, 23} {
		if len(id) <= n {
			break
		}
		var count int
		err := s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM (SELECT 1 FROM note_changes WHERE user_id = ? AND id LIKE ? LIMIT 2)`,
			userID, id[:n]+"%").Scan(&count)
		if err != nil {
			break
		}
		if count == 1 {
			return id[:n]
		}
	}
	return id
}

// Named is the change as a sentence names it: whose, and what ("your
// edit", "learning's new note", "the model's delete").
func (c Change) Named() string {
	whose := map[string]string{memory.ByUser: "your", memory.ByModel: "the model's", memory.ByExtracted: "learning's",
		memory.ByRetention: "retention's", memory.ByImport: "the import's"}[c.By]
	what := map[string]string{memory.ChangeCreate: "new note", memory.ChangeUpdate: "edit", memory.ChangeDelete: "delete",
		memory.ChangeRestore: "restore", memory.ChangeStatus: "status change"}[c.Op]
	return cmp.Or(whose, "the "+c.By+"'s") + " " + cmp.Or(what, c.Op)
}

// ByID returns the user's change with that id (or unique prefix of at
// least four characters).
func ByID(ctx context.Context, s *memory.Store, userID, id string) (Change, error) {
	if userID == "" {
		return Change{}, memory.ErrNoUser
	}
	id = strings.TrimSpace(id)
	full, err := uniqueID(ctx, s, `SELECT id FROM note_changes WHERE user_id = ? AND id LIKE ? LIMIT 2`, userID, id)
	if err != nil {
		return Change{}, fmt.Errorf("change %q: %w", id, err)
	}
	out, err := query(ctx, s, `SELECT `+columns+` FROM note_changes c WHERE c.id = ?`, full)
	if err != nil || len(out) == 0 {
		return Change{}, fmt.Errorf("change %q: %w", id, errors.Join(err, memory.ErrNotFound))
	}
	return out[0], nil
}

// Last is the user's newest change that is neither an undo nor undone
// yet: of the note noteID, or of any note when noteID is "".
func Last(ctx context.Context, s *memory.Store, userID, noteID string) (Change, error) {
	if userID == "" {
		return Change{}, memory.ErrNoUser
	}
	q := `SELECT ` + columns + ` FROM note_changes c WHERE c.user_id = ? AND c.undoes IS NULL
		AND NOT EXISTS (SELECT 1 FROM note_changes u WHERE u.undoes = c.id)`
	args := []any{userID}
	if noteID != "" {
		q += ` AND c.note_id = ?`
		args = append(args, noteID)
	}
	out, err := query(ctx, s, q+` ORDER BY c.at DESC, c.id DESC LIMIT 1`, args...)
	if err != nil {
		return Change{}, fmt.Errorf("last change: %w", err)
	}
	if len(out) == 0 {
		return Change{}, ErrNothingToUndo
	}
	return out[0], nil
}

// State is the user's note with that exact id as it is now: live (with its
// fields) or deleted (a tombstone: the id and status only).
func State(ctx context.Context, s *memory.Store, userID, id string) (n memory.Note, deleted bool, err error) {
	var status string
	err = s.DB().QueryRowContext(ctx, `SELECT deleted_at IS NOT NULL, status FROM notes WHERE user_id = ? AND id = ?`,
		userID, id).Scan(&deleted, &status)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return memory.Note{}, false, fmt.Errorf("%w: %q", memory.ErrNoteNotFound, id)
	case err != nil:
		return memory.Note{}, false, fmt.Errorf("note: %w", err)
	case deleted:
		return memory.Note{ID: id, UserID: userID, Status: status}, true, nil
	}
	n, err = s.Note(ctx, userID, id)
	return n, false, err
}

// known is s when it is a plain lower-case word, else "unknown".
func known(s string) string {
	for _, r := range s {
		if (r < 'a' || r > 'z') && r != '-' && r != '_' {
			return "unknown"
		}
	}
	return s
}
