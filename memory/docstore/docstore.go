// Package docstore keeps the documents a user added (`mneme docs add`) in
// mneme's libSQL store: one row per file and the chunks the index holds.
// The tables (schema migration 9) sync like notes; what the keyword index
// holds of them is local state (local.doc_marks), like the other keyword
// marks (memory/local.go).
package docstore

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/internal/sqlq"
)

// Document is one added file.
type Document struct {
	ID         string    `json:"id"`
	UserID     string    `json:"-"`
	Collection string    `json:"collection"`
	Path       string    `json:"path"`
	Title      string    `json:"title"`
	Type       string    `json:"type"`
	Size       int64     `json:"size"`
	Hash       string    `json:"-"`
	Chunks     int       `json:"chunks"`
	AddedAt    time.Time `json:"added_at"`
	UpdatedAt  time.Time `json:"updated_at"`
}

// Chunk is one piece of a document's text.
type Chunk struct {
	ID         string `json:"id"`
	DocumentID string `json:"document_id"`
	UserID     string `json:"-"`
	Number     int    `json:"number"`
	Heading    string `json:"heading,omitempty"`
	Page       int    `json:"page,omitempty"`
	Text       string `json:"text"`
	Hash       string `json:"-"`
}

// Piece is a chunk's content before it is stored.
type Piece struct {
	Heading string
	Page    int
	Text    string
}

// New is a document to store: Put adds it, replaces the one at the same
// path, or leaves an identical one alone.
type New struct {
	UserID     string
	Collection string
	Path       string // absolute
	Title      string
	Type       string
	Size       int64
	Hash       string // of the file's bytes
	// Pieces are the text; none: only move the stored document to
	// Collection, whatever version it is (the file was not read again).
	Pieces []Piece
}

// Outcome says what Put did.
type Outcome string

// What Put did.
const (
	Added     Outcome = "added"
	Updated   Outcome = "updated"
	Unchanged Outcome = "unchanged"
	Moved     Outcome = "moved"   // to another collection, its text unchanged
	Removed   Outcome = "removed" // its file is gone from the folder added again
)

// Store reads and writes documents in a memory.Store.
type Store struct {
	s *memory.Store
}

// Open is the documents of s. What the keyword index holds of each chunk
// (its hash) is device-only state, local.doc_marks, which the store makes
// with the rest of its local state (memory/local.go).
func Open(_ context.Context, s *memory.Store) (*Store, error) {
	return &Store{s: s}, nil
}

