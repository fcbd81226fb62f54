package index

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/memory"
)

// TestRetention: learnt notes of low confidence that nothing used for the
// retention period are archived (a used one stays, and what the user saved
// stays whatever its age); archived notes are listed apart and never
// recalled; they are deleted, vectors and keyword entries included, once
// archived long enough; old conversations are archived when asked.
func TestRetention(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	s, err := memory.Open(ctx, filepath.Join(t.TempDir(), memory.DBFileName), memory.WithClock(func() time.Time { return clock }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ix := openIndex(t, s, t.TempDir(), nil, "")
	conv := chat(t, s, "alice", "Old chat", "Tomatoes need sun", "Yes.")
	save := func(text string, confidence float64) memory.Note {
		t.Helper()
		n, err := ix.SaveNote(ctx, "alice", text, memory.NoteSource{By: memory.SourceExtracted, Confidence: confidence})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	guess := save("Maybe likes tomatoes", 0.3)
	used := save("Maybe grows tomatoes", 0.3)
	mine, err := ix.SaveNote(ctx, "alice", "Keeps tomato seeds in the fridge", memory.NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	r := memory.Retention{ArchiveUnusedAfter: 180 * 24 * time.Hour, ArchiveBelowConfidence: 0.5,
		DeleteArchivedAfter: 30 * 24 * time.Hour, ArchiveConversationsAfter: 365 * 24 * time.Hour}

	clock = clock.Add(100 * 24 * time.Hour)
	if err := s.TouchNotes(ctx, []string{used.ID}); err != nil {
		t.Fatal(err)
	}
	clock = clock.Add(100 * 24 * time.Hour) // 200 days after saving, 100 after the use
	res, err := ix.ApplyRetention(ctx, "alice", r)
	if err != nil || res.NotesArchived != 1 || res.ConversationsArchived != 0 || len(res.NotesToDelete) != 0 {
		t.Fatalf("first run: %+v %v", res, err)
	}
	listed, _ := s.ListNotes(ctx, "alice")
	archived, _ := s.ListArchivedNotes(ctx, "alice")
	if len(listed) != 2 || len(archived) != 1 || archived[0].ID != guess.ID || archived[0].Status != memory.NoteArchived {
		t.Fatalf("listed %d, archived %+v", len(listed), archived)
	}
	recalled, err := ix.Recall(ctx, RecallQuery{UserID: "alice", Text: "likes tomatoes", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range recalled {
		if n.ID == guess.ID {
			t.Fatal("an archived note was recalled")
		}
	}

	clock = clock.Add(200 * 24 * time.Hour) // the archived note is 200 days archived; the chat is 400 days old
	res, err = ix.ApplyRetention(ctx, "alice", r)
	if err != nil || res.ConversationsArchived != 1 || len(res.NotesToDelete) != 1 || res.NotesToDelete[0] != guess.ID {
		t.Fatalf("second run: %+v %v", res, err)
	}
	if _, err := s.Note(ctx, "alice", guess.ID); err == nil {
		t.Fatal("the archived note was not deleted")
	}
	if got := noteTexts(searchNotes(t, ix, "alice", "likes")); got != "" {
		t.Fatalf("the deleted note is still found: %q", got)
	}
	if n, err := s.Note(ctx, "alice", mine.ID); err != nil || n.Status != memory.NoteActive {
		t.Fatalf("the user's own note: %+v %v", n, err)
	}
	if c, _ := s.Conversation(ctx, "alice", conv.ID); !c.Archived {
		t.Fatal("the old conversation was not archived")
	}
}
