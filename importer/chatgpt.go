package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mneme-dev/mneme/memory"
)

// ChatGPT's "Export data" zip holds conversations.json: an array of
// conversations, each with a message tree. The structure below follows the
// public descriptions of the export, among them
// github.com/mitkury/chatgpt-export-parser docs/chatgpt-data-export-format.md
// and the TypeScript types of several public parsers (ImageAssetPointer in
// multimodal_text parts; content_type "code" carrying "language" and
// "text"): a conversation has id (or conversation_id), title, create_time
// (float seconds), is_archived, current_node (the leaf of the branch the
// user last saw) and mapping: node id → {id, message|null, parent,
// children}. A message has id, author {role user|assistant|system|tool,
// name}, create_time, content {content_type, parts | text, language},
// metadata {model_slug, is_visually_hidden_from_conversation, …}.

type gptConversation struct {
	ID             textID             `json:"id"`
	ConversationID textID             `json:"conversation_id"`
	Title          looseText          `json:"title"`
	CreateTime     looseNumber        `json:"create_time"`
	IsArchived     bool               `json:"is_archived"`
	CurrentNode    string             `json:"current_node"`
	Mapping        map[string]gptNode `json:"mapping"`
}

type gptNode struct {
	Message    *gptMessage `json:"message"`
	Parent     string      `json:"parent"`
	Children   []string    `json:"children"`
	unreadable bool        // its message had a field of the wrong type
}

// UnmarshalJSON reads a node whose message has a field of the wrong type
// (a format change, a hand-edited file) as the place in the tree it is,
// its message marked unreadable: the conversation's other messages are
// kept, where the whole conversation was left out.
func (n *gptNode) UnmarshalJSON(b []byte) error {
	type plain gptNode
	if err := json.Unmarshal(b, (*plain)(n)); err == nil {
		return nil
	}
	var place struct {
		Parent   string   `json:"parent"`
		Children []string `json:"children"`
	}
	if err := json.Unmarshal(b, &place); err != nil {
		return err
	}
	*n = gptNode{Parent: place.Parent, Children: place.Children, unreadable: true}
	return nil
}

type gptMessage struct {
	ID     string `json:"id"`
	Author struct {
		Role string `json:"role"`
		Name string `json:"name"`
	} `json:"author"`
	CreateTime float64 `json:"create_time"`
	Content    struct {
		ContentType string            `json:"content_type"`
		Parts       []json.RawMessage `json:"parts"`
		Text        string            `json:"text"`
		Language    string            `json:"language"`
		Result      string            `json:"result"`
	} `json:"content"`
	Metadata struct {
		Hidden             bool   `json:"is_visually_hidden_from_conversation"`
		IsUserSystemMessge bool   `json:"is_user_system_message"`
		ModelSlug          string `json:"model_slug"`
	} `json:"metadata"`
}

func parseChatGPT(raw json.RawMessage, sk *Skipped) (Conversation, error) {
	var gc gptConversation
	if err := json.Unmarshal(raw, &gc); err != nil {
		return Conversation{}, err
	}
	c := Conversation{ID: first(string(gc.ID), string(gc.ConversationID)), Title: string(gc.Title), Created: unixTime(float64(gc.CreateTime)), Archived: gc.IsArchived}
	if c.ID == "" {
		return Conversation{}, fmt.Errorf(`%w: a ChatGPT conversation has an "id"`, errNoID)
	}
	path, err := gptPath(gc)
	if err != nil {
		return Conversation{}, err
	}
	onPath := make(map[string]bool, len(path))
	for _, id := range path {
		onPath[id] = true
	}
	for id, n := range gc.Mapping {
		if !onPath[id] && n.Message != nil {
			sk.Branch++
		}
	}
	for _, id := range path {
		if gc.Mapping[id].unreadable {
			sk.Unreadable++
			continue
		}
		m := gc.Mapping[id].Message
		if m == nil {
			continue // the root placeholder
		}
		if m.Metadata.Hidden || m.Metadata.IsUserSystemMessge || m.Content.ContentType == "user_editable_context" {
			sk.Hidden++
			continue
		}
		role, ok := map[string]memory.Role{"user": memory.RoleUser, "assistant": memory.RoleAssistant,
			"system": memory.RoleSystem, "tool": memory.RoleTool}[m.Author.Role]
		if !ok {
			sk.Other++
			continue
		}
		text := gptText(m)
		if strings.TrimSpace(text) == "" {
			sk.Empty++
			continue
		}
		msg := Message{ID: first(m.ID, id), Role: role, Text: text, Time: unixTime(m.CreateTime)}
		if role == memory.RoleAssistant {
			msg.Model = m.Metadata.ModelSlug
		}
		if role == memory.RoleTool {
			msg.ToolName = first(m.Author.Name, "tool")
		}
		c.Messages = append(c.Messages, msg)
	}
	fillTimes(&c)
	return c, nil
}

// gptPath is the node ids from the root to current_node: the branch the
// user last saw. Without a current_node (older exports), or with one the
// mapping does not hold, it follows the last child from the root: the
// latest regeneration.
func gptPath(gc gptConversation) ([]string, error) {
	if len(gc.Mapping) == 0 {
		return nil, nil
	}
	leaf := gc.CurrentNode
	if _, ok := gc.Mapping[leaf]; !ok {
		var root string
		for id, n := range gc.Mapping {
			if _, ok := gc.Mapping[n.Parent]; n.Parent == "" || !ok {
				root = id
				break
			}
		}
		if root == "" {
			return nil, errors.New("mapping has no root")
		}
		leaf = root
		for seen := 0; len(gc.Mapping[leaf].Children) > 0 && seen <= len(gc.Mapping); seen++ {
			ch := gc.Mapping[leaf].Children
			leaf = ch[len(ch)-1]
		}
	}
	var path []string
	seen := make(map[string]bool, len(gc.Mapping))
	for id := leaf; id != "" && !seen[id]; id = gc.Mapping[id].Parent { // a parent seen already: the chain loops, and ends here (as Claude's)
		if _, ok := gc.Mapping[id]; !ok {
			break // a parent outside the mapping: the root
		}
		seen[id] = true
		path = append(path, id)
	}
	for i, j := 0, len(path)-1; i < j; i, j = i+1, j-1 {
		path[i], path[j] = path[j], path[i]
	}
	return path, nil
}

// gptText is a message's text: text parts joined, code fenced, assets as
// placeholders ([image], [file]).
func gptText(m *gptMessage) string {
	ct := m.Content
	if ct.ContentType == "code" {
		lang := ct.Language
		if lang == "unknown" {
			lang = ""
		}
		if strings.TrimSpace(ct.Text) == "" {
			return ""
		}
		return "```" + lang + "\n" + strings.TrimRight(ct.Text, "\n") + "\n```"
	}
	var parts []string
	for _, p := range ct.Parts {
		var s string
		if json.Unmarshal(p, &s) == nil {
			if s != "" {
				parts = append(parts, s)
			}
			continue
		}
		var obj struct {
			ContentType  string `json:"content_type"`
			AssetPointer string `json:"asset_pointer"`
			Text         string `json:"text"`
		}
		if json.Unmarshal(p, &obj) != nil {
			continue
		}
		switch {
		case obj.ContentType == "image_asset_pointer":
			parts = append(parts, "[image]")
		case obj.Text != "": // audio transcriptions and the like
			parts = append(parts, obj.Text)
		case obj.AssetPointer != "" || obj.ContentType != "":
			parts = append(parts, "[file]")
		}
	}
	if len(parts) > 0 {
		return strings.Join(parts, "\n")
	}
	return first(ct.Text, ct.Result)
}
