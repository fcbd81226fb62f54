package docstore

import (
	"context"
	"fmt"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/internal/sqlq"
)

// What the index keeps up to date: every chunk's text in the keyword index
// (local.doc_marks records which) and its vectors under the embedding model.

// Indexable is a chunk with what the keyword index shows of its document.
type Indexable struct {
	Chunk
	Title string
	Path  string
}

// ChunksNeedingKeywordIndex returns chunks (of every user) whose current
// text the keyword index does not hold.
func (st *Store) ChunksNeedingKeywordIndex(ctx context.Context, limit int) ([]Indexable, error) {
	return st.indexable(ctx, `LEFT JOIN local.doc_marks m ON m.id = c.id
		WHERE m.hash IS NULL OR m.hash != c.hash LIMIT ?`, limit)
}

// ChunksFrom returns every chunk, of every user, in id order after the id
// after (for a rebuild of the keyword index).
func (st *Store) ChunksFrom(ctx context.Context, after string, limit int) ([]Indexable, error) {
	return st.indexable(ctx, `WHERE c.id > ? ORDER BY c.id LIMIT ?`, after, limit)
}

// indexable reads chunks with their documents' titles and paths; rest is
// the query after the join.
func (st *Store) indexable(ctx context.Context, rest string, args ...any) ([]Indexable, error) {
	rows, err := st.s.DB().QueryContext(ctx, `SELECT `+chunkColumns+`, d.title, d.path FROM doc_chunks c
		JOIN documents d ON d.id = c.document_id `+rest, args...)
	if err != nil {
		return nil, fmt.Errorf("chunks to index: %w", err)
	}
	defer rows.Close()
	var out []Indexable
	for rows.Next() {
		var x Indexable
		c := &x.Chunk
		if err := rows.Scan(&c.ID, &c.DocumentID, &c.UserID, &c.Number, &c.Heading, &c.Page, &c.Text, &c.Hash, &x.Title, &x.Path); err != nil {
			return nil, fmt.Errorf("chunks to index: %w", err)
		}
		out = append(out, x)
	}
	return out, rows.Err()
}

// MarkKeywordIndexed records that the keyword index holds these chunks.
func (st *Store) MarkKeywordIndexed(ctx context.Context, list []Indexable) error {
	return st.s.Write(ctx, func(tx memory.Execer) error {
		for _, c := range list {
			if _, err := tx.ExecContext(ctx, `INSERT INTO local.doc_marks (id, hash) VALUES (?, ?)
				ON CONFLICT(id) DO UPDATE SET hash = excluded.hash`, c.ID, c.Hash); err != nil {
				return fmt.Errorf("mark chunks: %w", err)
			}
		}
		return nil
	})
}

// GoneFromStore returns chunks the keyword index holds that no longer
// exist (removed here or on another device).
func (st *Store) GoneFromStore(ctx context.Context, limit int) ([]string, error) {
	ids, err := sqlq.Strings(st.s.DB().QueryContext(ctx, `SELECT m.id FROM local.doc_marks m
		WHERE NOT EXISTS (SELECT 1 FROM doc_chunks c WHERE c.id = m.id) LIMIT ?`, limit))
	if err != nil {
		return nil, fmt.Errorf("removed chunks: %w", err)
	}
	return ids, nil
}

// ForgetChunks drops the marks and vectors of chunks that left the keyword
// index.
func (st *Store) ForgetChunks(ctx context.Context, ids []string) error {
	return st.s.Write(ctx, func(tx memory.Execer) error {
		for start := 0; start < len(ids); start += sqlq.MaxParams {
			part := ids[start:min(start+sqlq.MaxParams, len(ids))]
			if _, err := tx.ExecContext(ctx, `DELETE FROM local.doc_marks WHERE id `+sqlq.In(len(part)), sqlq.Args(part)...); err != nil {
				return fmt.Errorf("forget chunks: %w", err)
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM embeddings WHERE kind = 'chunk' AND owner_id `+sqlq.In(len(part)), sqlq.Args(part)...); err != nil {
				return fmt.Errorf("forget chunks: %w", err)
			}
		}
		return nil
	})
}

// ResetMarks forgets what the keyword index holds (it is being rebuilt).
func (st *Store) ResetMarks(ctx context.Context) error {
	return st.s.Write(ctx, func(tx memory.Execer) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM local.doc_marks`)
		return err
	})
}

// notEmbedded is the condition that chunk c has no vectors for its
// current text under the model given as the next argument.
const notEmbedded = `NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.owner_id = c.id AND e.model = ? AND e.hash = c.hash AND e.chunk = 0)`

// ChunksNeedingEmbedding returns chunks (of every user) with no vectors
// for their current text under model, in id order after the id after (""
// from the start): a backlog is walked once, where reading it from the
// start for each batch passed over every chunk embedded so far (a 50 MB
// file took minutes).
func (st *Store) ChunksNeedingEmbedding(ctx context.Context, model, after string, limit int) ([]Chunk, error) {
	list, err := st.chunks(ctx, `SELECT `+chunkColumns+` FROM doc_chunks c WHERE c.id > ? AND `+notEmbedded+` ORDER BY c.id LIMIT ?`,
		after, model, limit)
	if err != nil {
		return nil, fmt.Errorf("chunks to embed: %w", err)
	}
	return list, nil
}

// PendingEmbedding counts each of the user's documents' chunks still
// waiting for vectors under model.
func (st *Store) PendingEmbedding(ctx context.Context, userID, model string) (map[string]int, error) {
	rows, err := st.s.DB().QueryContext(ctx, `SELECT c.document_id, COUNT(*) FROM doc_chunks c
		WHERE c.user_id = ? AND `+notEmbedded+` GROUP BY c.document_id`, userID, model)
	if err != nil {
		return nil, fmt.Errorf("chunks to embed: %w", err)
	}
	defer rows.Close()
	out := map[string]int{}
	for rows.Next() {
		var id string
		var n int
		if err := rows.Scan(&id, &n); err != nil {
			return nil, err
		}
		out[id] = n
	}
	return out, rows.Err()
}
