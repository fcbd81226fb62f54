package importer

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/mneme-dev/mneme/memory"
)

// Open WebUI's chat export (Settings → Chats → Export chats, or a chat's
// Download → Export chat (.json)) is an array of chats {id, user_id, title,
// chat: {title, models, messages: [...], history: {messages: {id: {id,
// parentId, childrenIds, role, content, timestamp, model}}, currentId}},
// created_at, updated_at (seconds), archived}. history is the tree the web
// UI shows; currentId is the message the user last saw, and its parentId
// chain is the branch shown. Structure from Open WebUI's own Chat.svelte
// (history.messages[history.currentId]) and public converters of its
// export (e.g. the flattenOpenWebUiHistory helpers that walk currentId to
// the root).

type owuiChat struct {
	ID        textID    `json:"id"`
	Title     looseText `json:"title"`
	CreatedAt float64   `json:"created_at"`
	Archived  bool      `json:"archived"`
	Chat      struct {
		Title    looseText     `json:"title"`
		Messages []owuiMessage `json:"messages"`
		History  struct {
			Messages  map[textID]owuiMessage `json:"messages"`
			CurrentID textID                 `json:"currentId"`
		} `json:"history"`
		Timestamp float64 `json:"timestamp"`
	} `json:"chat"`
}

type owuiMessage struct {
	ID        textID          `json:"id"`
	ParentID  textID          `json:"parentId"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Timestamp float64         `json:"timestamp"`
	Model     string          `json:"model"`
	Files     []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"files"`
}

func parseOpenWebUI(raw json.RawMessage, sk *Skipped) (Conversation, error) {
	var oc owuiChat
	if err := json.Unmarshal(raw, &oc); err != nil {
		return Conversation{}, err
	}
	if oc.ID == "" {
		return Conversation{}, fmt.Errorf(`%w: an Open WebUI chat has an "id"`, errNoID)
	}
	c := Conversation{ID: string(oc.ID), Title: first(string(oc.Title), string(oc.Chat.Title)), Archived: oc.Archived,
		Created: unixTime(oc.CreatedAt)}
	if c.Created.IsZero() {
		c.Created = unixTime(oc.Chat.Timestamp)
	}
	msgs := oc.Chat.Messages
	hist := oc.Chat.History
	if _, ok := hist.Messages[hist.CurrentID]; ok {
		msgs = nil
		seen := make(map[textID]bool, len(hist.Messages))
		for id := hist.CurrentID; id != "" && !seen[id]; id = hist.Messages[id].ParentID { // a parent seen already: the chain loops, and ends here
			m, ok := hist.Messages[id]
			if !ok {
				break
			}
			seen[id] = true
			m.ID = textID(first(string(m.ID), string(id)))
			msgs = append(msgs, m)
		}
		for a, b := 0, len(msgs)-1; a < b; a, b = a+1, b-1 {
			msgs[a], msgs[b] = msgs[b], msgs[a]
		}
		sk.Branch += len(hist.Messages) - len(msgs)
	}
	for i, m := range msgs {
		role, ok := map[string]memory.Role{"user": memory.RoleUser, "assistant": memory.RoleAssistant, "system": memory.RoleSystem}[m.Role]
		if !ok {
			sk.Other++
			continue
		}
		text := owuiText(m.Content)
		for _, f := range m.Files {
			if f.Type == "image" {
				text = strings.TrimSpace(text + "\n[image]")
			} else {
				text = strings.TrimSpace(text + "\n[file: " + f.Name + "]")
			}
		}
		if strings.TrimSpace(text) == "" {
			sk.Empty++
			continue
		}
		id := string(m.ID)
		if id == "" {
			id = "index:" + strconv.Itoa(i)
		}
		msg := Message{ID: id, Role: role, Text: text, Time: unixTime(m.Timestamp)}
		if role == memory.RoleAssistant {
			msg.Model = m.Model
		}
		c.Messages = append(c.Messages, msg)
	}
	fillTimes(&c)
	return c, nil
}

// owuiText reads a message's content: a string, or OpenAI-style parts
// [{type: text, text}, {type: image_url, …}].
func owuiText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		return ""
	}
	var out []string
	for _, p := range parts {
		switch {
		case p.Type == "text" && p.Text != "":
			out = append(out, p.Text)
		case p.Type == "image_url":
			out = append(out, "[image]")
		}
	}
	return strings.Join(out, "\n")
}
