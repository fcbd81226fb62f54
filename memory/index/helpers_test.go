package index

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mneme-dev/mneme/memory"
)

func openTest(t *testing.T) *memory.Store { return openStoreIn(t, t.TempDir()) }

// openStoreIn opens a handle on the store in dir, closed with the test:
// two handles stand for two processes.
func openStoreIn(t *testing.T, dir string) *memory.Store {
	t.Helper()
	s, err := memory.Open(context.Background(), filepath.Join(dir, memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// rowsOf counts rows of a table that belong to a conversation.
func rowsOf(t *testing.T, s *memory.Store, q string, args ...any) int {
	t.Helper()
	var n int
	if err := s.DB().QueryRowContext(context.Background(), q, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}
