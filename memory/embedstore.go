package memory

import (
	"context"
	"fmt"

	"github.com/mneme-dev/mneme/memory/internal/sqlq"
	"github.com/mneme-dev/mneme/memory/vector"
)

// OwnerKind says what an embedding belongs to.
type OwnerKind string

// Owners of embeddings.
const (
	OwnerTurn    OwnerKind = "turn"
	OwnerNote    OwnerKind = "note"
	OwnerSummary OwnerKind = "summary"
)

// EmbeddingSet is the vectors of one owner's text under one model.
type EmbeddingSet struct {
	OwnerID string
	Kind    OwnerKind
	UserID  string
	Model   string
	Hash    string // the owner's content hash when it was embedded
	Chunks  []string
	Vectors [][]float32
}

// SaveEmbeddings replaces the owner's vectors (of any model) with set.
func (s *Store) SaveEmbeddings(ctx context.Context, sets ...EmbeddingSet) error {
	now := s.nowMS()
	err := s.write(ctx, func(tx Execer) error {
		for _, set := range sets {
			if len(set.Chunks) != len(set.Vectors) || len(set.Vectors) == 0 {
				return fmt.Errorf("%d chunks, %d vectors: %w", len(set.Chunks), len(set.Vectors), ErrInvalid)
			}
			if _, err := tx.ExecContext(ctx, `DELETE FROM embeddings WHERE owner_id = ?`, set.OwnerID); err != nil {
				return err
			}
			for i, v := range set.Vectors {
				if _, err := tx.ExecContext(ctx, `INSERT INTO embeddings
					(owner_id, kind, user_id, chunk, model, dim, hash, text, vector, created_at)
					VALUES (?, ?, ?, ?, ?, ?, ?, ?, vector32(?), ?)`,
					set.OwnerID, string(set.Kind), set.UserID, i, set.Model, len(v), set.Hash, set.Chunks[i],
					vector.EncodeF32(v), now); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("save embeddings: %w", err)
	}
	return nil
}

// TurnsNeedingEmbedding returns turns with no vectors under model for their
// current text, in descending id order below the id before ("" to start),
// so that paging with the last id read walks the table once. Unchanged
// turns are skipped by their content hash.
func (s *Store) TurnsNeedingEmbedding(ctx context.Context, model, before string, limit int) ([]Turn, error) {
	if before == "" {
		before = "\U0010FFFF" // above every id
	}
	turns, err := s.queryTurns(ctx, `SELECT `+turnColumns+` FROM turns t WHERE t.id < ? AND `+notEmbedded("t")+`
		ORDER BY t.id DESC LIMIT ?`, before, model, limit)
	if err != nil {
		return nil, fmt.Errorf("turns to embed: %w", err)
	}
	return turns, nil
}

// CountTurnsNeedingEmbedding counts what TurnsNeedingEmbedding would return without a limit.
func (s *Store) CountTurnsNeedingEmbedding(ctx context.Context, model string) (int, error) {
	return s.count(ctx, "count turns to embed", `SELECT COUNT(*) FROM turns t WHERE `+notEmbedded("t"), model)
}

// StoredVector is one embedded chunk.
type StoredVector struct {
	OwnerID string
	Kind    OwnerKind
	Chunk   int
	Vector  []float32
}

// VectorsSince calls fn with the user's vectors under model stored after
// the row mark after (0: all of them), and returns the mark of the newest
// one, for the next call: a process follows the vectors others store.
func (s *Store) VectorsSince(ctx context.Context, userID, model string, after int64, fn func(StoredVector) error) (int64, error) {
	q := `SELECT rowid, owner_id, kind, chunk, vector FROM embeddings WHERE user_id = ? AND model = ?`
	if after > 0 {
		// A range of the table itself: the few rows written since.
		q = `SELECT rowid, owner_id, kind, chunk, vector FROM embeddings WHERE rowid > ? AND +user_id = ? AND +model = ?`
	}
	args := []any{userID, model}
	if after > 0 {
		args = append([]any{after}, args...)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return after, fmt.Errorf("vectors: %w", err)
	}
	defer rows.Close()
	last := after
	for rows.Next() {
		var sv StoredVector
		var kind string
		var blob []byte
		var rowid int64
		if err := rows.Scan(&rowid, &sv.OwnerID, &kind, &sv.Chunk, &blob); err != nil {
			return after, fmt.Errorf("vectors: %w", err)
		}
		last = max(last, rowid)
		sv.Kind = OwnerKind(kind)
		if sv.Vector, err = vector.DecodeF32(blob); err != nil {
			return after, fmt.Errorf("vectors of %s: %w", sv.OwnerID, err)
		}
		if err := fn(sv); err != nil {
			return after, err
		}
	}
	return last, rows.Err()
}

// VectorKey names one stored chunk vector.
type VectorKey struct {
	OwnerID string
	Chunk   int
}

// VectorsByKey reads the exact stored vectors for the given chunks (for rescoring).
func (s *Store) VectorsByKey(ctx context.Context, userID, model string, keys []VectorKey) (map[VectorKey][]float32, error) {
	want := make(map[VectorKey]bool, len(keys))
	var owners []string
	for _, k := range keys {
		if !want[VectorKey{OwnerID: k.OwnerID}] {
			want[VectorKey{OwnerID: k.OwnerID}] = true
			owners = append(owners, k.OwnerID)
		}
		want[k] = true
	}
	out := make(map[VectorKey][]float32, len(keys))
	for start := 0; start < len(owners); start += sqlq.MaxParams {
		part := owners[start:min(start+sqlq.MaxParams, len(owners))]
		// A primary-key lookup: "+user_id" keeps SQLite from scanning the
		// user's rows through the user index instead.
		args := append(sqlq.Args(part), model, userID)
		rows, err := s.db.QueryContext(ctx, `SELECT owner_id, chunk, vector FROM embeddings
			WHERE owner_id IN (`+sqlq.Placeholders(len(part))+`) AND model = ? AND +user_id = ?`, args...)
		if err != nil {
			return nil, fmt.Errorf("vectors by key: %w", err)
		}
		for rows.Next() {
			var k VectorKey
			var blob []byte
			if err := rows.Scan(&k.OwnerID, &k.Chunk, &blob); err != nil {
				rows.Close()
				return nil, fmt.Errorf("vectors by key: %w", err)
			}
			if !want[k] {
				continue
			}
			v, err := vector.DecodeF32(blob)
			if err != nil {
				rows.Close()
				return nil, fmt.Errorf("vectors by key: %w", err)
			}
			out[k] = v
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// notEmbedded is the SQL condition that the row aliased alias (a turn, note
// or summary with id and hash) has no vectors for its current text under
// the model given as the next argument.
func notEmbedded(alias string) string {
	return `NOT EXISTS (SELECT 1 FROM embeddings e WHERE e.owner_id = ` + alias + `.id AND e.model = ? AND e.hash = ` + alias + `.hash AND e.chunk = 0)`
}
