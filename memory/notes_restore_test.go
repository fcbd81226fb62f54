package memory

import (
	"context"
	"testing"
)

func TestRestoreNoteCreatesAMissingRow(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	n := Note{ID: NewID(), Content: "Prefers tea to coffee"}
	back, err := s.RestoreNote(ctx, "alice", n)
	if err != nil {
		t.Fatal(err)
	}
	if back.ID != n.ID || back.Content != n.Content {
		t.Fatalf("restored %+v", back)
	}
	if got, err := s.Note(ctx, "alice", n.ID); err != nil || got.Content != n.Content {
		t.Fatalf("note after restore: %+v, %v", got, err)
	}
}
