package memory

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/memory/internal/sqlq"
	"github.com/mneme-dev/mneme/memory/vector"
)

// MaxNoteRunes bounds the text of a note.
const MaxNoteRunes = 2000

// Note is a fact saved on purpose, by the model with a tool or by the user
// from the command line. Notes are searched like turns.
type Note struct {
	ID      string `json:"id"`
	UserID  string `json:"user"`
	Content string `json:"content"`
	// ConversationID and TurnNumber say where the note was saved from;
	// both are empty for a note added outside a conversation.
	ConversationID string `json:"conversation_id,omitempty"`
	TurnNumber     int    `json:"turn_number,omitempty"`
	// Source says who made the note (SourceUser, SourceModel,
	// SourceExtracted, SourceImported); Confidence how sure it is (0-1;
	// 1 for what the user or the model saved); Tags are lower-case topics.
	Source     string   `json:"source"`
	Confidence float64  `json:"confidence"`
	Tags       []string `json:"tags"`
	// Status is NoteActive, NotePending or NoteArchived.
	Status string `json:"status"`
	// Replaces is the kept note a pending note would replace when approved
	// (a refinement or a contradiction learnt for review), or "".
	Replaces string    `json:"replaces,omitempty"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
	// AccessCount and LastAccessed say how often, and when last, this
	// device recalled the note into a prompt or returned it from
	// memory_search (local state, not synced).
	AccessCount  int        `json:"access_count"`
	LastAccessed *time.Time `json:"last_accessed_at,omitempty"`
	Hash         string     `json:"-"`
}

// What a note is for now (Note.Status).
const (
	// NoteActive: in use, recalled when relevant.
	NoteActive = "active"
	// NotePending: learnt, waiting for the user's review; never recalled.
	NotePending = "pending"
	// NoteArchived: put away by the user or by retention; kept and listed
	// with --archived, never recalled.
	NoteArchived = "archived"
)

// Who made a note (Note.Source).
const (
	// SourceUser: typed by the user (`memory add`, the memory browser).
	SourceUser = "user"
	// SourceModel: saved by the chat model with a memory tool.
	SourceModel = "model"
	// SourceExtracted: learnt from a turn by extraction (package learn).
	SourceExtracted = "extracted"
	// SourceImported: brought in from a file.
	SourceImported = "imported"
)

// NoteSource is where a note is saved from and who made it.
type NoteSource struct {
	ConversationID string
	TurnNumber     int
	// By is who made the note; "" is SourceUser.
	By string
	// Confidence is used for extracted and imported notes (0-1); user and
	// model notes always have 1.
	Confidence float64
	// Tags are cleaned by CheckTags.
	Tags []string
	// Pending saves the note for the user's review (NotePending): never
	// recalled until approved. Replaces is the kept note it would replace.
	Pending  bool
	Replaces string
}

// Limits on a note's tags.
const (
	MaxNoteTags    = 8
	MaxNoteTagRune = 32
)

// CheckTags cleans tags the way the store keeps them: lower case, inner
// space as "-", no empty or repeated tag, each at most MaxNoteTagRune
// characters, at most MaxNoteTags of them.
func CheckTags(tags []string) ([]string, error) {
	out := []string{}
	for _, t := range tags {
		t = strings.Map(func(r rune) rune {
			if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
				return -1 // bidi controls: a tag is plain words
			}
			return r
		}, sanitize.Line(cleanText(t))) // a whole escape sequence goes, not only its ESC
		t = strings.ToLower(strings.Join(strings.Fields(t), "-"))
		switch {
		case t == "" || slices.Contains(out, t):
			continue
		case utf8.RuneCountInString(t) > MaxNoteTagRune:
			return nil, Invalid("tag %q is longer than %d characters", t, MaxNoteTagRune)
		case len(out) == MaxNoteTags:
			return nil, Invalid("at most %d tags", MaxNoteTags)
		}
		out = append(out, t)
	}
	return out, nil
}

// checkSource fills in and checks who made a note and how sure it is.
func checkSource(src NoteSource) (NoteSource, error) {
	switch src.By {
	case "":
		src.By = SourceUser
		fallthrough
	case SourceUser, SourceModel:
		src.Confidence = 1
	case SourceExtracted, SourceImported:
		if src.Confidence < 0 || src.Confidence > 1 || math.IsNaN(src.Confidence) {
			return src, Invalid("confidence %v outside 0-1", src.Confidence)
		}
	default:
		return src, Invalid("unknown note source %q", src.By)
	}
	tags, err := CheckTags(src.Tags)
	src.Tags = tags
	return src, err
}

func encodeTags(tags []string) string {
	if len(tags) == 0 {
		return "[]"
	}
	b, _ := json.Marshal(tags)
	return string(b)
}

// HasTag reports whether the note carries tag (compared as CheckTags cleans it).
func (n Note) HasTag(tag string) bool {
	clean, err := CheckTags([]string{tag})
	return err == nil && len(clean) == 1 && slices.Contains(n.Tags, clean[0])
}

// CheckNote cleans a note's text the way the store writes it and checks
// its length: 1-2000 characters once surrounding space is trimmed. A note
// is plain text: escape sequences, control characters and bidi controls
// go (sanitize.Text), so that what is recalled into prompts and synced is
// what the user reviewed (the screen showed "red evil" of a stored
// "\x1b[31mred\x1b[0m \u202eevil").
func CheckNote(content string) (string, error) {
	content = strings.TrimSpace(strings.Map(func(r rune) rune {
		if r >= 0xE0000 && r <= 0xE007F {
			return -1 // Unicode tags: invisible, yet read by models ("ASCII smuggling")
		}
		return r
	}, sanitize.Text(cleanText(content))))
	switch n := utf8.RuneCountInString(content); {
	case n == 0:
		return "", Invalid("note is empty")
	case n > MaxNoteRunes:
		return "", Invalid("note is %d characters, at most %d are allowed", n, MaxNoteRunes)
	}
	return content, nil
}

func noteHash(content string) string {
	sum := sha256.Sum256([]byte(content))
	return hex.EncodeToString(sum[:16])
}

const noteColumns = `n.id, n.user_id, n.content, COALESCE(n.conversation_id, ''), COALESCE(n.turn_number, 0),
	n.created_at, n.updated_at, n.hash, n.source, n.confidence, n.tags, n.status, n.replaces,
	COALESCE((SELECT u.count FROM local.note_use u WHERE u.id = n.id), 0),
	COALESCE((SELECT u.last_at FROM local.note_use u WHERE u.id = n.id), 0)`

func scanNote(row interface{ Scan(...any) error }) (Note, error) {
	var n Note
	var created, updated int64
	var tags string
	var accessed int64
	if err := row.Scan(&n.ID, &n.UserID, &n.Content, &n.ConversationID, &n.TurnNumber, &created, &updated, &n.Hash,
		&n.Source, &n.Confidence, &tags, &n.Status, &n.Replaces, &n.AccessCount, &accessed); err != nil {
		return Note{}, err
	}
	n.Created, n.Updated = fromMS(created), fromMS(updated)
	if accessed > 0 {
		t := fromMS(accessed)
		n.LastAccessed = &t
	}
	// Tags another device wrote badly are read as none rather than failing the read.
	if json.Unmarshal([]byte(tags), &n.Tags) != nil || n.Tags == nil {
		n.Tags = []string{}
	}
	return n, nil
}

func (s *Store) queryNotes(ctx context.Context, q string, args ...any) ([]Note, error) {
	return queryRows(ctx, s.db, func(r rowScanner) (Note, error) { return scanNote(r) }, q, args...)
}

// SaveNote stores a new note for userID.
func (s *Store) SaveNote(ctx context.Context, userID, content string, src NoteSource) (Note, error) {
	if strings.TrimSpace(userID) == "" {
		return Note{}, ErrNoUser
	}
	content, err := CheckNote(content)
	if err != nil {
		return Note{}, fmt.Errorf("save note: %w", err)
	}
	if src, err = checkSource(src); err != nil {
		return Note{}, fmt.Errorf("save note: %w", err)
	}
	now := s.nowMS()
	n := Note{
		ID: NewID(), UserID: userID, Content: content, ConversationID: src.ConversationID, TurnNumber: src.TurnNumber,
		Source: src.By, Confidence: src.Confidence, Tags: src.Tags,
		Created: fromMS(now), Updated: fromMS(now), Hash: noteHash(content),
	}
	if n.ConversationID == "" {
		n.TurnNumber = 0
	}
	n.Status = NoteActive
	if src.Pending {
		n.Status, n.Replaces = NotePending, src.Replaces
	}
	err = s.write(ctx, func(tx Execer) error {
		if err := ensureUser(ctx, tx, userID, now); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO notes (id, user_id, content, conversation_id, turn_number, created_at, updated_at, hash,
			source, confidence, tags, status, replaces) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			n.ID, userID, n.Content, sqlq.NullString(n.ConversationID), sqlq.NullInt(n.ConversationID != "", n.TurnNumber), now, now, n.Hash,
			n.Source, n.Confidence, encodeTags(n.Tags), n.Status, n.Replaces)
		if err != nil {
			return err
		}
		return s.recordChange(ctx, tx, noteChange{NoteID: n.ID, UserID: userID, Op: ChangeCreate,
			AfterText: n.Content, AfterStatus: n.Status}, byOfSource(n.Source))
	})
	if err != nil {
		return Note{}, fmt.Errorf("save note: %w", err)
	}
	return n, nil
}

// Note returns the user's live note with the given id, or with a unique id
// prefix of at least four characters. A deleted note, or one of another
// user, is ErrNoteNotFound.
func (s *Store) Note(ctx context.Context, userID, id string) (Note, error) {
	if userID == "" {
		return Note{}, ErrNoUser
	}
	id = strings.TrimSpace(id)
	if !utf8.ValidString(id) { // no id is; the driver refuses to look
		return Note{}, fmt.Errorf("%w: %q", ErrNoteNotFound, id)
	}
	n, err := scanNote(s.db.QueryRowContext(ctx,
		`SELECT `+noteColumns+` FROM notes n WHERE n.user_id = ? AND n.id = ? AND n.deleted_at IS NULL`, userID, id))
	if err == nil {
		return n, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return Note{}, fmt.Errorf("note: %w", err)
	}
	if len(id) < minPrefix || strings.ContainsAny(id, "%_") {
		return Note{}, fmt.Errorf("%w: %q", ErrNoteNotFound, id)
	}
	found, err := s.queryNotes(ctx, `SELECT `+noteColumns+` FROM notes n
		WHERE n.user_id = ? AND n.id LIKE ? AND n.deleted_at IS NULL LIMIT 2`, userID, id+"%")
	if err != nil {
		return Note{}, fmt.Errorf("note: %w", err)
	}
	switch len(found) {
	case 0:
		return Note{}, fmt.Errorf("%w: %q", ErrNoteNotFound, id)
	case 1:
		return found[0], nil
	default:
		return Note{}, fmt.Errorf("note %q: %w", id, ErrAmbiguous)
	}
}

// ListNotes lists the user's notes, most recently changed first.
func (s *Store) ListNotes(ctx context.Context, userID string) ([]Note, error) {
	if userID == "" {
		return nil, ErrNoUser
	}
	notes, err := s.queryNotes(ctx, `SELECT `+noteColumns+` FROM notes n
		WHERE n.user_id = ? AND n.deleted_at IS NULL AND n.status != 'archived' ORDER BY n.updated_at DESC, n.id DESC`, userID)
	if err != nil {
		return nil, fmt.Errorf("list notes: %w", err)
	}
	if notes == nil {
		notes = []Note{}
	}
	return notes, nil
}

// noteToChange is Note for UpdateNote and DeleteNote: a prefix must have
// at least MinChangePrefix characters.
func (s *Store) noteToChange(ctx context.Context, userID, id string) (Note, error) {
	id = strings.TrimSpace(id)
	n, err := s.Note(ctx, userID, id)
	if len(id) < MinChangePrefix && (err != nil || n.ID != id) {
		return Note{}, fmt.Errorf("note %q: %w", id, ErrShortPrefix)
	}
	return n, err
}

// UpdateNote replaces the text of the user's note (id or unique prefix of
// at least MinChangePrefix characters),
// keeping its id and provenance. Its old vectors are dropped; the keyword
// index and the embeddings catch up with the new text.
func (s *Store) UpdateNote(ctx context.Context, userID, id, content string) (Note, error) {
	content, err := CheckNote(content)
	if err != nil {
		return Note{}, fmt.Errorf("update note: %w", err)
	}
	n, err := s.noteToChange(ctx, userID, id)
	if err != nil || n.Content == content {
		return n, err // the same text: nothing written, no history
	}
	now := s.nowMS()
	before, beforeHash := n.Content, n.Hash
	n.Content, n.Hash, n.Updated = content, noteHash(content), fromMS(now)
	err = s.write(ctx, func(tx Execer) error {
		// Only over the text read: a change made meanwhile (another mneme)
		// is not overwritten unseen, nor recorded with the wrong before.
		res, err := tx.ExecContext(ctx, `UPDATE notes SET content = ?, hash = ?, updated_at = ?
			WHERE id = ? AND user_id = ? AND deleted_at IS NULL AND hash = ?`, n.Content, n.Hash, now, n.ID, userID, beforeHash)
		if err != nil {
			return err
		}
		if k, _ := res.RowsAffected(); k == 0 {
			return fmt.Errorf("%w: %q (changed or deleted meanwhile)", ErrNoteNotFound, id)
		}
		if _, err = tx.ExecContext(ctx, `DELETE FROM embeddings WHERE owner_id = ?`, n.ID); err != nil {
			return err
		}
		return s.recordChange(ctx, tx, noteChange{NoteID: n.ID, UserID: userID, Op: ChangeUpdate,
			BeforeText: before, AfterText: n.Content, BeforeStatus: n.Status, AfterStatus: n.Status}, ByUser)
	})
	if err != nil {
		return Note{}, fmt.Errorf("update note: %w", err)
	}
	return n, nil
}

// DeleteNote deletes the user's note (id or unique prefix of at least
// MinChangePrefix characters) and its vectors,
// and returns it as it was. The row stays as a tombstone with no content.
func (s *Store) DeleteNote(ctx context.Context, userID, id string) (Note, error) {
	n, err := s.noteToChange(ctx, userID, id)
	if err != nil {
		return Note{}, err
	}
	err = s.write(ctx, func(tx Execer) error {
		deleted, err := s.tombstone(ctx, tx, n)
		if err == nil && !deleted {
			err = fmt.Errorf("%w: %q", ErrNoteNotFound, id)
		}
		return err
	})
	if err != nil {
		return Note{}, fmt.Errorf("delete note: %w", err)
	}
	return n, nil
}

// tombstone deletes the live note n in tx, its vectors and content with
// it, and records the change; deleted is false when n was no longer live.
func (s *Store) tombstone(ctx context.Context, tx Execer, n Note) (deleted bool, err error) {
	now := s.nowMS()
	// Tags stay with the tombstone for undo; ForgetHistory clears them.
	res, err := tx.ExecContext(ctx, `UPDATE notes SET content = '', hash = '', updated_at = ?, deleted_at = ?
		WHERE id = ? AND user_id = ? AND deleted_at IS NULL`, now, now, n.ID, n.UserID)
	if err != nil {
		return false, err
	}
	if k, _ := res.RowsAffected(); k == 0 {
		return false, nil
	}
	if _, err = tx.ExecContext(ctx, `DELETE FROM embeddings WHERE owner_id = ?`, n.ID); err != nil {
		return false, err
	}
	return true, s.recordChange(ctx, tx, noteChange{NoteID: n.ID, UserID: n.UserID, Op: ChangeDelete,
		BeforeText: n.Content, BeforeStatus: n.Status}, ByUser)
}

// NotesByID returns the user's live notes with the given ids.
func (s *Store) NotesByID(ctx context.Context, userID string, ids []string) (map[string]Note, error) {
	notes, err := sqlq.InChunks(ids, func(part []string) ([]Note, error) {
		return s.queryNotes(ctx, `SELECT `+noteColumns+` FROM notes n
			WHERE n.user_id = ? AND n.deleted_at IS NULL AND n.id `+sqlq.In(len(part)), append([]any{userID}, sqlq.Args(part)...)...)
	})
	if err != nil {
		return nil, fmt.Errorf("notes: %w", err)
	}
	return byID(notes, func(n Note) string { return n.ID }), nil
}

// LiveNotes returns the live notes with the given ids, whoever owns them
// (index maintenance after a sync).
func (s *Store) LiveNotes(ctx context.Context, ids []string) ([]Note, error) {
	notes, err := sqlq.InChunks(ids, func(part []string) ([]Note, error) {
		return s.queryNotes(ctx, `SELECT `+noteColumns+` FROM notes n WHERE n.deleted_at IS NULL AND n.id `+sqlq.In(len(part)), sqlq.Args(part)...)
	})
	if err != nil {
		return nil, fmt.Errorf("notes: %w", err)
	}
	return notes, nil
}

// NotesNeedingKeywordIndex returns live notes whose text is not in the keyword index yet.
func (s *Store) NotesNeedingKeywordIndex(ctx context.Context, limit int) ([]Note, error) {
	notes, err := s.queryNotes(ctx, `SELECT `+noteColumns+` FROM notes n
		LEFT JOIN local.keyword_marks m ON m.kind = 'note' AND m.id = n.id
		WHERE n.deleted_at IS NULL AND COALESCE(m.hash, '') != n.hash LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("notes to index: %w", err)
	}
	return notes, nil
}

