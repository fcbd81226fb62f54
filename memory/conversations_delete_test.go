package memory

import (
	"context"
	"errors"
	"testing"
)

func TestStoreDeleteConversationWithoutIndex(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	c := chat(t, s, "alice", "Short", "hello", "hi")
	if err := s.DeleteConversation(ctx, "alice", c.ID); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteConversation(ctx, "alice", c.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("second delete: %v, want ErrNotFound", err)
	}
	if err := s.DeleteConversation(ctx, "", c.ID); !errors.Is(err, ErrNoUser) {
		t.Fatalf("delete without a user: %v, want ErrNoUser", err)
	}
}
