package mdexport

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/memory"
)

const sample = `{"conversation":"trip","title":"Lisbon trip","role":"user","content":"Plan a trip to Lisbon","time":"2024-05-01T10:00:00Z"}
{"conversation":"trip","role":"assistant","content":"Day 1: Alfama.","time":"2024-05-01T10:00:05Z"}
{"conversation":"trip","role":"assistant","content":"","tool_calls":[{"name":"memory_save","arguments":{"content":"likes trams"}}]}
{"conversation":"later","title":"Evil \u001b]0;x\u0007title","role":"user","content":"and \u202eback","time":"2024-06-01T10:00:00Z"}
{"user":"bob","conversation":"bobs","role":"user","content":"bob's question"}
`

func TestExportMarkdownAndScope(t *testing.T) {
	ctx := context.Background()
	s, err := memory.Open(ctx, filepath.Join(t.TempDir(), memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Import(ctx, "alice", strings.NewReader(sample), memory.ImportOptions{AllUsers: true}); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Export(ctx, s, "alice", "", &buf); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, want := range []string{"# Lisbon trip", "## You\n\nPlan a trip to Lisbon", "## Assistant\n\nDay 1: Alfama.", "memory_save content:likes trams", "\n---\n\n# Lisbon trip"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Contains(md, "bob") || strings.ContainsAny(md, "\x1b\a\u202e") {
		t.Fatalf("alice's export holds bob's conversation or raw controls:\n%q", md)
	}
	convs, _ := s.ListConversations(ctx, "alice", memory.ListOptions{})
	if err := Export(ctx, s, "bob", convs[0].ID, &buf); err == nil {
		t.Fatal("bob exported alice's conversation")
	}
}
