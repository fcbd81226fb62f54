package memory

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"github.com/mneme-dev/mneme/memory/internal/sqlq"
)

// SyncTurns re-derives a conversation's turns from its messages and stores
// those that changed. It returns the changed turns and the ids of turns
// that no longer exist.
func (s *Store) SyncTurns(ctx context.Context, userID, conversationID string) (changed []Turn, removed []string, err error) {
	err = s.write(ctx, func(tx Execer) error {
		// Read in the write: a reading made before could be older than a
		// turn another process stored meanwhile (an answer it finished),
		// which this write would then put back cut.
		msgs, err := s.turnMessages(ctx, tx, userID, conversationID)
		if err != nil {
			return err
		}
		turns := BuildTurns(userID, conversationID, msgs)
		old := map[string]string{}
		rows, err := tx.QueryContext(ctx, `SELECT id, hash FROM turns WHERE conversation_id = ? AND +user_id = ?`, conversationID, userID)
		if err != nil {
			return err
		}
		for rows.Next() {
			var id, h string
			if err := rows.Scan(&id, &h); err != nil {
				rows.Close()
				return err
			}
			old[id] = h
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, t := range turns {
			if h, ok := old[t.ID]; ok && h == t.Hash {
				delete(old, t.ID)
				continue
			}
			delete(old, t.ID)
			refs, _ := json.Marshal(t.Refs)
			if _, err := tx.ExecContext(ctx, `INSERT INTO turns
				(id, conversation_id, user_id, number, first_seq, last_seq, text, user_text, snippet, refs, created_at, hash)
				VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
				ON CONFLICT(id) DO UPDATE SET first_seq = excluded.first_seq, last_seq = excluded.last_seq,
					text = excluded.text, user_text = excluded.user_text, snippet = excluded.snippet,
					refs = excluded.refs, created_at = excluded.created_at, hash = excluded.hash`,
				t.ID, t.ConversationID, userID, t.Number, t.FirstSeq, t.LastSeq, t.Text, t.UserText, t.Snippet,
				string(refs), t.Time.UnixMilli(), t.Hash); err != nil {
				return err
			}
			changed = append(changed, t)
		}
		for id := range old {
			if err := deleteOwner(ctx, tx, `DELETE FROM turns WHERE id = ?`, id); err != nil {
				return err
			}
			removed = append(removed, id)
		}
		// A turn gone is out of the keyword index (the index deletes it).
		if err := forgetMarks(ctx, tx, removed); err != nil {
			return err
		}
		return nil
	})
	if err != nil {
		return nil, nil, fmt.Errorf("sync turns: %w", err)
	}
	return changed, removed, nil
}

// deleteOwner deletes a row and the embeddings it owns.
func deleteOwner(ctx context.Context, tx Execer, stmt, id string) error {
	if _, err := tx.ExecContext(ctx, stmt, id); err != nil {
		return err
	}
	_, err := tx.ExecContext(ctx, `DELETE FROM embeddings WHERE owner_id = ?`, id)
	return err
}

// ConversationRef names a conversation and its owner.
type ConversationRef struct {
	UserID, ConversationID string
}

// StaleConversations lists conversations whose messages are newer than
// their derived turns: the work left over after a crash or an import.
func (s *Store) StaleConversations(ctx context.Context) ([]ConversationRef, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT c.user_id, c.id FROM conversations c
		WHERE COALESCE((SELECT MAX(seq) FROM messages m WHERE m.conversation_id = c.id), 0)
		    > COALESCE((SELECT MAX(last_seq) FROM turns t WHERE t.conversation_id = c.id), 0)`)
	if err != nil {
		return nil, fmt.Errorf("stale conversations: %w", err)
	}
	defer rows.Close()
	var out []ConversationRef
	for rows.Next() {
		var r ConversationRef
		if err := rows.Scan(&r.UserID, &r.ConversationID); err != nil {
			return nil, fmt.Errorf("stale conversations: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

const turnColumns = `t.id, t.conversation_id, t.user_id, t.number, t.first_seq, t.last_seq, t.text, t.user_text,
	t.snippet, t.refs, t.created_at, t.hash`

func scanTurn(row interface{ Scan(...any) error }) (Turn, error) {
	var t Turn
	var refs string
	var created int64
	if err := row.Scan(&t.ID, &t.ConversationID, &t.UserID, &t.Number, &t.FirstSeq, &t.LastSeq, &t.Text,
		&t.UserText, &t.Snippet, &refs, &created, &t.Hash); err != nil {
		return Turn{}, err
	}
	t.Time = fromMS(created)
	if err := json.Unmarshal([]byte(refs), &t.Refs); err != nil || t.Refs == nil {
		t.Refs = []string{}
	}
	return t, nil
}

func (s *Store) queryTurns(ctx context.Context, q string, args ...any) ([]Turn, error) {
	return queryRows(ctx, s.db, func(r rowScanner) (Turn, error) { return scanTurn(r) }, q, args...)
}

// ConversationTurns returns a conversation's turns in order, whoever owns
// it (for sync and index maintenance).
func (s *Store) ConversationTurns(ctx context.Context, conversationID string) ([]Turn, error) {
	turns, err := s.queryTurns(ctx, `SELECT `+turnColumns+` FROM turns t WHERE t.conversation_id = ? ORDER BY t.number`, conversationID)
	if err != nil {
		return nil, fmt.Errorf("conversation turns: %w", err)
	}
	return turns, nil
}

// TurnFilter narrows a user's turns to a conversation and a time range
// (zero values do not filter).
type TurnFilter struct {
	UserID         string
	ConversationID string
	Since, Until   time.Time
}

// TurnIDsIn returns the ids of the user's turns inside f.
func (s *Store) TurnIDsIn(ctx context.Context, f TurnFilter) (map[string]bool, error) {
	q := `SELECT id FROM turns WHERE user_id = ?`
	args := []any{f.UserID}
	if f.ConversationID != "" {
		q += ` AND conversation_id = ?`
		args = append(args, f.ConversationID)
	}
	if !f.Since.IsZero() {
		q += ` AND created_at >= ?`
		args = append(args, f.Since.UnixMilli())
	}
	if !f.Until.IsZero() {
		q += ` AND created_at < ?`
		args = append(args, f.Until.UnixMilli())
	}
	return s.idSet(ctx, q, args...)
}

// TurnsByID returns the user's turns with the given ids (missing ones are skipped).
func (s *Store) TurnsByID(ctx context.Context, userID string, ids []string) (map[string]Turn, error) {
	turns, err := sqlq.InChunks(ids, func(part []string) ([]Turn, error) {
		// "+t.user_id" keeps this a primary-key lookup (see VectorsByKey).
		return s.queryTurns(ctx, `SELECT `+turnColumns+` FROM turns t WHERE +t.user_id = ? AND t.id `+sqlq.In(len(part)),
			append([]any{userID}, sqlq.Args(part)...)...)
	})
	if err != nil {
		return nil, fmt.Errorf("turns: %w", err)
	}
	return byID(turns, func(t Turn) string { return t.ID }), nil
}

// TurnsNeedingKeywordIndex returns turns whose text is not yet in the
// keyword index, in id order after the id after ("" to start): a caller
// paging with the last id it got reads the table once, however many
// batches it takes.
func (s *Store) TurnsNeedingKeywordIndex(ctx context.Context, after string, limit int) ([]Turn, error) {
	turns, err := s.queryTurns(ctx, `SELECT `+turnColumns+` FROM turns t
		LEFT JOIN local.keyword_marks m ON m.kind = 'turn' AND m.id = t.id
		WHERE t.id > ? AND COALESCE(m.hash, '') != t.hash ORDER BY t.id LIMIT ?`, after, limit)
	if err != nil {
		return nil, fmt.Errorf("turns to index: %w", err)
	}
	return turns, nil
}

// TurnsFrom returns every turn, of every user, in id order after the id
// after: a rebuild of the keyword index reads them all.
func (s *Store) TurnsFrom(ctx context.Context, after string, limit int) ([]Turn, error) {
	return s.queryTurns(ctx, `SELECT `+turnColumns+` FROM turns t WHERE t.id > ? ORDER BY t.id LIMIT ?`, after, limit)
}

// CountUserMessages counts the user's messages in the conversations refs:
// about how many turns deriving their turns makes, for progress reports.
func (s *Store) CountUserMessages(ctx context.Context, refs []ConversationRef) (int, error) {
	ids := make([]string, len(refs))
	for i, r := range refs {
		ids[i] = r.ConversationID
	}
	list, _ := json.Marshal(ids)
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM messages
		WHERE conversation_id IN (SELECT value FROM json_each(?)) AND role = 'user'`, string(list)).Scan(&n)
	if err != nil {
		return 0, fmt.Errorf("count user messages: %w", err)
	}
	return n, nil
}