// LiveNotesFrom returns every note not deleted, of every user, in id
// order after the id after (for a rebuild of the keyword index).
func (s *Store) LiveNotesFrom(ctx context.Context, after string, limit int) ([]Note, error) {
	return s.queryNotes(ctx, `SELECT `+noteColumns+` FROM notes n WHERE n.deleted_at IS NULL AND n.id > ? ORDER BY n.id LIMIT ?`, after, limit)
}

// DeletedNotesInKeywordIndex returns the ids of deleted notes still in the keyword index.
func (s *Store) DeletedNotesInKeywordIndex(ctx context.Context, limit int) ([]string, error) {
	ids, err := sqlq.Strings(s.db.QueryContext(ctx, `SELECT n.id FROM notes n JOIN local.keyword_marks m ON m.kind = 'note' AND m.id = n.id
		WHERE n.deleted_at IS NOT NULL AND m.hash != '' LIMIT ?`, limit))
	if err != nil {
		return nil, fmt.Errorf("deleted notes: %w", err)
	}
	return ids, nil
}

// MarkNotesKeywordIndexed records that these notes' current text is in the
// keyword index; a note changed since it was read stays pending.
func (s *Store) MarkNotesKeywordIndexed(ctx context.Context, notes []Note) error {
	return s.writeLocal(ctx, func(tx Execer) error {
		for _, n := range notes {
			if _, err := tx.ExecContext(ctx, `INSERT INTO local.keyword_marks (kind, id, hash)
				SELECT 'note', id, hash FROM notes WHERE id = ? AND hash = ? AND deleted_at IS NULL
				ON CONFLICT(kind, id) DO UPDATE SET hash = excluded.hash`, n.ID, n.Hash); err != nil {
				return fmt.Errorf("mark note indexed: %w", err)
			}
		}
		return nil
	})
}

