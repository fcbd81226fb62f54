package memory

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/memory/internal/sqlq"
	"github.com/mneme-dev/mneme/memory/vector"
)

// Summary is the model's cumulative summary of a conversation's older
// messages, made when the model history was compacted. It covers messages
// FirstSeq..LastSeq; the messages themselves stay as they were. Its Text is
// the plain-text twin of its embedding.
type Summary struct {
	ID             string `json:"id"`
	ConversationID string `json:"conversation_id"`
	UserID         string `json:"user"`
	FirstSeq       int    `json:"first_seq"`
	LastSeq        int    `json:"last_seq"`
	// AtSeq is the last message stored when the summary was made: the
	// transcript marks the compaction after it.
	AtSeq   int       `json:"at_seq"`
	Text    string    `json:"text"`
	Model   string    `json:"model,omitempty"`
	Created time.Time `json:"time"`
	Hash    string    `json:"-"`
}

func textHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:16])
}

const summaryColumns = `s.id, s.conversation_id, s.user_id, s.first_seq, s.last_seq, s.at_seq, s.text, s.model, s.created_at, s.hash`

func scanSummary(row interface{ Scan(...any) error }) (Summary, error) {
	var sum Summary
	var created int64
	if err := row.Scan(&sum.ID, &sum.ConversationID, &sum.UserID, &sum.FirstSeq, &sum.LastSeq, &sum.AtSeq,
		&sum.Text, &sum.Model, &created, &sum.Hash); err != nil {
		return Summary{}, err
	}
	sum.Created = fromMS(created)
	return sum, nil
}

func (s *Store) querySummaries(ctx context.Context, q string, args ...any) ([]Summary, error) {
	return queryRows(ctx, s.db, func(r rowScanner) (Summary, error) { return scanSummary(r) }, q, args...)
}