// CountTurnsNeedingKeywordIndex counts the turns TurnsNeedingKeywordIndex
// would list.
func (s *Store) CountTurnsNeedingKeywordIndex(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM turns t
		LEFT JOIN local.keyword_marks m ON m.kind = 'turn' AND m.id = t.id
		WHERE COALESCE(m.hash, '') != t.hash`).Scan(&n)
	return n, err
}

// AllTurns calls fn with every turn of every user in batches, for rebuilding indexes.
func (s *Store) AllTurns(ctx context.Context, batch int, fn func([]Turn) error) error {
	after := ""
	for {
		turns, err := s.queryTurns(ctx, `SELECT `+turnColumns+` FROM turns t WHERE t.id > ? ORDER BY t.id LIMIT ?`, after, batch)
		if err != nil {
			return fmt.Errorf("all turns: %w", err)
		}
		if len(turns) == 0 {
			return nil
		}
		if err := fn(turns); err != nil {
			return err
		}
		after = turns[len(turns)-1].ID
	}
}

// MarkKeywordIndexed records that these turns' current text is in the
// keyword index (in local state: see local.go).
func (s *Store) MarkKeywordIndexed(ctx context.Context, turns []Turn) error {
	return s.writeLocal(ctx, func(tx Execer) error {
		for _, t := range turns {
			if _, err := tx.ExecContext(ctx, `INSERT INTO local.keyword_marks (kind, id, hash) VALUES ('turn', ?, ?)
				ON CONFLICT(kind, id) DO UPDATE SET hash = excluded.hash`, t.ID, t.Hash); err != nil {
				return fmt.Errorf("mark indexed: %w", err)
			}
		}
		return nil
	})
}

// ResetKeywordIndexed forgets what is in the keyword index, so that every
// turn, note and summary is indexed again.
func (s *Store) ResetKeywordIndexed(ctx context.Context) error {
	return s.writeLocal(ctx, func(tx Execer) error {
		_, err := tx.ExecContext(ctx, `DELETE FROM local.keyword_marks`)
		return err
	})
}

// CountKeywordIndexed counts the turns, notes and summaries marked as in
// the keyword index.
func (s *Store) CountKeywordIndexed(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT
		  (SELECT COUNT(*) FROM local.keyword_marks m JOIN turns t ON m.kind = 'turn' AND t.id = m.id)
		+ (SELECT COUNT(*) FROM local.keyword_marks m JOIN notes n ON m.kind = 'note' AND n.id = m.id)
		+ (SELECT COUNT(*) FROM local.keyword_marks m JOIN summaries s ON m.kind = 'summary' AND s.id = m.id)`).Scan(&n)
	return n, err
}

