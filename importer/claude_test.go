package importer

import (
	"os"
	"path/filepath"
	"testing"
)

// A Claude export whose parent links loop (a hostile or corrupted file)
// imports each message of the branch once, in order, and the end counts
// the messages left off the branch. It used to walk the loop past its
// start: the messages came out of order, the repeats counted as "already
// there", and the end said a negative number were on other branches.
func TestClaudeParentChainWithACycle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "claude.json")
	if err := os.WriteFile(path, []byte(`[
		{"uuid":"loop","name":"Loop","current_leaf_message_uuid":"m3","chat_messages":[
			{"uuid":"m1","parent_message_uuid":"m3","sender":"human","text":"first","created_at":"2024-05-01T10:00:00Z"},
			{"uuid":"m2","parent_message_uuid":"m1","sender":"assistant","text":"second","created_at":"2024-05-01T10:00:01Z"},
			{"uuid":"m3","parent_message_uuid":"m2","sender":"human","text":"third","created_at":"2024-05-01T10:00:02Z"},
			{"uuid":"m4","parent_message_uuid":"m1","sender":"assistant","text":"edited away","created_at":"2024-05-01T10:00:03Z"}]},
		{"uuid":"self","name":"Own parent","current_leaf_message_uuid":"s1","chat_messages":[
			{"uuid":"s1","parent_message_uuid":"s1","sender":"human","text":"me again","created_at":"2024-05-01T11:00:00Z"}]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	sum, bad := importFileAs(t, s, path, Claude)
	if len(bad) != 0 {
		t.Fatalf("bad: %q", bad)
	}
	got := transcript(t, s)
	equal(t, "the looping branch", got["Loop"], []string{"user: first", "assistant: second", "user: third"})
	equal(t, "the message that is its own parent", got["Own parent"], []string{"user: me again"})
	if sum.Skipped != (Skipped{Branch: 1}) || sum.Stats.Imported != 4 || sum.Stats.Unchanged != 0 || sum.Stats.Conflicts != 0 {
		t.Errorf("summary %+v", sum)
	}
}

// TestClaudeAttachmentsKeepTheirText: a file's text and a long paste
// (an attachment without a name) stay in the message, so that search finds
// the log pasted there; they were "[file: ]" and lost.
func TestClaudeAttachmentsKeepTheirText(t *testing.T) {
	path := filepath.Join(t.TempDir(), "claude.json")
	if err := os.WriteFile(path, []byte(`[
		{"uuid":"c1","name":"Crash","chat_messages":[
			{"uuid":"m1","sender":"human","text":"why does it crash?","created_at":"2024-05-01T10:00:00Z",
			 "attachments":[{"file_name":"","file_type":"txt","extracted_content":"panic: runtime error: index out of range [3]\n"}]},
			{"uuid":"m2","sender":"assistant","text":"An index past the slice's end.","created_at":"2024-05-01T10:00:01Z"},
			{"uuid":"m3","sender":"human","text":"","created_at":"2024-05-01T10:00:02Z",
			 "attachments":[{"file_name":"main.go","extracted_content":"package main"},{"file_name":"empty.txt","extracted_content":"  "},
			                {"file_name":"evil\n[pasted]name.md","extracted_content":"x"}],
			 "files":[{"file_name":"photo.png"}]}]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	if _, bad := importFileAs(t, s, path, Claude); len(bad) != 0 {
		t.Fatalf("bad: %q", bad)
	}
	equal(t, "attachments", transcript(t, s)["Crash"], []string{
		"user: why does it crash?\n[pasted]\npanic: runtime error: index out of range [3]",
		"assistant: An index past the slice's end.",
		"user: [file: main.go]\npackage main\n[file: empty.txt]\n[file: evil [pasted]name.md]\nx\n[file: photo.png]",
	})
}
