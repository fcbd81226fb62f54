package memory

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/internal/text"
)

// Turn is a user message plus the answer to it: the unit of search.
type Turn struct {
	ID             string    `json:"id"`
	ConversationID string    `json:"conversation_id"`
	UserID         string    `json:"user"`
	Number         int       `json:"turn"`
	FirstSeq       int       `json:"first_seq"`
	LastSeq        int       `json:"last_seq"`
	Text           string    `json:"text"`
	UserText       string    `json:"user_text"`
	Snippet        string    `json:"snippet"`
	Refs           []string  `json:"refs"`
	Time           time.Time `json:"time"`
	Hash           string    `json:"hash"`
}

// TurnID is the stable id of a conversation's n-th turn.
func TurnID(conversationID string, n int) string { return fmt.Sprintf("%s:%d", conversationID, n) }

// Limits of the derived turn text.
const (
	SnippetRunes  = 200
	toolArgRunes  = 250
	turnSeparator = "\n"
)

// BuildTurns groups a conversation's messages (in seq order) into turns:
//   - a turn starts at a real user message (a user message with text) and
//     runs up to the next real user message, provided an assistant answer is
//     among its messages; otherwise it joins the next turn;
//   - messages before the first user message join the first turn;
//   - trailing messages with no answer form a turn of their own.
//
// The last rule keeps every stored message searchable. An answer is saved
// while it streams (marked interrupted until it ends), so a catch-up in
// another process can derive a turn from the answer so far; the run that
// writes it re-derives the turn when it ends, and the changed hash gets it
// re-indexed. After a crash the turn stays as last derived until the
// conversation changes.
func BuildTurns(userID, conversationID string, msgs []Message) []Turn {
	var groups [][]Message
	var c TurnCounter
	for _, m := range msgs {
		if n := c.Add(m); n > len(groups) {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], m)
	}
	turns := make([]Turn, 0, len(groups))
	for i, g := range groups {
		turns = append(turns, makeTurn(userID, conversationID, i+1, g))
	}
	return turns
}

// TurnCounter numbers a conversation's messages by turn one at a time,
// with the rules of BuildTurns (which uses it). Feed it every message in
// seq order, as it is stored: a transcript that grows live numbers its
// turns as a reloaded one does.
type TurnCounter struct {
	n               int
	asked, answered bool // the current turn has a user message / an answer to it
}

// Add counts m and returns the number of the turn m belongs to.
func (c *TurnCounter) Add(m Message) int {
	if isRealUser(m) {
		if c.answered {
			c.n, c.answered = c.n+1, false
		}
		c.asked = true
	}
	if c.n == 0 {
		c.n = 1
	}
	if m.Role == RoleAssistant && c.asked {
		c.answered = true
	}
	return c.n
}

// Current is the number of the turn the last message belongs to (0 before
// any).
func (c *TurnCounter) Current() int { return c.n }

func isRealUser(m Message) bool {
	return m.Role == RoleUser && strings.TrimSpace(m.Content) != ""
}

func makeTurn(userID, conversationID string, n int, msgs []Message) Turn {
	t := Turn{
		ID: TurnID(conversationID, n), ConversationID: conversationID, UserID: userID, Number: n,
		FirstSeq: msgs[0].Seq, LastSeq: msgs[len(msgs)-1].Seq, Time: msgs[0].Created, Refs: []string{},
	}
	var all, user []string
	for _, m := range msgs {
		if m.Ref != "" {
			t.Refs = append(t.Refs, m.Ref)
		}
		switch m.Role {
		case RoleUser:
			if s := strings.TrimSpace(m.Content); s != "" {
				all = append(all, s)
				user = append(user, s)
			}
		case RoleAssistant:
			if s := strings.TrimSpace(m.Content); s != "" {
				all = append(all, s)
			}
			for _, c := range m.ToolCalls {
				all = append(all, ToolCallText(c))
			}
		}
	}
	t.Text = strings.Join(all, turnSeparator)
	t.UserText = strings.Join(user, turnSeparator)
	t.Snippet = text.Prefix(t.UserText, SnippetRunes)
	sum := sha256.Sum256([]byte(t.Text + "\x00" + strings.Join(t.Refs, "\x00")))
	t.Hash = hex.EncodeToString(sum[:16])
	return t
}

// ToolCallText renders a tool call for indexing as "name key:value ...",
// in argument order, every value cut to 250 characters.
func ToolCallText(c ToolCall) string {
	var b strings.Builder
	b.WriteString(c.Name)
	dec := json.NewDecoder(bytes.NewReader(c.Arguments))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return b.String()
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			break
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			break
		}
		var s string
		val := string(raw)
		if json.Unmarshal(raw, &s) == nil {
			val = s
		}
		fmt.Fprintf(&b, " %v:%s", key, text.Prefix(strings.Join(strings.Fields(val), " "), toolArgRunes))
	}
	return b.String()
}