// HashBytes is the content hash Put compares.
func HashBytes(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func chunkHash(p Piece) string {
	return HashBytes([]byte(p.Heading + "\x00" + fmt.Sprint(p.Page) + "\x00" + p.Text))
}

// newID is a document's id: random (UUIDv4), so that the 8-character
// prefixes people type differ even for files added in the same
// millisecond (time-ordered UUIDv7 ids would share them).
func newID() string { return uuid.NewString() }

// ChunkID is the id of a document's chunk n.
func ChunkID(docID string, n int) string { return fmt.Sprintf("%s:%d", docID, n) }

const docColumns = `d.id, d.user_id, d.collection, d.path, d.title, d.type, d.size, d.hash, d.added_at, d.updated_at,
	(SELECT COUNT(*) FROM doc_chunks c WHERE c.document_id = d.id)`

func scanDocument(sc interface{ Scan(...any) error }) (Document, error) {
	var d Document
	var added, updated int64
	if err := sc.Scan(&d.ID, &d.UserID, &d.Collection, &d.Path, &d.Title, &d.Type, &d.Size, &d.Hash, &added, &updated, &d.Chunks); err != nil {
		return Document{}, err
	}
	d.AddedAt, d.UpdatedAt = time.UnixMilli(added), time.UnixMilli(updated)
	return d, nil
}

func (st *Store) documents(ctx context.Context, q string, args ...any) ([]Document, error) {
	rows, err := st.s.DB().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Document{}
	for rows.Next() {
		d, err := scanDocument(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	return out, rows.Err()
}

// Put stores a document: added when its path is new, updated (its chunks
// replaced whole, its old vectors dropped) when the file changed, and
// left alone when the bytes are the same. A new collection name moves an
// unchanged document without re-indexing it (Moved); a move keeps the
// version stored, were it changed by another mneme since the caller read
// it (a move read an older version, and emptied the newer).
func (st *Store) Put(ctx context.Context, n New) (Document, Outcome, error) {
	if n.UserID == "" {
		return Document{}, "", memory.ErrNoUser
	}
	if n.Path == "" || n.Hash == "" {
		return Document{}, "", fmt.Errorf("document without path or hash: %w", memory.ErrInvalid)
	}
	var id string
	var outcome Outcome
	now := st.s.Now().UnixMilli()
	err := st.s.Write(ctx, func(tx memory.Execer) error {
		if _, err := tx.ExecContext(ctx, `INSERT INTO users(id, created_at) VALUES (?, ?) ON CONFLICT(id) DO NOTHING`, n.UserID, now); err != nil {
			return err
		}
		var hash, collection string
		err := tx.QueryRowContext(ctx, `SELECT id, hash, collection FROM documents WHERE user_id = ? AND path = ?`, n.UserID, n.Path).Scan(&id, &hash, &collection)
		if len(n.Pieces) == 0 && err == nil { // a move: another mneme may have stored a newer version meanwhile
			n.Hash = hash
		}
		switch {
		case len(n.Pieces) == 0 && errors.Is(err, sql.ErrNoRows): // nothing to move, and no text to add
			return fmt.Errorf("removed meanwhile: %w", memory.ErrNotFound)
		case errors.Is(err, sql.ErrNoRows):
			id, outcome = newID(), Added
			if _, err := tx.ExecContext(ctx, `INSERT INTO documents (id, user_id, collection, path, title, type, size, hash, added_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, id, n.UserID, n.Collection, n.Path, n.Title, n.Type, n.Size, n.Hash, now, now); err != nil {
				return err
			}
		case err != nil:
			return err
		case hash == n.Hash && collection == n.Collection:
			outcome = Unchanged
			return nil
		case hash == n.Hash:
			outcome = Moved
			_, err := tx.ExecContext(ctx, `UPDATE documents SET collection = ? WHERE id = ?`, n.Collection, id)
			return err
		default:
			outcome = Updated
			if _, err := tx.ExecContext(ctx, `UPDATE documents SET collection = ?, title = ?, type = ?, size = ?, hash = ?, updated_at = ? WHERE id = ?`,
				n.Collection, n.Title, n.Type, n.Size, n.Hash, now, id); err != nil {
				return err
			}
			if err := dropChunks(ctx, tx, `document_id = ?`, id); err != nil {
				return err
			}
		}
		for i, p := range n.Pieces {
			if _, err := tx.ExecContext(ctx, `INSERT INTO doc_chunks (id, document_id, user_id, number, heading, page, text, hash)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?)`, ChunkID(id, i), id, n.UserID, i, p.Heading, p.Page, p.Text, chunkHash(p)); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return Document{}, "", fmt.Errorf("add document %s: %w", n.Path, err)
	}
	// Read back even if ctx ended since: the document is stored.
	d, err := st.Get(context.WithoutCancel(ctx), n.UserID, id)
	return d, outcome, err
}

// dropChunks deletes the chunks matching where, and their vectors.
func dropChunks(ctx context.Context, tx memory.Execer, where string, args ...any) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM embeddings WHERE kind = 'chunk' AND owner_id IN (SELECT id FROM doc_chunks WHERE `+where+`)`, args...); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM doc_chunks WHERE `+where, args...)
	return err
}

// List lists the user's documents by path, all of them or one collection's.
func (st *Store) List(ctx context.Context, userID, collection string) ([]Document, error) {
	if userID == "" {
		return nil, memory.ErrNoUser
	}
	q, args := `SELECT `+docColumns+` FROM documents d WHERE d.user_id = ?`, []any{userID}
	if collection != "" {
		q, args = q+` AND d.collection = ?`, append(args, collection)
	}
	list, err := st.documents(ctx, q+` ORDER BY d.path`, args...)
	if err != nil {
		return nil, fmt.Errorf("list documents: %w", err)
	}
	return list, nil
}

// Lookup finds the user's document added from path.
func (st *Store) Lookup(ctx context.Context, userID, path string) (Document, bool, error) {
	if !utf8.ValidString(path) { // never added (docs.SkipNotUTF8)
		return Document{}, false, nil
	}
	list, err := st.documents(ctx, `SELECT `+docColumns+` FROM documents d WHERE d.user_id = ? AND d.path = ?`, userID, path)
	if err != nil || len(list) == 0 {
		return Document{}, false, err
	}
	return list[0], true, nil
}

// Count counts the documents of every user.
func (st *Store) Count(ctx context.Context) (int, error) {
	var n int
	err := st.s.DB().QueryRowContext(ctx, `SELECT COUNT(*) FROM documents`).Scan(&n)
	return n, err
}

// minPrefix is the shortest id prefix accepted in place of a full id.
const minPrefix = 4

// Get finds one of the user's documents by id or unambiguous id prefix.
func (st *Store) Get(ctx context.Context, userID, id string) (Document, error) {
	if userID == "" {
		return Document{}, memory.ErrNoUser
	}
	id = strings.TrimSpace(id)
	if !utf8.ValidString(id) { // no id is; the driver refuses to look
		return Document{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	list, err := st.documents(ctx, `SELECT `+docColumns+` FROM documents d WHERE d.user_id = ? AND d.id = ?`, userID, id)
	if err == nil && len(list) == 0 && len(id) >= minPrefix && !strings.ContainsAny(id, "%_") {
		list, err = st.documents(ctx, `SELECT `+docColumns+` FROM documents d WHERE d.user_id = ? AND d.id LIKE ? LIMIT 2`, userID, id+"%")
	}
	switch {
	case err != nil:
		return Document{}, fmt.Errorf("document: %w", err)
	case len(list) == 0 && len(id) < minPrefix:
		return Document{}, fmt.Errorf("%w: %q (give at least %d characters of its id)", ErrNotFound, id, minPrefix)
	case len(list) == 0:
		return Document{}, fmt.Errorf("%w: %q", ErrNotFound, id)
	case len(list) > 1:
		return Document{}, fmt.Errorf("document %q: %w", id, memory.ErrAmbiguous)
	}
	return list[0], nil
}

// Remove deletes documents (their chunks and vectors with them), on
// every device once synced. An id that is not the user's document (or no
// longer: removed elsewhere) fails with ErrNotFound after the others are
// removed.
func (st *Store) Remove(ctx context.Context, userID string, ids []string) error {
	if userID == "" {
		return memory.ErrNoUser
	}
	var missing []string
	err := st.s.Write(ctx, func(tx memory.Execer) error {
		missing = missing[:0]
		for _, id := range ids {
			if err := dropChunks(ctx, tx, `document_id = ? AND user_id = ?`, id, userID); err != nil {
				return err
			}
			res, err := tx.ExecContext(ctx, `DELETE FROM documents WHERE id = ? AND user_id = ?`, id, userID)
			if err != nil {
				return err
			}
			if n, _ := res.RowsAffected(); n == 0 {
				missing = append(missing, id)
			}
		}
		return nil
	})
	switch {
	case err != nil:
		return fmt.Errorf("remove documents: %w", err)
	case len(missing) > 0:
		return fmt.Errorf("%w: %s", ErrNotFound, strings.Join(missing, ", "))
	}
	return nil
}

const chunkColumns = `c.id, c.document_id, c.user_id, c.number, c.heading, c.page, c.text, c.hash`

func (st *Store) chunks(ctx context.Context, q string, args ...any) ([]Chunk, error) {
	rows, err := st.s.DB().QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []Chunk{}
	for rows.Next() {
		var c Chunk
		if err := rows.Scan(&c.ID, &c.DocumentID, &c.UserID, &c.Number, &c.Heading, &c.Page, &c.Text, &c.Hash); err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// Chunks lists a document's chunks in order.
func (st *Store) Chunks(ctx context.Context, userID, docID string) ([]Chunk, error) {
	list, err := st.chunks(ctx, `SELECT `+chunkColumns+` FROM doc_chunks c WHERE c.document_id = ? AND +c.user_id = ? ORDER BY c.number`, docID, userID)
	if err != nil {
		return nil, fmt.Errorf("document chunks: %w", err)
	}
	return list, nil
}

// ChunksByID reads the user's chunks with the given ids (missing ones are
// left out: deleted since they were indexed).
func (st *Store) ChunksByID(ctx context.Context, userID string, ids []string) (map[string]Chunk, error) {
	list, err := sqlq.InChunks(ids, func(part []string) ([]Chunk, error) {
		return st.chunks(ctx, `SELECT `+chunkColumns+` FROM doc_chunks c WHERE c.id `+sqlq.In(len(part))+` AND +c.user_id = ?`,
			append(sqlq.Args(part), userID)...)
	})
	if err != nil {
		return nil, fmt.Errorf("document chunks: %w", err)
	}
	out := make(map[string]Chunk, len(list))
	for _, c := range list {
		out[c.ID] = c
	}
	return out, nil
}

// DocumentsByID reads the user's documents with the given ids.
func (st *Store) DocumentsByID(ctx context.Context, userID string, ids []string) (map[string]Document, error) {
	list, err := sqlq.InChunks(ids, func(part []string) ([]Document, error) {
		return st.documents(ctx, `SELECT `+docColumns+` FROM documents d WHERE d.id `+sqlq.In(len(part))+` AND +d.user_id = ?`,
			append(sqlq.Args(part), userID)...)
	})
	if err != nil {
		return nil, fmt.Errorf("documents: %w", err)
	}
	out := make(map[string]Document, len(list))
	for _, d := range list {
		out[d.ID] = d
	}
	return out, nil
}
