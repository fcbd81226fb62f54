package importer

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCountConversationsCountsTheTopLevelElements(t *testing.T) {
	for src, want := range map[string]int{
		`[]`: 0,
		` [ {"a": [1, 2, {"b": "x,y]}"}]}, {"c": "\"quoted, comma\""} ,{}]`: 3,
		`{"not": "an array"}`: -1,
	} {
		if got, _ := countElements(strings.NewReader(src)); got != want {
			t.Errorf("countElements(%s) = %d, want %d", src, got, want)
		}
	}
	if got := CountConversations("testdata/chatgpt.json", ""); got != 3 {
		t.Errorf("chatgpt.json: %d conversations, want 3 (the broken one counts)", got)
	}
	dir := t.TempDir()
	big := filepath.Join(dir, "conversations.json")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeSynthetic(f, 1234, 4); err != nil {
		t.Fatal(err)
	}
	f.Close()
	if got := CountConversations(big, ""); got != 1234 {
		t.Errorf("synthetic export: %d, want 1234", got)
	}
}
