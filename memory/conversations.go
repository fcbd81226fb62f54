package memory

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mneme-dev/mneme/memory/internal/sqlq"
)

// Conversation is one chat thread owned by a user.
type Conversation struct {
	ID           string    `json:"id"`
	UserID       string    `json:"user"`
	Title        string    `json:"title"`
	Created      time.Time `json:"created"`
	Updated      time.Time `json:"updated"`
	Archived     bool      `json:"archived"`
	MessageCount int       `json:"message_count"`
}

// ListOptions filters ListConversations.
type ListOptions struct {
	IncludeArchived bool
	Limit           int // 0 means no limit
}

// minPrefix is the shortest id prefix accepted in place of a full id.
const minPrefix = 4

// MinChangePrefix is the shortest id prefix accepted by what changes or
// deletes a row (UpdateNote, DeleteNote).
const MinChangePrefix = 8

const convColumns = `c.id, c.user_id, c.title, c.created_at, c.updated_at, c.archived,
	(SELECT COUNT(*) FROM messages m WHERE m.conversation_id = c.id)`

func scanConversation(row interface{ Scan(...any) error }) (Conversation, error) {
	var c Conversation
	var created, updated int64
	var archived int
	if err := row.Scan(&c.ID, &c.UserID, &c.Title, &created, &updated, &archived, &c.MessageCount); err != nil {
		return Conversation{}, err
	}
	c.Created, c.Updated, c.Archived = fromMS(created), fromMS(updated), archived != 0
	return c, nil
}

func ensureUser(ctx context.Context, tx Execer, userID string, now int64) error {
	if strings.TrimSpace(userID) == "" {
		return ErrNoUser
	}
	_, err := tx.ExecContext(ctx, `INSERT INTO users(id, created_at) VALUES (?, ?) ON CONFLICT(id) DO NOTHING`, userID, now)
	return err
}

// CreateConversation starts a new conversation for userID.
func (s *Store) CreateConversation(ctx context.Context, userID, title string) (Conversation, error) {
	now := s.nowMS()
	c := Conversation{ID: NewID(), UserID: userID, Title: cleanText(title), Created: fromMS(now), Updated: fromMS(now)}
	err := s.write(ctx, func(tx Execer) error {
		if err := ensureUser(ctx, tx, userID, now); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, `INSERT INTO conversations(id, user_id, title, created_at, updated_at) VALUES (?, ?, ?, ?, ?)`,
			c.ID, userID, c.Title, now, now)
		return err
	})
	if err != nil {
		return Conversation{}, fmt.Errorf("create conversation: %w", err)
	}
	return c, nil
}

// Conversation returns the user's conversation with the given id, the id
// it had in the export it was imported from, or a unique id prefix of at
// least four characters.
func (s *Store) Conversation(ctx context.Context, userID, id string) (Conversation, error) {
	id = strings.TrimSpace(id)
	if userID == "" {
		return Conversation{}, ErrNoUser
	}
	if !utf8.ValidString(id) { // no id is; the driver refuses to look
		return Conversation{}, fmt.Errorf("conversation %q: %w", id, ErrNotFound)
	}
	c, err := scanConversation(s.db.QueryRowContext(ctx, `SELECT `+convColumns+` FROM conversations c
		WHERE c.user_id = ? AND (c.id = ? OR c.external_id = ?) ORDER BY c.id = ? DESC LIMIT 1`, userID, id, id, id))
	if err == nil {
		return c, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return Conversation{}, fmt.Errorf("conversation: %w", err)
	}
	if len(id) < minPrefix || strings.ContainsAny(id, "%_") {
		return Conversation{}, fmt.Errorf("conversation %q: %w (an id prefix needs %d characters)", id, ErrNotFound, minPrefix)
	}
	rows, err := s.db.QueryContext(ctx,
		`SELECT `+convColumns+` FROM conversations c WHERE c.user_id = ? AND c.id LIKE ? LIMIT 2`, userID, id+"%")
	if err != nil {
		return Conversation{}, fmt.Errorf("conversation: %w", err)
	}
	found, err := collectConversations(rows)
	if err != nil {
		return Conversation{}, fmt.Errorf("conversation: %w", err)
	}
	switch len(found) {
	case 0:
		return Conversation{}, fmt.Errorf("conversation %q: %w", id, ErrNotFound)
	case 1:
		return found[0], nil
	default:
		return Conversation{}, fmt.Errorf("conversation %q: %w", id, ErrAmbiguous)
	}
}

