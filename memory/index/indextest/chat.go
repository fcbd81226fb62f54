package indextest

import (
	"context"
	"testing"

	"github.com/mneme-dev/mneme/memory"
)

// Chat stores one exchange in a new conversation of user: pairs alternate
// user and assistant messages.
func Chat(t testing.TB, s *memory.Store, user, title string, pairs ...string) memory.Conversation {
	t.Helper()
	ctx := context.Background()
	c, err := s.CreateConversation(ctx, user, title)
	if err != nil {
		t.Fatal(err)
	}
	for i, text := range pairs {
		role := memory.RoleUser
		if i%2 == 1 {
			role = memory.RoleAssistant
		}
		if _, err := s.AppendMessage(ctx, user, memory.Message{ConversationID: c.ID, Role: role, Content: text}); err != nil {
			t.Fatal(err)
		}
	}
	return c
}