// SaveSummary stores a summary of the user's conversation and returns it
// with its id, time and hash filled in. The range must lie inside the
// conversation's messages, and the text must not be empty.
func (s *Store) SaveSummary(ctx context.Context, userID string, sum Summary) (Summary, error) {
	if userID == "" {
		return Summary{}, ErrNoUser
	}
	sum.Text = strings.TrimSpace(cleanText(sum.Text))
	switch {
	case sum.Text == "":
		return Summary{}, fmt.Errorf("save summary: empty text: %w", ErrInvalid)
	case sum.FirstSeq < 1 || sum.LastSeq < sum.FirstSeq:
		return Summary{}, fmt.Errorf("save summary: range %d-%d: %w", sum.FirstSeq, sum.LastSeq, ErrInvalid)
	}
	now := s.nowMS()
	sum.ID, sum.UserID, sum.Created, sum.Hash = NewID(), userID, fromMS(now), textHash(sum.Text)
	sum.AtSeq = max(sum.AtSeq, sum.LastSeq)
	err := s.write(ctx, func(tx Execer) error {
		var last sql.NullInt64
		err := tx.QueryRowContext(ctx, `SELECT (SELECT MAX(seq) FROM messages m WHERE m.conversation_id = c.id)
			FROM conversations c WHERE c.id = ? AND c.user_id = ?`, sum.ConversationID, userID).Scan(&last)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("conversation %q: %w", sum.ConversationID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if int64(sum.AtSeq) > last.Int64 {
			return fmt.Errorf("range ends at %d, after the last message %d: %w", sum.AtSeq, last.Int64, ErrInvalid)
		}
		_, err = tx.ExecContext(ctx, `INSERT INTO summaries
			(id, conversation_id, user_id, first_seq, last_seq, at_seq, text, model, created_at, hash)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			sum.ID, sum.ConversationID, userID, sum.FirstSeq, sum.LastSeq, sum.AtSeq, sum.Text, sum.Model, now, sum.Hash)
		return err
	})
	if err != nil {
		return Summary{}, fmt.Errorf("save summary: %w", err)
	}
	return sum, nil
}

// LatestSummary returns the summary of the conversation that covers the
// most messages: the one the model history starts from. Without one the
// error wraps ErrNotFound.
func (s *Store) LatestSummary(ctx context.Context, userID, conversationID string) (Summary, error) {
	if userID == "" {
		return Summary{}, ErrNoUser
	}
	sum, err := scanSummary(s.db.QueryRowContext(ctx, `SELECT `+summaryColumns+` FROM summaries s
		WHERE s.conversation_id = ? AND s.user_id = ? ORDER BY s.last_seq DESC, s.created_at DESC, s.id DESC LIMIT 1`,
		conversationID, userID))
	if errors.Is(err, sql.ErrNoRows) {
		return Summary{}, fmt.Errorf("latest summary of %q: %w", conversationID, ErrNotFound)
	}
	if err != nil {
		return Summary{}, fmt.Errorf("latest summary: %w", err)
	}
	return sum, nil
}

// Summaries returns the conversation's summaries, oldest first.
func (s *Store) Summaries(ctx context.Context, userID, conversationID string) ([]Summary, error) {
	if userID == "" {
		return nil, ErrNoUser
	}
	out, err := s.querySummaries(ctx, `SELECT `+summaryColumns+` FROM summaries s
		WHERE s.conversation_id = ? AND s.user_id = ? ORDER BY s.at_seq, s.created_at, s.id`, conversationID, userID)
	if err != nil {
		return nil, fmt.Errorf("summaries: %w", err)
	}
	return out, nil
}

// SummariesByID returns the user's summaries with the given ids.
func (s *Store) SummariesByID(ctx context.Context, userID string, ids []string) (map[string]Summary, error) {
	list, err := sqlq.InChunks(ids, func(part []string) ([]Summary, error) {
		return s.querySummaries(ctx, `SELECT `+summaryColumns+` FROM summaries s WHERE s.user_id = ? AND s.id `+sqlq.In(len(part)),
			append([]any{userID}, sqlq.Args(part)...)...)
	})
	if err != nil {
		return nil, fmt.Errorf("summaries: %w", err)
	}
	return byID(list, func(sum Summary) string { return sum.ID }), nil
}

// SummariesWithIDs returns the summaries with the given ids, whoever owns
// them (index maintenance after a sync).
func (s *Store) SummariesWithIDs(ctx context.Context, ids []string) ([]Summary, error) {
	list, err := sqlq.InChunks(ids, func(part []string) ([]Summary, error) {
		return s.querySummaries(ctx, `SELECT `+summaryColumns+` FROM summaries s WHERE s.id `+sqlq.In(len(part)), sqlq.Args(part)...)
	})
	if err != nil {
		return nil, fmt.Errorf("summaries: %w", err)
	}
	return list, nil
}

// SummariesNeedingKeywordIndex returns summaries not in the keyword index yet.
func (s *Store) SummariesNeedingKeywordIndex(ctx context.Context, limit int) ([]Summary, error) {
	out, err := s.querySummaries(ctx, `SELECT `+summaryColumns+` FROM summaries s
		LEFT JOIN local.keyword_marks m ON m.kind = 'summary' AND m.id = s.id
		WHERE COALESCE(m.hash, '') != s.hash LIMIT ?`, limit)
	if err != nil {
		return nil, fmt.Errorf("summaries to index: %w", err)
	}
	return out, nil
}

// SummariesFrom returns every summary in id order after the id after (for
// a rebuild of the keyword index).
func (s *Store) SummariesFrom(ctx context.Context, after string, limit int) ([]Summary, error) {
	return s.querySummaries(ctx, `SELECT `+summaryColumns+` FROM summaries s WHERE s.id > ? ORDER BY s.id LIMIT ?`, after, limit)
}

// MarkSummariesKeywordIndexed records that these summaries are in the keyword index.
func (s *Store) MarkSummariesKeywordIndexed(ctx context.Context, list []Summary) error {
	return s.writeLocal(ctx, func(tx Execer) error {
		for _, sum := range list {
			if _, err := tx.ExecContext(ctx, `INSERT INTO local.keyword_marks (kind, id, hash)
				SELECT 'summary', id, hash FROM summaries WHERE id = ? AND hash = ?
				ON CONFLICT(kind, id) DO UPDATE SET hash = excluded.hash`, sum.ID, sum.Hash); err != nil {
				return fmt.Errorf("mark summary indexed: %w", err)
			}
		}
		return nil
	})
}

// SummariesNeedingEmbedding returns summaries with no vectors under model for their text.
func (s *Store) SummariesNeedingEmbedding(ctx context.Context, model string, limit int) ([]Summary, error) {
	out, err := s.querySummaries(ctx, `SELECT `+summaryColumns+` FROM summaries s WHERE `+notEmbedded("s")+`
		ORDER BY s.created_at DESC LIMIT ?`, model, limit)
	if err != nil {
		return nil, fmt.Errorf("summaries to embed: %w", err)
	}
	return out, nil
}

// SummaryVectors calls fn with every vector of the user's summaries under
// model that was made from the summary's text, with the summary's
// conversation.
func (s *Store) SummaryVectors(ctx context.Context, userID, model string, fn func(conversationID string, sv StoredVector) error) error {
	rows, err := s.db.QueryContext(ctx, `SELECT s.conversation_id, e.owner_id, e.chunk, e.vector FROM summaries s
		JOIN embeddings e ON e.owner_id = s.id AND e.model = ? AND e.hash = s.hash
		WHERE s.user_id = ?`, model, userID)
	if err != nil {
		return fmt.Errorf("summary vectors: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		sv := StoredVector{Kind: OwnerSummary}
		var conv string
		var blob []byte
		if err := rows.Scan(&conv, &sv.OwnerID, &sv.Chunk, &blob); err != nil {
			return fmt.Errorf("summary vectors: %w", err)
		}
		if sv.Vector, err = vector.DecodeF32(blob); err != nil {
			return fmt.Errorf("vectors of summary %s: %w", sv.OwnerID, err)
		}
		if err := fn(conv, sv); err != nil {
			return err
		}
	}
	return rows.Err()
}

// TitleSource says where a conversation's title came from.
type TitleSource string

// Title sources. The model never overwrites a title the user set.
const (
	TitleAuto  TitleSource = "auto"  // the first line of the first prompt
	TitleModel TitleSource = "model" // written by the model
	TitleUser  TitleSource = "user"  // set by the user
)

// TitleState is a conversation's title and where it came from.
type TitleState struct {
	Title  string
	Source TitleSource
	// Seq is the last message the model was last asked to title from (0:
	// never asked).
	Seq int
}

// ConversationTitle returns the conversation's title state.
func (s *Store) ConversationTitle(ctx context.Context, userID, conversationID string) (TitleState, error) {
	if userID == "" {
		return TitleState{}, ErrNoUser
	}
	var ts TitleState
	var src string
	err := s.db.QueryRowContext(ctx, `SELECT title, title_source, title_seq FROM conversations WHERE id = ? AND user_id = ?`,
		conversationID, userID).Scan(&ts.Title, &src, &ts.Seq)
	if errors.Is(err, sql.ErrNoRows) {
		return TitleState{}, fmt.Errorf("conversation %q: %w", conversationID, ErrNotFound)
	}
	if err != nil {
		return TitleState{}, fmt.Errorf("conversation title: %w", err)
	}
	ts.Source = TitleSource(src)
	return ts, nil
}

// SetModelTitle records that the model was asked for a title from the
// conversation up to message seq, and sets title when it is not empty. A
// title the user set is never replaced; SetModelTitle reports whether the
// title changed.
func (s *Store) SetModelTitle(ctx context.Context, userID, conversationID, title string, seq int) (bool, error) {
	if userID == "" {
		return false, ErrNoUser
	}
	title = strings.TrimSpace(cleanText(title))
	changed := false
	err := s.write(ctx, func(tx Execer) error {
		if title == "" {
			_, err := tx.ExecContext(ctx, `UPDATE conversations SET title_seq = ? WHERE id = ? AND user_id = ?`, seq, conversationID, userID)
			return err
		}
		res, err := tx.ExecContext(ctx, `UPDATE conversations SET title = ?, title_source = ?, title_seq = ?
			WHERE id = ? AND user_id = ? AND title_source != ?`, title, string(TitleModel), seq, conversationID, userID, string(TitleUser))
		if err != nil {
			return err
		}
		n, _ := res.RowsAffected()
		changed = n > 0
		return nil
	})
	if err != nil {
		return false, fmt.Errorf("set title: %w", err)
	}
	return changed, nil
}

// ContextUsage is the size of a conversation's last model request plus
// its answer, as Ollama counted it, and what that request held.
type ContextUsage struct {
	Tokens    int
	SummaryID string // the summary sent ("" for none)
	FirstSeq  int    // the first message sent verbatim
	LastSeq   int    // the last message the count includes
}

// ContextUsage returns the conversation's last recorded usage; the zero
// value when none is recorded.
func (s *Store) ContextUsage(ctx context.Context, userID, conversationID string) (ContextUsage, error) {
	if userID == "" {
		return ContextUsage{}, ErrNoUser
	}
	var u ContextUsage
	err := s.db.QueryRowContext(ctx, `SELECT tokens, summary_id, first_seq, last_seq FROM context_usage
		WHERE conversation_id = ? AND user_id = ?`, conversationID, userID).Scan(&u.Tokens, &u.SummaryID, &u.FirstSeq, &u.LastSeq)
	if errors.Is(err, sql.ErrNoRows) {
		return ContextUsage{}, nil
	}
	if err != nil {
		return ContextUsage{}, fmt.Errorf("context usage: %w", err)
	}
	return u, nil
}

// SaveContextUsage records the conversation's last usage. A LastSeq of 0
// means the conversation's last message.
func (s *Store) SaveContextUsage(ctx context.Context, userID, conversationID string, u ContextUsage) error {
	if userID == "" {
		return ErrNoUser
	}
	now := s.nowMS()
	err := s.write(ctx, func(tx Execer) error {
		if u.LastSeq == 0 {
			if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) FROM messages WHERE conversation_id = ? AND user_id = ?`,
				conversationID, userID).Scan(&u.LastSeq); err != nil {
				return err
			}
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO context_usage (conversation_id, user_id, tokens, summary_id, first_seq, last_seq, updated_at)
			SELECT id, user_id, ?, ?, ?, ?, ? FROM conversations WHERE id = ? AND user_id = ?
			ON CONFLICT(conversation_id) DO UPDATE SET tokens = excluded.tokens, summary_id = excluded.summary_id,
				first_seq = excluded.first_seq, last_seq = excluded.last_seq, updated_at = excluded.updated_at`,
			u.Tokens, u.SummaryID, u.FirstSeq, u.LastSeq, now, conversationID, userID)
		return err
	})
	if err != nil {
		return fmt.Errorf("save context usage: %w", err)
	}
	return nil
}