// CountTurns counts all stored turns.
func (s *Store) CountTurns(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM turns`).Scan(&n)
	return n, err
}

// Meta reads a key of the store's metadata ("" when unset).
func (s *Store) Meta(ctx context.Context, key string) (string, error) {
	var v string
	err := s.db.QueryRowContext(ctx, `SELECT value FROM meta WHERE key = ?`, key).Scan(&v)
	if err == sql.ErrNoRows {
		return "", nil
	}
	return v, err
}

// SetMeta writes a key of the store's metadata.
func (s *Store) SetMeta(ctx context.Context, key, value string) error {
	return s.write(ctx, func(tx Execer) error {
		_, err := tx.ExecContext(ctx, `INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value`, key, value)
		return err
	})
}

// turnMessages are a conversation's messages with what turns are made of
// (BuildTurns), in order: the other columns would cost SyncTurns as much
// again to read.
func (s *Store) turnMessages(ctx context.Context, q Execer, userID, conversationID string) ([]Message, error) {
	return queryRows(ctx, q, func(r rowScanner) (m Message, err error) {
		var calls, ref sql.NullString
		var created int64
		if err := r.Scan(&m.Seq, &m.Role, &m.Content, &calls, &ref, &created); err != nil {
			return m, err
		}
		m.Ref, m.Created = ref.String, fromMS(created)
		if calls.Valid && calls.String != "" {
			err = json.Unmarshal([]byte(calls.String), &m.ToolCalls)
		}
		return m, err
	}, `SELECT seq, role, content, tool_calls, ref, created_at FROM messages
		WHERE conversation_id = ? AND user_id = ? ORDER BY seq`, conversationID, userID)
}
