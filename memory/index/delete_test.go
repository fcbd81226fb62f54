package index

import (
	"context"
	"errors"
	"testing"

	"github.com/mneme-dev/mneme/memory"
)

func TestDeleteConversationRemovesItEverywhere(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	cats, cars := seed(t, s)
	e := &topicEmbedder{}
	ix := openIndex(t, s, t.TempDir(), e, "topic")
	if _, err := s.SaveSummary(ctx, "alice", memory.Summary{ConversationID: cats.ID, FirstSeq: 1, LastSeq: 2, AtSeq: 4,
		Text: "The kitten scratches the sofa; a scratching post helps."}); err != nil {
		t.Fatal(err)
	}
	if err := s.SaveContextUsage(ctx, "alice", cats.ID, memory.ContextUsage{Tokens: 100, FirstSeq: 1}); err != nil {
		t.Fatal(err)
	}
	note, err := ix.SaveNote(ctx, "alice", "The kitten is called Luna.", memory.NoteSource{ConversationID: cats.ID, TurnNumber: 2})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if res := search(t, ix, "alice", "kitten scratching sofa"); len(res) == 0 || res[0].ConversationID != cats.ID {
		t.Fatalf("before the delete, search = %+v", res)
	}
	docsBefore, _ := ix.kw.Count()
	if n := rowsOf(t, s, `SELECT COUNT(*) FROM embeddings WHERE owner_id LIKE ? || ':%'`, cats.ID); n == 0 {
		t.Fatal("the conversation's turns were not embedded")
	}
	if n := rowsOf(t, s, `SELECT COUNT(*) FROM embeddings WHERE kind = 'summary'`); n == 0 {
		t.Fatal("the summary was not embedded")
	}

	// Another user cannot delete it, nor can a prefix.
	if err := ix.DeleteConversation(ctx, "bob", cats.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("bob deleting alice's conversation: %v, want ErrNotFound", err)
	}
	if err := ix.DeleteConversation(ctx, "alice", cats.ID[:8]); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("deleting by prefix: %v, want ErrNotFound", err)
	}

	if err := ix.DeleteConversation(ctx, "alice", cats.ID); err != nil {
		t.Fatal(err)
	}
	for table, q := range map[string]string{
		"conversations": `SELECT COUNT(*) FROM conversations WHERE id = ?`,
		"messages":      `SELECT COUNT(*) FROM messages WHERE conversation_id = ?`,
		"turns":         `SELECT COUNT(*) FROM turns WHERE conversation_id = ?`,
		"summaries":     `SELECT COUNT(*) FROM summaries WHERE conversation_id = ?`,
		"context_usage": `SELECT COUNT(*) FROM context_usage WHERE conversation_id = ?`,
		"embeddings":    `SELECT COUNT(*) FROM embeddings WHERE owner_id LIKE ? || ':%'`,
	} {
		if n := rowsOf(t, s, q, cats.ID); n != 0 {
			t.Errorf("%s rows of the deleted conversation = %d", table, n)
		}
	}
	if n := rowsOf(t, s, `SELECT COUNT(*) FROM embeddings WHERE kind = 'summary'`); n != 0 {
		t.Errorf("summary embeddings left = %d", n)
	}
	if _, err := s.Conversation(ctx, "alice", cats.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Errorf("Conversation after delete: %v", err)
	}
	// The other conversations are untouched.
	if n := rowsOf(t, s, `SELECT COUNT(*) FROM messages WHERE conversation_id = ?`, cars.ID); n != 2 {
		t.Errorf("messages of the other conversation = %d, want 2", n)
	}
	if n := rowsOf(t, s, `SELECT COUNT(*) FROM messages WHERE user_id = 'bob'`); n != 2 {
		t.Errorf("bob's messages = %d, want 2", n)
	}
	// Search forgets it, by keywords and by meaning.
	for _, q := range []string{"kitten scratching sofa", "feline"} {
		for _, r := range search(t, ix, "alice", q) {
			if r.ConversationID == cats.ID {
				t.Errorf("search %q still finds the deleted conversation: %+v", q, r)
			}
		}
	}
	if res := search(t, ix, "alice", "engine rattling"); len(res) == 0 || res[0].ConversationID != cars.ID {
		t.Errorf("search for the other conversation = %+v", res)
	}
	docsAfter, _ := ix.kw.Count()
	if want := docsBefore - 3; docsAfter != want { // two turns and a summary
		t.Errorf("keyword documents after the delete = %d, want %d", docsAfter, want)
	}
	// The note saved from it stays.
	if n, err := s.Note(ctx, "alice", note.ID); err != nil || n.Content != note.Content {
		t.Errorf("note saved from the deleted conversation: %+v, %v", n, err)
	}
	// Draining again neither fails nor brings it back.
	if err := ix.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	list, err := s.ListConversations(ctx, "alice", memory.ListOptions{IncludeArchived: true})
	if err != nil || len(list) != 1 || list[0].ID != cars.ID {
		t.Fatalf("alice's conversations after the delete = %+v, %v", list, err)
	}
}