// LatestConversation returns the user's most recently updated, unarchived conversation.
func (s *Store) LatestConversation(ctx context.Context, userID string) (Conversation, error) {
	list, err := s.ListConversations(ctx, userID, ListOptions{Limit: 1})
	if err != nil {
		return Conversation{}, err
	}
	if len(list) == 0 {
		return Conversation{}, fmt.Errorf("latest conversation: %w", ErrNotFound)
	}
	return list[0], nil
}

// ListConversations lists the user's conversations, most recently updated first.
func (s *Store) ListConversations(ctx context.Context, userID string, opts ListOptions) ([]Conversation, error) {
	if userID == "" {
		return nil, ErrNoUser
	}
	q := `SELECT ` + convColumns + ` FROM conversations c WHERE c.user_id = ?`
	if !opts.IncludeArchived {
		q += ` AND c.archived = 0`
	}
	q += ` ORDER BY c.updated_at DESC, c.id DESC`
	args := []any{userID}
	if opts.Limit > 0 {
		q += ` LIMIT ?`
		args = append(args, opts.Limit)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	list, err := collectConversations(rows)
	if err != nil {
		return nil, fmt.Errorf("list conversations: %w", err)
	}
	return list, nil
}

func collectConversations(rows *sql.Rows) ([]Conversation, error) {
	defer rows.Close()
	var out []Conversation
	for rows.Next() {
		c, err := scanConversation(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

// RenameConversation sets a conversation's title as the user's: the model
// never replaces it.
func (s *Store) RenameConversation(ctx context.Context, userID, id, title string) error {
	title = cleanText(title)
	return s.write(ctx, func(tx Execer) error {
		res, err := tx.ExecContext(ctx, `UPDATE conversations SET title = ?, title_source = ? WHERE id = ? AND user_id = ?`,
			title, string(TitleUser), id, userID)
		if err != nil {
			return fmt.Errorf("rename conversation: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("rename conversation %q: %w", id, ErrNotFound)
		}
		return nil
	})
}

// maxTitleRunes bounds a derived title.
const maxTitleRunes = 60

// DeriveTitle makes a conversation title from a user message: its first
// non-empty line, whitespace folded, cut to 60 characters.
func DeriveTitle(text string) string {
	text = cleanText(text)
	for _, line := range strings.Split(text, "\n") {
		line = strings.Join(strings.FieldsFunc(line, unicode.IsSpace), " ")
		if line == "" {
			continue
		}
		r := []rune(line)
		if len(r) > maxTitleRunes {
			return strings.TrimSpace(string(r[:maxTitleRunes-1])) + "…"
		}
		return line
	}
	return ""
}

// cleanText makes text safe to store: valid UTF-8 and no NUL bytes (the
// libSQL C API would truncate at a NUL). Everything else is kept as written.
func cleanText(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	return strings.ReplaceAll(s, "\x00", "\uFFFD")
}

// SetArchived archives or unarchives a conversation.
func (s *Store) SetArchived(ctx context.Context, userID, id string, archived bool) error {
	v := 0
	if archived {
		v = 1
	}
	return s.write(ctx, func(tx Execer) error {
		res, err := tx.ExecContext(ctx, `UPDATE conversations SET archived = ? WHERE id = ? AND user_id = ?`, v, id, userID)
		if err != nil {
			return fmt.Errorf("archive conversation: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("archive conversation %q: %w", id, ErrNotFound)
		}
		return nil
	})
}

// ArchivedConversations returns the ids of the user's archived
// conversations, which search hides unless asked to include them.
func (s *Store) ArchivedConversations(ctx context.Context, userID string) (map[string]bool, error) {
	out, err := s.idSet(ctx, `SELECT id FROM conversations WHERE user_id = ? AND archived = 1`, userID)
	if err != nil {
		return nil, fmt.Errorf("archived conversations: %w", err)
	}
	return out, nil
}

// ConversationTitles maps conversation ids to their titles (any user's;
// ids may repeat).
func (s *Store) ConversationTitles(ctx context.Context, ids []string) (map[string]string, error) {
	out := make(map[string]string, len(ids))
	for start := 0; start < len(ids); start += sqlq.MaxParams {
		part := ids[start:min(start+sqlq.MaxParams, len(ids))]
		rows, err := s.db.QueryContext(ctx, `SELECT id, title FROM conversations WHERE id IN (`+sqlq.Placeholders(len(part))+`)`, sqlq.Args(part)...)
		if err != nil {
			return nil, fmt.Errorf("titles: %w", err)
		}
		for rows.Next() {
			var id, title string
			if err := rows.Scan(&id, &title); err != nil {
				rows.Close()
				return nil, err
			}
			out[id] = title
		}
		rows.Close()
	}
	return out, nil
}
