package memory

import (
	"context"
	"testing"
)

// chat stores one exchange in a new conversation of user.
func chat(t *testing.T, s *Store, user, title string, pairs ...string) Conversation {
	t.Helper()
	ctx := context.Background()
	c, err := s.CreateConversation(ctx, user, title)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range pairs {
		role := RoleUser
		if i%2 == 1 {
			role = RoleAssistant
		}
		if _, err := s.AppendMessage(ctx, user, Message{ConversationID: c.ID, Role: role, Content: text}); err != nil {
			t.Fatal(err)
		}
	}
	return c
}