// MarkNotesKeywordRemoved records that deleted notes left the keyword index.
func (s *Store) MarkNotesKeywordRemoved(ctx context.Context, ids []string) error {
	return s.writeLocal(ctx, func(tx Execer) error {
		for _, id := range ids {
			if _, err := tx.ExecContext(ctx, `DELETE FROM local.keyword_marks WHERE kind = 'note' AND id = ?
				AND EXISTS (SELECT 1 FROM notes WHERE id = ? AND deleted_at IS NOT NULL)`, id, id); err != nil {
				return fmt.Errorf("mark note removed: %w", err)
			}
		}
		return nil
	})
}

// NotesNeedingEmbedding returns live notes with no vectors under model for their current text.
func (s *Store) NotesNeedingEmbedding(ctx context.Context, model string, limit int) ([]Note, error) {
	notes, err := s.queryNotes(ctx, `SELECT `+noteColumns+` FROM notes n WHERE n.deleted_at IS NULL AND `+notEmbedded("n")+`
		ORDER BY n.updated_at DESC LIMIT ?`, model, limit)
	if err != nil {
		return nil, fmt.Errorf("notes to embed: %w", err)
	}
	return notes, nil
}

// NoteVectors calls fn with every vector of the user's live notes under
// model that was made from the note's current text.
func (s *Store) NoteVectors(ctx context.Context, userID, model string, fn func(StoredVector) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT e.owner_id, e.chunk, e.vector FROM notes n
		JOIN embeddings e ON e.owner_id = n.id AND e.model = ? AND e.hash = n.hash
		WHERE n.user_id = ? AND n.deleted_at IS NULL`, model, userID)
	if err != nil {
		return fmt.Errorf("note vectors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		sv := StoredVector{Kind: OwnerNote}
		var blob []byte
		if err := rows.Scan(&sv.OwnerID, &sv.Chunk, &blob); err != nil {
			return fmt.Errorf("note vectors: %w", err)
		}
		if sv.Vector, err = vector.DecodeF32(blob); err != nil {
			return fmt.Errorf("vectors of note %s: %w", sv.OwnerID, err)
		}
		if err := fn(sv); err != nil {
			return err
		}
	}
	return rows.Err()
}
