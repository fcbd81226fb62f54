package memory

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"
)

// Role is who wrote a message.
type Role string

// Message roles, as Ollama names them.
const (
	RoleSystem    Role = "system"
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// Valid reports whether r is a known role.
func (r Role) Valid() bool {
	switch r {
	case RoleSystem, RoleUser, RoleAssistant, RoleTool:
		return true
	}
	return false
}

// Status tells whether a message was written in full.
type Status string

// Message statuses.
const (
	StatusComplete    Status = "complete"
	StatusInterrupted Status = "interrupted"
)

// ToolCall is a tool invocation requested by the model.
type ToolCall struct {
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name"`
	Arguments json.RawMessage `json:"arguments,omitempty"`
}

// Message is one stored chat message.
type Message struct {
	ID             string     `json:"id"`
	ConversationID string     `json:"conversation"`
	Seq            int        `json:"seq"`
	Role           Role       `json:"role"`
	Content        string     `json:"content"`
	Thinking       string     `json:"thinking,omitempty"`
	ToolCalls      []ToolCall `json:"tool_calls,omitempty"`
	ToolCallID     string     `json:"tool_call_id,omitempty"`
	ToolName       string     `json:"tool_name,omitempty"`
	Ref            string     `json:"ref,omitempty"`
	Created        time.Time  `json:"time"`
	Status         Status     `json:"status"`
	Model          string     `json:"model,omitempty"` // the model that wrote it, when known
}

// AppendMessage stores m at the end of its conversation and returns it with
// its id, sequence number and time filled in. The conversation must belong
// to userID. A conversation without a title takes one from its first user
// message.
func (s *Store) AppendMessage(ctx context.Context, userID string, m Message) (Message, error) {
	if userID == "" {
		return Message{}, ErrNoUser
	}
	if !m.Role.Valid() {
		return Message{}, fmt.Errorf("append message: role %q: %w", m.Role, ErrInvalid)
	}
	if m.Status == "" {
		m.Status = StatusComplete
	}
	if m.Status != StatusComplete && m.Status != StatusInterrupted {
		return Message{}, fmt.Errorf("append message: status %q: %w", m.Status, ErrInvalid)
	}
	if m.ID == "" {
		m.ID = NewID()
	}
	now := s.nowMS()
	if m.Created.IsZero() {
		m.Created = fromMS(now)
	}
	m.Content, m.Thinking, m.Ref = cleanText(m.Content), cleanText(m.Thinking), cleanText(m.Ref)
	var calls any
	if len(m.ToolCalls) > 0 {
		b, err := json.Marshal(m.ToolCalls)
		if err != nil {
			return Message{}, fmt.Errorf("append message: tool calls: %w", err)
		}
		calls = string(b)
	}
	var ref any
	if m.Ref != "" {
		ref = m.Ref
	}
	err := s.write(ctx, func(tx Execer) error {
		var title string
		err := tx.QueryRowContext(ctx, `SELECT title FROM conversations WHERE id = ? AND user_id = ?`, m.ConversationID, userID).Scan(&title)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("conversation %q: %w", m.ConversationID, ErrNotFound)
		}
		if err != nil {
			return err
		}
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(seq), 0) + 1 FROM messages WHERE conversation_id = ?`, m.ConversationID).Scan(&m.Seq); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO messages
			(id, conversation_id, user_id, seq, role, content, thinking, tool_calls, tool_call_id, tool_name, ref, created_at, status, model)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			m.ID, m.ConversationID, userID, m.Seq, string(m.Role), m.Content, m.Thinking, calls,
			m.ToolCallID, m.ToolName, ref, m.Created.UnixMilli(), string(m.Status), m.Model); err != nil {
			return err
		}
		if title == "" && m.Role == RoleUser {
			title = DeriveTitle(m.Content)
		}
		_, err = tx.ExecContext(ctx, `UPDATE conversations SET updated_at = MAX(updated_at, ?), title = ? WHERE id = ?`,
			m.Created.UnixMilli(), title, m.ConversationID)
		return err
	})
	if err != nil {
		return Message{}, fmt.Errorf("append message: %w", err)
	}
	return m, nil
}

// Messages returns the conversation's messages in order.
func (s *Store) Messages(ctx context.Context, userID, conversationID string) ([]Message, error) {
	return s.messagesAfter(ctx, userID, conversationID, 0, -1)
}

// messagesAfter returns at most limit (-1: all) of the conversation's
// messages after seq afterSeq, in order.
func (s *Store) messagesAfter(ctx context.Context, userID, conversationID string, afterSeq, limit int) ([]Message, error) {
	if userID == "" {
		return nil, ErrNoUser
	}
	rows, err := s.db.QueryContext(ctx, `SELECT id, conversation_id, seq, role, content, thinking, tool_calls,
		tool_call_id, tool_name, ref, created_at, status, model
		FROM messages WHERE conversation_id = ? AND user_id = ? AND seq > ? ORDER BY seq LIMIT ?`,
		conversationID, userID, afterSeq, limit)
	if err != nil {
		return nil, fmt.Errorf("messages: %w", err)
	}
	defer rows.Close()
	var out []Message
	for rows.Next() {
		var m Message
		var calls, ref sql.NullString
		var created int64
		var role, status string
		if err := rows.Scan(&m.ID, &m.ConversationID, &m.Seq, &role, &m.Content, &m.Thinking, &calls,
			&m.ToolCallID, &m.ToolName, &ref, &created, &status, &m.Model); err != nil {
			return nil, fmt.Errorf("messages: %w", err)
		}
		m.Role, m.Status, m.Ref, m.Created = Role(role), Status(status), ref.String, fromMS(created)
		if calls.Valid && calls.String != "" {
			if err := json.Unmarshal([]byte(calls.String), &m.ToolCalls); err != nil {
				return nil, fmt.Errorf("messages: tool calls of %s: %w", m.ID, err)
			}
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("messages: %w", err)
	}
	return out, nil
}

// UpdateMessage rewrites the text, tool calls and status of a stored
// message that is still interrupted: an answer saved as it streams (marked
// interrupted, so that a crash leaves it so) and completed when its stream
// ends. A complete message never changes; updating one fails with
// ErrInvalid. The message must belong to userID.
func (s *Store) UpdateMessage(ctx context.Context, userID string, m Message) error {
	if userID == "" {
		return ErrNoUser
	}
	if m.Status == "" {
		m.Status = StatusComplete
	}
	if m.Status != StatusComplete && m.Status != StatusInterrupted {
		return fmt.Errorf("update message: status %q: %w", m.Status, ErrInvalid)
	}
	var calls any
	if len(m.ToolCalls) > 0 {
		b, err := json.Marshal(m.ToolCalls)
		if err != nil {
			return fmt.Errorf("update message: tool calls: %w", err)
		}
		calls = string(b)
	}
	return s.write(ctx, func(tx Execer) error {
		var status string
		err := tx.QueryRowContext(ctx, `SELECT status FROM messages WHERE id = ? AND user_id = ?`, m.ID, userID).Scan(&status)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("update message %q: %w", m.ID, ErrNotFound)
		}
		if err != nil {
			return fmt.Errorf("update message: %w", err)
		}
		if Status(status) != StatusInterrupted {
			return fmt.Errorf("update message %q: it is %s: %w", m.ID, status, ErrInvalid)
		}
		if _, err := tx.ExecContext(ctx, `UPDATE messages SET content = ?, thinking = ?, tool_calls = ?, status = ? WHERE id = ?`,
			cleanText(m.Content), cleanText(m.Thinking), calls, string(m.Status), m.ID); err != nil {
			return fmt.Errorf("update message: %w", err)
		}
		return nil
	})
}

// Unanswered is the answer stored for a turn that ended before its first
// word (stopped, Ollama unreachable or failing): empty and marked
// interrupted, so that the turn reads the same live, after a reload and in
// exports, and two prompts never follow each other.
func Unanswered(conversationID string) Message {
	return Message{ConversationID: conversationID, Role: RoleAssistant, Status: StatusInterrupted}
}
