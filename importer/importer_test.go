package importer

import (
	"archive/zip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/memory"
)

const user = "alice"

func openStore(t *testing.T) *memory.Store {
	t.Helper()
	s, err := memory.Open(context.Background(), filepath.Join(t.TempDir(), memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// importFile imports name as a user would: detection, then Run. It
// returns the summary and the reports of bad conversations.
func importFile(t *testing.T, s *memory.Store, name string) (Summary, []string) {
	t.Helper()
	return importFileAs(t, s, name, "")
}

// importFileAs is importFile with the format named (--from), "" to detect it.
func importFileAs(t *testing.T, s *memory.Store, name string, format Format) (Summary, []string) {
	t.Helper()
	in, err := Open(name, format)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r, err := NewReader(in)
	if err != nil {
		t.Fatal(err)
	}
	var bad []string
	sum, err := Run(context.Background(), s, user, r, Options{OnBad: func(err error) { bad = append(bad, err.Error()) }})
	if err != nil {
		t.Fatal(err)
	}
	return sum, bad
}

// transcript is what the user sees of their conversations: by title, the
// role and text of each message.
func transcript(t *testing.T, s *memory.Store) map[string][]string {
	t.Helper()
	ctx := context.Background()
	convs, err := s.ListConversations(ctx, user, memory.ListOptions{IncludeArchived: true})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, c := range convs {
		msgs, err := s.Messages(ctx, user, c.ID)
		if err != nil {
			t.Fatal(err)
		}
		key := c.Title
		if c.Archived {
			key += " (archived)"
		}
		for _, m := range msgs {
			line := string(m.Role) + ": " + m.Content
			if m.ToolName != "" {
				line = string(m.Role) + "(" + m.ToolName + "): " + m.Content
			}
			out[key] = append(out[key], line)
		}
	}
	return out
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n|") != strings.Join(want, "\n|") {
		t.Errorf("%s:\n got %q\nwant %q", what, got, want)
	}
}

var lisbon = []string{
	"user: Plan a weekend in Lisbon for the tram enthusiast in me",
	"assistant: ```\nsearch(\"Lisbon tram 28 timetable\")\n```",
	"tool(browser): Tram 28 runs every 12 minutes from Martim Moniz",
	"assistant: ```python\nroute = [\"Martim Moniz\", \"Graca\", \"Alfama\"]\n```",
	"user: [image]\nIs this the funicular in the photo?",
	"assistant: Yes, that is the Elevador da Bica funicular.",
}

func TestChatGPTExport(t *testing.T) {
	s := openStore(t)
	sum, bad := importFile(t, s, "testdata/chatgpt.json")
	if sum.Format != ChatGPT {
		t.Fatalf("format %q", sum.Format)
	}
	got := transcript(t, s)
	// The current branch only, hidden messages out, the tool's message a
	// tool message, code fenced, the image a placeholder.
	equal(t, "Lisbon", got["Trip to Lisbon"], lisbon)
	equal(t, "bread", got["Sourdough starter (archived)"], []string{
		"user: How often should I feed a sourdough starter?",
		"assistant: Feed it once a day at room temperature.",
	})
	if len(got) != 2 {
		t.Errorf("conversations: %v", got)
	}
	// The broken conversation is reported with its place, the others are in.
	if len(bad) != 1 || !strings.Contains(bad[0], "index 1") || !strings.Contains(bad[0], "conv-broken") {
		t.Errorf("bad reports: %q", bad)
	}
	want := Skipped{Hidden: 2, Branch: 1}
	if sum.Skipped != want || sum.Stats.Imported != 8 || sum.Conversations != 2 || sum.Bad != 1 {
		t.Errorf("summary %+v", sum)
	}
	// Per-message times are kept, and the model of each answer.
	convs, _ := s.ListConversations(context.Background(), user, memory.ListOptions{IncludeArchived: true})
	for _, c := range convs {
		msgs, _ := s.Messages(context.Background(), user, c.ID)
		if c.Title == "Trip to Lisbon" {
			if want := time.UnixMilli(1700000001250); !msgs[0].Created.Equal(want) || !c.Created.Equal(want) {
				t.Errorf("first message at %v, conversation created %v; want %v", msgs[0].Created, c.Created, want)
			}
		}
		for _, m := range msgs {
			if want := map[memory.Role]string{memory.RoleAssistant: "gpt-4o"}[m.Role]; c.Title == "Trip to Lisbon" && m.Model != want {
				t.Errorf("%s message %q: model %q, want %q", m.Role, m.Content, m.Model, want)
			}
		}
	}

	// The same export again adds nothing.
	again, _ := importFile(t, s, "testdata/chatgpt.json")
	if again.Stats.Imported != 0 || again.Stats.Unchanged != 8 || again.Stats.Conflicts != 0 {
		t.Errorf("re-import: %+v", again.Stats)
	}
	equal(t, "Lisbon after re-import", transcript(t, s)["Trip to Lisbon"], lisbon)
}

func TestChatGPTNewerExportAddsOnlyTheNewMessage(t *testing.T) {
	s := openStore(t)
	importFile(t, s, "testdata/chatgpt.json")
	raw, err := os.ReadFile("testdata/chatgpt.json")
	if err != nil {
		t.Fatal(err)
	}
	newer := strings.Replace(string(raw), `"a3": {"id": "a3", "parent": "u2", "children": [],`,
		`"u3": {"id": "u3", "parent": "a3", "children": [], "message": {"id": "u3", "author": {"role": "user"}, "create_time": 1700000200.0,
		  "content": {"content_type": "text", "parts": ["Thanks, and where do I buy tickets?"]}, "metadata": {}}},
		"a3": {"id": "a3", "parent": "u2", "children": ["u3"],`, 1)
	newer = strings.Replace(newer, `"current_node": "a3"`, `"current_node": "u3"`, 1)
	name := filepath.Join(t.TempDir(), "conversations.json")
	if err := os.WriteFile(name, []byte(newer), 0o600); err != nil {
		t.Fatal(err)
	}
	sum, _ := importFile(t, s, name)
	if sum.Stats.Imported != 1 || sum.Stats.Unchanged != 8 {
		t.Errorf("newer export: %+v", sum.Stats)
	}
	equal(t, "Lisbon", transcript(t, s)["Trip to Lisbon"], append(append([]string{}, lisbon...), "user: Thanks, and where do I buy tickets?"))
}

func TestChatGPTZip(t *testing.T) {
	name := filepath.Join(t.TempDir(), "chatgpt-export.zip")
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, e := range []struct{ name, file string }{{"chat.html", ""}, {"export/conversations.json", "testdata/chatgpt.json"}, {"user.json", ""}} {
		w, err := zw.Create(e.name)
		if err != nil {
			t.Fatal(err)
		}
		body := []byte("<html></html>")
		if e.file != "" {
			body, _ = os.ReadFile(e.file)
		}
		w.Write(body)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	f.Close()
	s := openStore(t)
	sum, _ := importFile(t, s, name)
	if sum.Format != ChatGPT || sum.Stats.Imported != 8 {
		t.Errorf("zip: %+v", sum)
	}
	equal(t, "Lisbon from the zip", transcript(t, s)["Trip to Lisbon"], lisbon)
}

func TestClaudeExport(t *testing.T) {
	s := openStore(t)
	sum, bad := importFile(t, s, "testdata/claude.json")
	if sum.Format != Claude || len(bad) != 0 {
		t.Fatalf("format %q, bad %q", sum.Format, bad)
	}
	equal(t, "Claude", transcript(t, s)["Tomato blight"], []string{
		"user: My tomato leaves have brown spots\n[file: leaf.txt]\nbrown",
		"assistant: That sounds like early blight.\n\nRemove the lower leaves and water at the base.",
	})
	if sum.Skipped != (Skipped{Empty: 1}) {
		t.Errorf("skipped %+v", sum.Skipped)
	}
	if again, _ := importFile(t, s, "testdata/claude.json"); again.Stats.Imported != 0 {
		t.Errorf("re-import: %+v", again.Stats)
	}
}

func TestOpenWebUIExportFollowsTheCurrentBranch(t *testing.T) {
	s := openStore(t)
	sum, _ := importFile(t, s, "testdata/openwebui.json")
	if sum.Format != OpenWebUI {
		t.Fatalf("format %q", sum.Format)
	}
	equal(t, "Open WebUI", transcript(t, s)["Rust lifetimes"], []string{
		"user: Explain Rust lifetimes briefly",
		"assistant: Lifetimes tell the borrow checker how long references live.",
		"user: And 'static?",
		"assistant: 'static means the data lives for the whole program.",
	})
	if sum.Skipped != (Skipped{Branch: 1}) {
		t.Errorf("skipped %+v", sum.Skipped)
	}
	convs, _ := s.ListConversations(context.Background(), user, memory.ListOptions{})
	msgs, _ := s.Messages(context.Background(), user, convs[0].ID)
	if len(msgs) != 4 || msgs[1].Model != "llama3.1:8b" || msgs[0].Model != "" {
		t.Errorf("models: %+v", msgs)
	}
	if again, _ := importFile(t, s, "testdata/openwebui.json"); again.Stats.Imported != 0 {
		t.Errorf("re-import: %+v", again.Stats)
	}
}

func TestDetect(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o600)
		return p
	}
	for name, want := range map[string]Format{
		"testdata/chatgpt.json":   ChatGPT,
		"testdata/claude.json":    Claude,
		"testdata/openwebui.json": OpenWebUI,
		write("lines.jsonl", `{"conversation":"c","role":"user","content":"hi"}`+"\n"):        Mneme,
		write("bom.json", "\uFEFF\n  [{\"uuid\":\"x\",\"name\":\"n\",\"chat_messages\":[]}]"): Claude,
		write("empty.jsonl", ""): Mneme,
	} {
		in, err := Open(name, "")
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		in.Close()
		if in.Format != want {
			t.Errorf("%s: detected %q, want %q", name, in.Format, want)
		}
	}
	for _, body := range []string{"hello, world\n", `[{"foo": 1}]`, "[1, 2]"} {
		_, err := Open(write("unknown.txt", body), "")
		if !errors.Is(err, ErrUnknownFormat) || !strings.Contains(err.Error(), "ChatGPT") || !strings.Contains(err.Error(), "Open WebUI") {
			t.Errorf("%q: %v", body, err)
		}
	}
	// --from wins over the content.
	in, err := Open("testdata/chatgpt.json", Claude)
	if err != nil || in.Format != Claude {
		t.Errorf("forced: %v %v", in, err)
	}
	in.Close()
	if _, err := ParseFormat("gemini"); !errors.Is(err, ErrBadFormatName) {
		t.Errorf("ParseFormat(gemini): %v", err)
	}
}

func TestCutExportKeepsWhatCameBefore(t *testing.T) {
	raw, _ := os.ReadFile("testdata/chatgpt.json")
	cut := string(raw)[:strings.Index(string(raw), `"title": "Sourdough`)]
	name := filepath.Join(t.TempDir(), "cut.json")
	os.WriteFile(name, []byte(cut), 0o600)
	s := openStore(t)
	in, err := Open(name, "")
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	r, _ := NewReader(in)
	sum, err := Run(context.Background(), s, user, r, Options{})
	if !errors.Is(err, ErrBroken) || !strings.Contains(err.Error(), "index 2") {
		t.Errorf("err %v", err)
	}
	if sum.Stats.Imported != 6 {
		t.Errorf("imported %d, want the 6 messages before the cut", sum.Stats.Imported)
	}
}

// Ids written as numbers (hand-made files, some older exports) are read as
// their digits; a conversation of another format given to --from says
// which id it lacked, not just "no id".
func TestNumericIDsAndTheWrongFormat(t *testing.T) {
	dir := t.TempDir()
	claude := filepath.Join(dir, "claude.json")
	if err := os.WriteFile(claude, []byte(`[{"uuid": 42, "name": "Numbers", "chat_messages": [
		{"uuid": 1, "sender": "human", "text": "is 42 an id?"},
		{"uuid": 2, "parent_message_uuid": 1, "sender": "assistant", "text": "It is now."}]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	sum, bad := importFile(t, s, claude)
	if len(bad) != 0 || sum.Stats.Imported != 2 {
		t.Fatalf("numeric ids: %+v, bad %q", sum, bad)
	}
	equal(t, "numeric ids", transcript(t, s)["Numbers"], []string{"user: is 42 an id?", "assistant: It is now."})

	if _, reports := importFileAs(t, openStore(t), "testdata/chatgpt.json", Claude); len(reports) == 0 || !strings.Contains(reports[0], `a Claude conversation has a "uuid"`) {
		t.Fatalf("a ChatGPT export read as Claude: %q", reports)
	}
}

// TestOpenWebUIHistoryWithACycle: a history whose parents loop keeps each
// message of the branch once, in order, as Claude's and ChatGPT's do (it
// added one message twice and said the second was "already there"; then
// the conversation was refused whole).
func TestOpenWebUIHistoryWithACycle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "owui.json")
	if err := os.WriteFile(path, []byte(`[{"id":"c1","title":"Loop","chat":{"history":{"currentId":"b","messages":{
		"a":{"id":"a","parentId":"b","role":"user","content":"hello","timestamp":1700000000},
		"b":{"id":"b","parentId":"a","role":"assistant","content":"hi","timestamp":1700000001}}}}},
		{"id":"c2","title":"Fine","chat":{"history":{"currentId":"y","messages":{
		"x":{"id":"x","role":"user","content":"ok?","timestamp":1700000000},
		"y":{"id":"y","parentId":"x","role":"assistant","content":"ok.","timestamp":1700000001}}}}}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	sum, bad := importFileAs(t, s, path, OpenWebUI)
	if len(bad) != 0 || sum.Stats.Imported != 4 || sum.Stats.Unchanged != 0 {
		t.Fatalf("summary %+v, bad %q", sum, bad)
	}
	equal(t, "the looping branch", transcript(t, s)["Loop"], []string{"user: hello", "assistant: hi"})
	equal(t, "the conversation after the loop", transcript(t, s)["Fine"], []string{"user: ok?", "assistant: ok."})
}

// TestChatGPTMappingWithACycle: a mapping whose parents loop keeps each
// message of the branch once, in order, as Claude's does (the whole
// conversation was refused, "the mapping has a cycle").
func TestChatGPTMappingWithACycle(t *testing.T) {
	path := filepath.Join(t.TempDir(), "gpt.json")
	if err := os.WriteFile(path, []byte(`[{"id":"c1","title":"Loop","create_time":1700000000,"current_node":"b","mapping":{
		"a":{"id":"a","parent":"b","children":["b"],"message":{"id":"a","author":{"role":"user"},"create_time":1700000000,"content":{"content_type":"text","parts":["hello"]}}},
		"b":{"id":"b","parent":"a","children":["a"],"message":{"id":"b","author":{"role":"assistant"},"create_time":1700000001,"content":{"content_type":"text","parts":["hi"]}}}}}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	sum, bad := importFileAs(t, s, path, ChatGPT)
	if len(bad) != 0 || sum.Stats.Imported != 2 {
		t.Fatalf("summary %+v, bad %q", sum, bad)
	}
	equal(t, "the looping branch", transcript(t, s)["Loop"], []string{"user: hello", "assistant: hi"})
}

// TestTwoConversationsWithOneID: a second conversation with the id of one
// before it is left out, said by index, and the first keeps its title and
// messages (the stored one had the second's title on the first's
// messages, and the summary counted two conversations).
func TestTwoConversationsWithOneID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "claude.json")
	if err := os.WriteFile(path, []byte(`[
		{"uuid": "c-dup", "name": "Dup first", "chat_messages": [{"uuid": "m1", "sender": "human", "text": "dup first q"}]},
		{"uuid": "c-dup", "name": "Dup second", "chat_messages": [{"uuid": "m2", "sender": "human", "text": "dup second q"}]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	sum, bad := importFile(t, s, path)
	if len(bad) != 1 || !strings.Contains(bad[0], `index 1 (id "c-dup"): the same id as a conversation before it (index 0)`) {
		t.Fatalf("reports %q", bad)
	}
	if sum.Conversations != 1 || sum.Stats.Imported != 1 {
		t.Fatalf("summary %+v", sum)
	}
	got := transcript(t, s)
	if len(got) != 1 {
		t.Fatalf("conversations %q", got)
	}
	equal(t, "the first conversation", got["Dup first"], []string{"user: dup first q"})
}

// TestAFieldOfTheWrongTypeLosesOnlyItself: a ChatGPT conversation whose
// title is a number, or one of whose messages has "parts" that are not a
// list, keeps its other messages (it was left out whole); the message is
// counted as skipped, and a time out of range is no time (1e300 became
// the year 1677). A current_node the mapping lacks leaves the latest
// branch to follow (the conversation was refused).
func TestAFieldOfTheWrongTypeLosesOnlyItself(t *testing.T) {
	path := filepath.Join(t.TempDir(), "conversations.json")
	if err := os.WriteFile(path, []byte(`[{"id": "c1", "title": 5, "create_time": 1e300, "current_node": "gone", "mapping": {
		"root": {"message": null, "parent": null, "children": ["m1"]},
		"m1": {"message": {"id": "m1", "author": {"role": "user"}, "content": {"content_type": "text", "parts": ["first question"]}}, "parent": "root", "children": ["m2"]},
		"m2": {"message": {"id": "m2", "author": {"role": "assistant"}, "content": {"content_type": "text", "parts": "notalist"}}, "parent": "m1", "children": ["m3"]},
		"m3": {"message": {"id": "m3", "author": {"role": "user"}, "content": {"content_type": "text", "parts": ["second question"]}}, "parent": "m2", "children": []}}}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	sum, bad := importFileAs(t, s, path, ChatGPT)
	if len(bad) != 0 || sum.Stats.Imported != 2 || sum.Skipped.Unreadable != 1 {
		t.Fatalf("summary %+v, reports %q", sum, bad)
	}
	var out strings.Builder
	sum.Report(&out, io.Discard, 0)
	if !strings.Contains(out.String(), "1 with a field of the wrong type") {
		t.Fatalf("report: %s", out.String())
	}
	convs, err := s.ListConversations(context.Background(), "alice", memory.ListOptions{})
	if err != nil || len(convs) != 1 || convs[0].Created.Year() < 2000 {
		t.Fatalf("conversations %+v, %v", convs, err)
	}
}

// TestAnEmptyCopyDoesNotClaimItsID: a conversation with nothing to keep
// does not take the id from a later one with messages (that one was
// refused as a copy, and nothing was imported).
func TestAnEmptyCopyDoesNotClaimItsID(t *testing.T) {
	path := filepath.Join(t.TempDir(), "claude.json")
	if err := os.WriteFile(path, []byte(`[{"uuid": "dupE", "name": "Empty", "chat_messages": []},
		{"uuid": "dupE", "name": "Garden", "chat_messages": [{"uuid": "m1", "sender": "human", "text": "when to plant tulips"}]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	s := openStore(t)
	if sum, bad := importFile(t, s, path); len(bad) != 0 || sum.Stats.Imported != 1 {
		t.Fatalf("summary %+v, reports %q", sum, bad)
	}
	equal(t, "the conversation with messages", transcript(t, s)["Garden"], []string{"user: when to plant tulips"})
}

// TestSeveralAccountsAreSaid: a Claude export whose conversations are of
// two accounts (merged, or someone else's) is imported as the one user,
// and the report says so; one of a single account says nothing of it.
func TestSeveralAccountsAreSaid(t *testing.T) {
	path := filepath.Join(t.TempDir(), "claude.json")
	if err := os.WriteFile(path, []byte(`[
		{"uuid": "a1", "name": "Mine", "account": {"uuid": "acct-me"}, "chat_messages": [{"uuid": "m1", "sender": "human", "text": "hello"}]},
		{"uuid": "a2", "name": "Theirs", "account": {"uuid": "acct-other"}, "chat_messages": [{"uuid": "m2", "sender": "human", "text": "hi"}]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	sum, bad := importFile(t, openStore(t), path)
	var errw strings.Builder
	sum.Report(io.Discard, &errw, 0)
	if len(bad) != 0 || sum.Stats.Imported != 2 || !strings.Contains(errw.String(), "conversations of 2 Claude accounts; all were imported as yours") {
		t.Fatalf("summary %+v, reports %q, said %q", sum, bad, errw.String())
	}
	one, _ := importFile(t, openStore(t), "testdata/claude.json")
	errw.Reset()
	one.Report(io.Discard, &errw, 0)
	if strings.Contains(errw.String(), "accounts") {
		t.Fatalf("an export of one account said %q", errw.String())
	}
}
