package importer

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/memory"
)

// Claude's export (Settings → Privacy → Export data) holds
// conversations.json: an array of conversations {uuid, name, created_at,
// updated_at, chat_messages: [{uuid, sender human|assistant, text,
// content: [{type: text, text} | {type: tool_use, name, input} |
// {type: tool_result, …} | {type: thinking, …}], created_at, attachments:
// [{file_name, extracted_content}], files: [{file_name}]}]}. Newer exports
// also carry current_leaf_message_uuid and parent_message_uuid, a tree like
// ChatGPT's. Structure as described by public parsers, e.g.
// github.com/Sinity/polylogue docs/providers/claude-ai.md and their
// ClaudeConversation / ChatMessage TypeScript types.

type claudeConversation struct {
	UUID        textID    `json:"uuid"`
	Name        looseText `json:"name"`
	CreatedAt   string    `json:"created_at"`
	CurrentLeaf textID    `json:"current_leaf_message_uuid"`
	Account     struct {
		UUID textID `json:"uuid"`
	} `json:"account"`
	ChatMessages []claudeMessage `json:"chat_messages"`
}

type claudeMessage struct {
	UUID      textID `json:"uuid"`
	Parent    textID `json:"parent_message_uuid"`
	Sender    string `json:"sender"`
	Text      string `json:"text"`
	CreatedAt string `json:"created_at"`
	Content   []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Attachments []struct {
		FileName string `json:"file_name"`
		// Extracted is the file's text, or the text pasted (no name).
		Extracted string `json:"extracted_content"`
	} `json:"attachments"`
	Files []struct {
		FileName string `json:"file_name"`
	} `json:"files"`
}

func parseClaude(raw json.RawMessage, sk *Skipped) (Conversation, error) {
	var cc claudeConversation
	if err := json.Unmarshal(raw, &cc); err != nil {
		return Conversation{}, err
	}
	if cc.UUID == "" {
		return Conversation{}, fmt.Errorf(`%w: a Claude conversation has a "uuid"`, errNoID)
	}
	c := Conversation{ID: string(cc.UUID), Title: string(cc.Name), Created: isoTime(cc.CreatedAt), Account: string(cc.Account.UUID)}
	msgs := claudeBranch(cc, sk)
	for i, m := range msgs {
		role, ok := map[string]memory.Role{"human": memory.RoleUser, "user": memory.RoleUser, "assistant": memory.RoleAssistant}[m.Sender]
		if !ok {
			sk.Other++
			continue
		}
		var parts []string
		for _, b := range m.Content {
			if b.Type == "text" && strings.TrimSpace(b.Text) != "" {
				parts = append(parts, b.Text)
			}
		}
		text := strings.Join(parts, "\n\n")
		if len(m.Content) == 0 {
			text = m.Text
		}
		for _, a := range m.Attachments {
			text = strings.TrimSpace(text + "\n" + attachment(a.FileName, a.Extracted))
		}
		for _, f := range m.Files {
			text = strings.TrimSpace(text + "\n" + attachment(f.FileName, ""))
		}
		if strings.TrimSpace(text) == "" {
			sk.Empty++
			continue
		}
		id := string(m.UUID)
		if id == "" {
			id = "index:" + strconv.Itoa(i)
		}
		c.Messages = append(c.Messages, Message{ID: id, Role: role, Text: text, Time: isoTime(m.CreatedAt)})
	}
	fillTimes(&c)
	return c, nil
}

// attachment is a file of a Claude message as the message keeps it: its
// name, and the text Claude read from it (a long paste is such a file,
// without a name), which search finds like the words typed.
func attachment(name, extracted string) string {
	name = strings.Join(strings.Fields(name), " ") // one line: a name cannot forge a "[pasted]" of its own
	head := "[file: " + name + "]"
	if name == "" {
		head = "[pasted]"
	}
	if strings.TrimSpace(extracted) == "" {
		return head
	}
	return head + "\n" + strings.TrimSpace(extracted)
}

// claudeBranch is the messages on the branch ending at
// current_leaf_message_uuid when the export has the tree, each once (a
// parent chain that loops stops at the message it comes back to); else all
// of them, in their order.
func claudeBranch(cc claudeConversation, sk *Skipped) []claudeMessage {
	if cc.CurrentLeaf == "" {
		return cc.ChatMessages
	}
	byID := make(map[textID]int, len(cc.ChatMessages))
	for i, m := range cc.ChatMessages {
		byID[m.UUID] = i
	}
	i, ok := byID[cc.CurrentLeaf]
	if !ok {
		return cc.ChatMessages
	}
	var path []claudeMessage
	seen := make(map[int]bool, len(cc.ChatMessages))
	for ok && !seen[i] { // a parent seen already: the chain loops, and ends here
		seen[i] = true
		path = append(path, cc.ChatMessages[i])
		i, ok = byID[cc.ChatMessages[i].Parent]
	}
	for a, b := 0, len(path)-1; a < b; a, b = a+1, b-1 {
		path[a], path[b] = path[b], path[a]
	}
	sk.Branch += len(cc.ChatMessages) - len(path)
	return path
}

// isoTime reads an RFC 3339 time; anything else is no time.
func isoTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
