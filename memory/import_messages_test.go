package memory

import (
	"context"
	"errors"
	"fmt"
	"testing"
)

// Ctrl+C during an import of another assistant's export keeps the
// conversations already stored as the export had them: one archived there
// is archived here, not left in the list of conversations for good (a later
// import finds it already there and leaves its state alone).
func TestAnInterruptedImportKeepsStoredConversationsArchived(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := openTest(t)
	i := 0
	next := func() (ImportedMessage, error) {
		i++
		if i > importBatch {
			cancel() // Ctrl+C once the first batch is stored
		}
		role := RoleUser
		if i%2 == 0 {
			role = RoleAssistant
		}
		return ImportedMessage{Record: Record{Conversation: "chatgpt:old", Title: "Old plans", Role: role,
			Content: fmt.Sprintf("message %d", i)}, SourceID: fmt.Sprint(i), Archived: true}, nil
	}
	st, err := s.ImportMessages(ctx, "alice", next, MessageImportOptions{})
	if !errors.Is(err, context.Canceled) || st.Imported != importBatch {
		t.Fatalf("imported %d, err %v; want the first batch and the interruption", st.Imported, err)
	}
	convs, err := s.ListConversations(context.Background(), "alice", ListOptions{IncludeArchived: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(convs) != 1 || !convs[0].Archived {
		t.Fatalf("conversations %+v, want Old plans archived", convs)
	}
	if shown, _ := s.ListConversations(context.Background(), "alice", ListOptions{}); len(shown) != 0 {
		t.Fatalf("listed without archived ones: %+v", shown)
	}
}
