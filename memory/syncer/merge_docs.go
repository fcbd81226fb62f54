package syncer

import (
	"context"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/internal/sqlq"
)

// A document and its passages merge as one: see docMerge.

// docMerge keeps each document whole: one version's row and that
// version's passages, never the newer row with a mix of both versions'
// passages (a passage's id is its document's and its number, alike in
// both).
type docMerge struct{ older map[string]bool }

// ready readies the merged copy for this device's row r of table: skip
// says r is not to be copied. A document of this device older than the
// merged copy's version of the file (same id, or same path under another
// id) is not copied, nor are its passages; a newer one replaces that
// version whole: its passages and their vectors go first.
func (d docMerge) ready(ctx context.Context, tx memory.Execer, table string, cols []string, r row) (skip bool, err error) {
	switch table {
	case "doc_chunks":
		return d.older[r.stringCol(cols, "document_id")], nil
	case "documents":
	default:
		return false, nil
	}
	at, hash := indexOf(cols, "updated_at"), indexOf(cols, "hash")
	if at < 0 || hash < 0 {
		return false, nil
	}
	rows, err := tx.QueryContext(ctx, `SELECT id, updated_at, hash FROM documents WHERE id = ? OR (user_id = ? AND path = ?)`,
		r.id, r.stringCol(cols, "user_id"), r.stringCol(cols, "path"))
	if err != nil {
		return false, err
	}
	theirs, err := sqlq.ReadAll(rows, 3)
	if err != nil {
		return false, err
	}
	for _, v := range theirs {
		if toInt(v[1]) > toInt(r.vals[at]) {
			d.older[r.id] = true
			return true, nil
		}
	}
	for _, v := range theirs {
		id, _ := v[0].(string)
		if id == r.id && v[2] == r.vals[hash] {
			continue // the same version: its passages stay
		}
		// Another version (this device's passages, copied next, replace
		// its), or the same file added on both devices under two ids.
		drop := []string{
			`DELETE FROM embeddings WHERE kind = 'chunk' AND owner_id IN (SELECT id FROM doc_chunks WHERE document_id = ?)`,
			`DELETE FROM doc_chunks WHERE document_id = ?`,
		}
		if id != r.id {
			drop = append(drop, `DELETE FROM documents WHERE id = ?`)
		}
		for _, q := range drop {
			if _, err := tx.ExecContext(ctx, q, id); err != nil {
				return false, err
			}
		}
	}
	return false, nil
}

// keeps reports whether id, a row of table this device deleted, is a
// passage of a document the merged copy keeps in its newer version: its
// ids are the older version's too, and go only with that version.
func (d docMerge) keeps(ctx context.Context, tx memory.Execer, table, id string) bool {
	if table != "doc_chunks" || len(d.older) == 0 {
		return false
	}
	var doc string
	err := tx.QueryRowContext(ctx, `SELECT document_id FROM doc_chunks WHERE id = ?`, id).Scan(&doc)
	return err == nil && d.older[doc]
}
