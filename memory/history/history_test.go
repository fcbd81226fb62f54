package history

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mneme-dev/mneme/memory"
)

// TestShortIDNamesOneChange: a listing shows 13 characters of a change's
// id, more when another change shares them (approving many notes makes
// several in one millisecond: `memory undo` of the id `memory history`
// showed was "ambiguous"), so that each id shown finds its change.
func TestShortIDNamesOneChange(t *testing.T) {
	ctx := context.Background()
	s, err := memory.Open(ctx, filepath.Join(t.TempDir(), memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	n, err := s.SaveNote(ctx, "alice", "Has a cat called Tom", memory.NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	ids := []string{
		"01a21100-0000-7aaa-8000-000000000001", "01a21100-0000-7aaa-8000-000000000002", // alike to the 23rd character
		"01a21100-0000-7bbb-8000-000000000003", // the same millisecond
		"01a21100-0001-7aaa-8000-000000000004", // the next one
	}
	for _, id := range ids {
		if _, err := s.DB().ExecContext(ctx, `INSERT INTO note_changes (id, note_id, user_id, op, changed_by, at,
			before_text, after_text, before_status, after_status) VALUES (?, ?, 'alice', 'status', 'user', 0, '', '', 'pending', 'active')`,
			id, n.ID); err != nil {
			t.Fatal(err)
		}
	}
	for id, want := range map[string]string{
		ids[0]: ids[0], ids[1]: ids[1], ids[2]: "01a21100-0000-7bbb", ids[3]: "01a21100-0001",
	} {
		got := ShortID(ctx, s, "alice", id)
		if got != want {
			t.Errorf("ShortID(%s) = %s, want %s", id, got, want)
		}
		if c, err := ByID(ctx, s, "alice", got); err != nil || c.ID != id {
			t.Errorf("ByID(%s) = %s, %v; want %s", got, c.ID, err, id)
		}
	}
}
