package importer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/mneme-dev/mneme/memory"
)

// A conversation archived in the export is archived here as soon as it is
// stored, so an export cut off after it (a broken download) leaves it
// archived, and importing the whole export afterwards keeps it so. It used
// to be stored unarchived, and the second import, finding it already
// there, never archived it. One the user unarchived stays unarchived.
func TestAnArchivedConversationBeforeACutStaysArchived(t *testing.T) {
	secret := `{"id":"c1","title":"Secret plans","is_archived":true,"current_node":"b","mapping":{` +
		`"a":{"message":{"id":"a","author":{"role":"user"},"content":{"content_type":"text","parts":["hi"]}},"parent":"","children":["b"]},` +
		`"b":{"message":{"id":"b","author":{"role":"assistant"},"content":{"content_type":"text","parts":["hello"]}},"parent":"a","children":[]}}}`
	dir := t.TempDir()
	cut := filepath.Join(dir, "cut.json")
	whole := filepath.Join(dir, "whole.json")
	if err := os.WriteFile(cut, []byte("["+secret+`,{"id":"c2","mapping":{"x":`), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(whole, []byte("["+secret+"]"), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	s := openStore(t)
	archived := func() map[string]bool {
		t.Helper()
		convs, err := s.ListConversations(ctx, user, memory.ListOptions{IncludeArchived: true})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, c := range convs {
			out[c.Title] = c.Archived
		}
		return out
	}

	in, err := Open(cut, "")
	if err != nil {
		t.Fatal(err)
	}
	r, _ := NewReader(in)
	_, err = Run(ctx, s, user, r, Options{})
	in.Close()
	if !errors.Is(err, ErrBroken) {
		t.Fatalf("the cut export: %v, want ErrBroken", err)
	}
	if got := archived(); len(got) != 1 || !got["Secret plans"] {
		t.Fatalf("after the cut export: %v, want Secret plans archived", got)
	}

	importFile(t, s, whole)
	if got := archived(); len(got) != 1 || !got["Secret plans"] {
		t.Fatalf("after the whole export: %v, want Secret plans archived", got)
	}

	// Unarchived by the user, it stays so when the export comes again.
	convs, _ := s.ListConversations(ctx, user, memory.ListOptions{IncludeArchived: true})
	if err := s.SetArchived(ctx, user, convs[0].ID, false); err != nil {
		t.Fatal(err)
	}
	importFile(t, s, whole)
	if got := archived(); got["Secret plans"] {
		t.Fatalf("after unarchiving and importing again: %v, want it unarchived", got)
	}
}
