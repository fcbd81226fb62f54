package memory

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func msg(seq int, role Role, content string) Message {
	return Message{Seq: seq, Role: role, Content: content, Created: time.UnixMilli(int64(seq) * 1000)}
}

func turnShape(turns []Turn) string {
	var parts []string
	for _, t := range turns {
		parts = append(parts, strings.ReplaceAll(t.Text, "\n", "+"))
	}
	return strings.Join(parts, " | ")
}

func TestBuildTurnsRules(t *testing.T) {
	cases := []struct {
		name string
		msgs []Message
		want string
	}{
		{"simple exchanges", []Message{
			msg(1, RoleUser, "q1"), msg(2, RoleAssistant, "a1"), msg(3, RoleUser, "q2"), msg(4, RoleAssistant, "a2"),
		}, "q1+a1 | q2+a2"},
		{"interrupted user message joins the next turn", []Message{
			msg(1, RoleUser, "q1"), msg(2, RoleUser, "q1 again"), msg(3, RoleAssistant, "a1"),
		}, "q1+q1 again+a1"},
		{"opener before the first user message joins the first turn", []Message{
			msg(1, RoleAssistant, "Hi! How can I help?"), msg(2, RoleUser, "q1"), msg(3, RoleAssistant, "a1"),
		}, "Hi! How can I help?+q1+a1"},
		{"trailing unanswered message is a turn of its own", []Message{
			msg(1, RoleUser, "q1"), msg(2, RoleAssistant, "a1"), msg(3, RoleUser, "q2"),
		}, "q1+a1 | q2"},
		{"tool round trip stays in one turn; tool results are not text", []Message{
			msg(1, RoleUser, "q1"),
			{Seq: 2, Role: RoleAssistant, ToolCalls: []ToolCall{{Name: "lookup", Arguments: json.RawMessage(`{"q":"go slices","n":3}`)}}},
			{Seq: 3, Role: RoleTool, Content: "SECRET RESULT"},
			msg(4, RoleAssistant, "a1"),
		}, "q1+lookup q:go slices n:3+a1"},
		{"a user message with no text does not start a turn", []Message{
			msg(1, RoleUser, "q1"), msg(2, RoleAssistant, "a1"), msg(3, RoleUser, "  "), msg(4, RoleAssistant, "a2"),
		}, "q1+a1+a2"},
		{"thinking is excluded", []Message{
			msg(1, RoleUser, "q1"), {Seq: 2, Role: RoleAssistant, Content: "a1", Thinking: "hidden thoughts"},
		}, "q1+a1"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := BuildTurns("u", "c", c.msgs)
			if turnShape(got) != c.want {
				t.Fatalf("turns = %q, want %q", turnShape(got), c.want)
			}
			// Every message belongs to exactly one turn.
			seen := 0
			for i, tr := range got {
				if tr.Number != i+1 || tr.ID != TurnID("c", i+1) {
					t.Fatalf("turn %d numbered %d id %s", i, tr.Number, tr.ID)
				}
				seen += tr.LastSeq - tr.FirstSeq + 1
			}
			if seen != len(c.msgs) {
				t.Fatalf("turns cover %d of %d messages", seen, len(c.msgs))
			}
		})
	}
}

func TestTurnFields(t *testing.T) {
	long := strings.Repeat("é", 300)
	msgs := []Message{
		{Seq: 1, Role: RoleUser, Content: long, Ref: "D1:1", Created: time.UnixMilli(5000)},
		{Seq: 2, Role: RoleAssistant, Content: "answer", Ref: "D1:2", Created: time.UnixMilli(6000)},
	}
	tr := BuildTurns("u", "c", msgs)[0]
	if len([]rune(tr.Snippet)) != 200 || tr.UserText != long {
		t.Fatalf("snippet %d runes", len([]rune(tr.Snippet)))
	}
	if strings.Join(tr.Refs, ",") != "D1:1,D1:2" || !tr.Time.Equal(time.UnixMilli(5000)) {
		t.Fatalf("refs %v time %v", tr.Refs, tr.Time)
	}
	same := BuildTurns("u", "c", msgs)[0]
	msgs[1].Content = "changed"
	changed := BuildTurns("u", "c", msgs)[0]
	if tr.Hash != same.Hash || tr.Hash == changed.Hash {
		t.Fatal("hash must follow the text")
	}
}

func TestToolCallTextCutsValues(t *testing.T) {
	args, _ := json.Marshal(map[string]any{"content": strings.Repeat("x", 400)})
	got := ToolCallText(ToolCall{Name: "memory_save", Arguments: args})
	if got != "memory_save content:"+strings.Repeat("x", 250) {
		t.Fatalf("got %q", got)
	}
	if got := ToolCallText(ToolCall{Name: "bad", Arguments: json.RawMessage(`not json`)}); got != "bad" {
		t.Fatalf("malformed args: %q", got)
	}
}
