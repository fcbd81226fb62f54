package memory

import (
	"context"
	"fmt"
)

// ConversationNoteIDs returns the ids of the user's notes that came from
// a conversation (learnt or saved there: their conversation_id is id),
// whatever their status; deleted notes are not listed. The conversation
// need not exist any more.
func (s *Store) ConversationNoteIDs(ctx context.Context, userID, id string) ([]string, error) {
	if userID == "" {
		return nil, ErrNoUser
	}
	ids, err := idsOf(ctx, s.db, `SELECT id FROM notes WHERE user_id = ? AND conversation_id = ? AND deleted_at IS NULL
		ORDER BY created_at, id`, userID, id)
	if err != nil {
		return nil, fmt.Errorf("notes of conversation: %w", err)
	}
	return ids, nil
}

// ConversationNoteCount is how many of the user's notes came from a
// conversation (see ConversationNoteIDs).
func (s *Store) ConversationNoteCount(ctx context.Context, userID, id string) (int, error) {
	ids, err := s.ConversationNoteIDs(ctx, userID, id)
	return len(ids), err
}
