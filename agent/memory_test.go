package agent

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tools"
)

// TestMemoryToolsAcrossConversations: the model saves a note in one
// conversation and finds it with memory_search in a new one.
func TestMemoryToolsAcrossConversations(t *testing.T) {
	ctx := context.Background()
	// The harness's store backs the index; the agent is rebuilt with the tools.
	h := newHarness(t, nil)
	ix, err := index.OpenIndex(ctx, h.store, t.TempDir(), index.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	h.agent = New(h.agent.client, h.store, WithModel(fakeollama.DefaultChatModel), WithHost(h.srv.URL),
		WithTools(tools.NewRegistry(nil, tools.MemoryTools(ix)...)))

	h.srv.Script(
		fakeollama.Reply{ToolCalls: []api.ToolCall{fakeollama.ToolCall(tools.MemorySaveName, map[string]any{"content": "The user's cat is called Tom."})}},
		fakeollama.Say("Noted."),
	)
	res, _, err := h.run(ctx, "remember that my cat is called Tom")
	if err != nil || len(res.ToolCalls) != 1 || res.ToolCalls[0].Error != "" {
		t.Fatalf("save run: %+v %v", res, err)
	}
	var saved tools.NoteOut
	if err := json.Unmarshal([]byte(res.ToolCalls[0].Result), &saved); err != nil || saved.ConversationID != h.conv.ID || saved.TurnNumber != 1 {
		t.Fatalf("saved %+v %v", saved, err)
	}

	second, err := h.store.CreateConversation(ctx, "alice", "")
	if err != nil {
		t.Fatal(err)
	}
	h.srv.Script(
		fakeollama.Reply{ToolCalls: []api.ToolCall{fakeollama.ToolCall(tools.MemorySearchName, map[string]any{"query": "What is the user's cat called?"})}},
		fakeollama.Say("Your cat is Tom."),
	)
	res, err = h.agent.Run(ctx, Request{UserID: "alice", ConversationID: second.ID, Prompt: "what is my cat called?"}, nil)
	if err != nil || res.Answer != "Your cat is Tom." {
		t.Fatalf("search run: %+v %v", res, err)
	}
	sent := h.srv.LastRequest().Messages
	last := sent[len(sent)-1]
	if last.Role != "tool" || !strings.Contains(last.Content, "The user's cat is called Tom.") || !strings.Contains(last.Content, saved.NoteID) {
		t.Fatalf("the model did not see the note: %+v", last)
	}
	// The history of the new conversation is its own: the first one is not in it.
	for _, m := range sent {
		if strings.Contains(m.Content, "remember that") {
			t.Fatalf("the new conversation carries the old one: %+v", m)
		}
	}
}
