package index

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/memory"
)

// TestIndexProgressReportsTheCatchUp: a catch-up of the keyword index
// (here a rebuild after the index was lost) reports after each batch how
// many of how many turns are done; with nothing to do it reports nothing.
func TestIndexProgressReportsTheCatchUp(t *testing.T) {
	s := openTest(t)
	ctx := context.Background()
	var lines []string
	for i := range 5000 { // 2,500 turns in 25 conversations
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		lines = append(lines, fmt.Sprintf(`{"conversation":"c%d","role":%q,"content":"message %d"}`, i/200, role, i))
	}
	if _, err := s.Import(ctx, "alice", strings.NewReader(strings.Join(lines, "\n")), memory.ImportOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	type report struct{ done, total int }
	var got []report
	open := func() *Index {
		got = nil
		ix, err := OpenIndex(ctx, s, dir, IndexOptions{Progress: func(done, total int) { got = append(got, report{done, total}) }})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		return ix
	}
	want := []report{{1000, 2500}, {2000, 2500}, {2500, 2500}}
	for _, step := range []string{"first index", "rebuild"} {
		ix := open()
		if err := ix.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: progress %v, want %v", step, got, want)
		}
		if err := ix.Drain(ctx); err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("%s: nothing left to do, yet progress %v", step, got[len(want):])
		}
		ix.Close()
		os.RemoveAll(filepath.Join(dir, "keyword")) // as if lost in a crash
	}
}
