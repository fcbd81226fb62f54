package docstore

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/schema"
)

// The full backup's documents: a document line, then its chunks' lines
// with their text (memory.Store.ExportAll writes them after the notes;
// memory.Store.Import restores them through Restorers). Ids are kept, so
// restoring twice changes nothing.

func backupTime(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) }

// ExportLines is memory.Store.ExportAll's writer of the user's documents.
func (st *Store) ExportLines(ctx context.Context, userID string) func(put func(any) error) error {
	return func(put func(any) error) error {
		list, err := st.List(ctx, userID, "")
		if err != nil {
			return err
		}
		for _, d := range list {
			if err := put(schema.BackupDocumentLine{Type: schema.BackupDocument, ID: d.ID, User: userID, Collection: d.Collection,
				Path: d.Path, Title: d.Title, DocType: d.Type, Size: d.Size, Hash: d.Hash,
				Added: backupTime(d.AddedAt), Updated: backupTime(d.UpdatedAt)}); err != nil {
				return err
			}
			chunks, err := st.Chunks(ctx, userID, d.ID)
			if err != nil {
				return err
			}
			for _, c := range chunks {
				if err := put(schema.BackupDocChunkLine{Type: schema.BackupDocChunk, Document: d.ID, User: userID,
					Number: c.Number, Heading: c.Heading, Page: c.Page, Text: c.Text}); err != nil {
					return err
				}
			}
		}
		return nil
	}
}

// Restorers restore the backup's document lines (memory.ImportOptions.More).
func (st *Store) Restorers() map[string]memory.LineRestorer {
	return map[string]memory.LineRestorer{schema.BackupDocument: st.restoreDocument, schema.BackupDocChunk: st.restoreChunk}
}

// errLine marks what is wrong with a line, as opposed to a store failure.
type errLine struct{ error }

func decode(raw []byte, v any) error {
	if err := json.Unmarshal(raw, v); err != nil {
		return errLine{fmt.Errorf("not a JSON object: %w", err)}
	}
	return nil
}

func parseTime(field, v string) (int64, error) {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return 0, errLine{fmt.Errorf("%q is not RFC 3339: %q", field, v)}
	}
	return t.UnixMilli(), nil
}

// split sorts an error into the line's fault and the store's.
func split(err error) (lineErr, storeErr error) {
	var le errLine
	if errors.As(err, &le) {
		return le.error, nil
	}
	return nil, err
}

func (st *Store) restoreDocument(ctx context.Context, raw []byte, who func(string) (string, error)) (lineErr, err error) {
	return split(func() error {
		var l schema.BackupDocumentLine
		if err := decode(raw, &l); err != nil {
			return err
		}
		user, err := who(l.User)
		if err != nil {
			return errLine{err}
		}
		if l.ID == "" || l.Path == "" || l.Hash == "" {
			return errLine{errors.New("a document needs an id, a path and a hash")}
		}
		if err := schema.CheckID("id", l.ID); err != nil {
			return errLine{err}
		}
		added, err := parseTime("added", l.Added)
		if err != nil {
			return err
		}
		updated, err := parseTime("updated", l.Updated)
		if err != nil {
			return err
		}
		return st.s.Write(ctx, func(tx memory.Execer) error {
			if _, err := tx.ExecContext(ctx, `INSERT INTO users(id, created_at) VALUES (?, ?) ON CONFLICT(id) DO NOTHING`, user, added); err != nil {
				return err
			}
			var other string
			err := tx.QueryRowContext(ctx, `SELECT id FROM documents WHERE id = ? OR (user_id = ? AND path = ?)`, l.ID, user, l.Path).Scan(&other)
			switch {
			case err == nil && other == l.ID:
				return nil // restored before
			case err == nil:
				return errLine{fmt.Errorf("%s is already added as document %s", l.Path, other)}
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO documents (id, user_id, collection, path, title, type, size, hash, added_at, updated_at)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, l.ID, user, l.Collection, l.Path, l.Title, l.DocType, l.Size, l.Hash, added, updated)
			return err
		})
	}())
}

func (st *Store) restoreChunk(ctx context.Context, raw []byte, who func(string) (string, error)) (lineErr, err error) {
	return split(func() error {
		var l schema.BackupDocChunkLine
		if err := decode(raw, &l); err != nil {
			return err
		}
		user, err := who(l.User)
		if err != nil {
			return errLine{err}
		}
		if l.Document == "" {
			return errLine{errors.New(`a passage without "document"`)}
		}
		p := Piece{Heading: l.Heading, Page: l.Page, Text: l.Text}
		return st.s.Write(ctx, func(tx memory.Execer) error {
			var owner string
			err := tx.QueryRowContext(ctx, `SELECT user_id FROM documents WHERE id = ?`, l.Document).Scan(&owner)
			switch {
			case errors.Is(err, sql.ErrNoRows) || (err == nil && owner != user):
				return errLine{fmt.Errorf("a passage of document %q, which is not restored", l.Document)}
			case err != nil:
				return err
			}
			_, err = tx.ExecContext(ctx, `INSERT INTO doc_chunks (id, document_id, user_id, number, heading, page, text, hash)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT(id) DO NOTHING`, ChunkID(l.Document, l.Number), l.Document, user, l.Number, p.Heading, p.Page, p.Text, chunkHash(p))
			return err
		})
	}())
}
