package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/realollama"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tools"
)

// forcedChat passes chat requests to a real server, pinning the first
// one's output to a tool call with a format schema (the tiny model cannot
// choose to call a tool by itself). It records how many tools each
// request offered.
type forcedChat struct {
	client *api.Client
	format json.RawMessage

	mu    sync.Mutex
	tools []int
}

func (f *forcedChat) Chat(ctx context.Context, req *api.ChatRequest, fn api.ChatResponseFunc) error {
	f.mu.Lock()
	if len(f.tools) == 0 {
		req.Format = f.format
	}
	f.tools = append(f.tools, len(req.Tools))
	f.mu.Unlock()
	return f.client.Chat(ctx, req, fn)
}

// TestRealOllamaMemoryTools runs the memory features against a real Ollama
// server with the tiny stories260K model, once with the server's default
// template (no tools) and once with a template that renders tools.
func TestRealOllamaMemoryTools(t *testing.T) {
	srv := realollama.Start(t)
	srv.CreateChatModel(t, "stories", 256)
	srv.CreateToolsModel(t, "stories-tools", 512)
	d := newDevice(t, srv.Host)
	d.mustOK("", "memory", "add", "My cat Tom likes tuna.")

	t.Run("a model without tools still chats and recalls", func(t *testing.T) {
		out, r := d.askJSON("--model", "stories", "Tell me a story about my cat Tom")
		if strings.TrimSpace(out.Answer) == "" {
			t.Fatal("no answer")
		}
		if len(out.MemoriesUsed) != 1 || out.MemoriesUsed[0].Text != "My cat Tom likes tuna." {
			t.Fatalf("memories_used %+v", out.MemoriesUsed)
		}
		if n := strings.Count(r.stderr, "does not support tools"); n != 1 {
			t.Fatalf("told %d times that tools are unavailable:\n%s", n, r.stderr)
		}
	})

	ctx := context.Background()
	store, err := memory.Open(ctx, filepath.Join(t.TempDir(), memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	ix, err := index.OpenIndex(ctx, store, t.TempDir(), index.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	registry := tools.NewRegistry(nil, tools.MemoryTools(ix)...)

	t.Run("the server's refusal of tools is handled once", func(t *testing.T) {
		// The agent is not told the model lacks tools, so it sends them and
		// the server answers 400 "does not support tools".
		a := agent.New(srv.Client(), store, agent.WithModel("stories"), agent.WithTools(registry))
		conv, _ := store.CreateConversation(ctx, "alice", "")
		var notices int
		for _, p := range []string{"Once upon a time", "Tell me more"} {
			res, err := a.Run(ctx, agent.Request{UserID: "alice", ConversationID: conv.ID, Prompt: p}, func(e agent.Event) {
				if n, ok := e.(agent.NoticeEvent); ok && strings.Contains(n.Text, "does not support tools") {
					notices++
				}
			})
			if err != nil || strings.TrimSpace(res.Answer) == "" {
				t.Fatalf("run %q: %+v %v", p, res, err)
			}
		}
		if notices != 1 || a.ToolsSupported() {
			t.Fatalf("notices %d, tools supported %v", notices, a.ToolsSupported())
		}
	})

	t.Run("a model with a tools template receives the tool definitions", func(t *testing.T) {
		const fact = "Cat: Tom."
		chat := &forcedChat{client: srv.Client(), format: realollama.ToolCallFormat(tools.MemorySaveName, map[string]any{"content": fact})}
		// The forced call is longer than the model's default reply bound.
		a := agent.New(chat, store, agent.WithModel("stories-tools"), agent.WithTools(registry), agent.WithMaxSteps(2),
			agent.WithModelOptions(map[string]any{"num_predict": 128}))
		conv, _ := store.CreateConversation(ctx, "alice", "")
		res, err := a.Run(ctx, agent.Request{UserID: "alice", ConversationID: conv.ID, Prompt: "Remember that my cat is called Tom."}, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The server parses a tool call only when the request lists the tool.
		if len(res.ToolCalls) != 1 || res.ToolCalls[0].Name != tools.MemorySaveName || res.ToolCalls[0].Error != "" {
			t.Fatalf("tool calls %+v", res.ToolCalls)
		}
		if len(chat.tools) != 2 || chat.tools[0] != len(registry.Definitions()) || !a.ToolsSupported() {
			t.Fatalf("tools offered per request %v", chat.tools)
		}
		notes, err := store.ListNotes(ctx, "alice")
		if err != nil || len(notes) != 1 || notes[0].Content != fact || notes[0].ConversationID != conv.ID || notes[0].TurnNumber != 1 {
			t.Fatalf("notes %+v %v", notes, err)
		}

		// Through the binary: the probe sees the capability, tools go out
		// and the server takes them (no notice).
		if r := d.mustOK("", "doctor"); !strings.Contains(r.stdout, "stories-tools") {
			t.Fatalf("doctor:\n%s", r.stdout)
		}
		_, r := d.askJSON("--model", "stories-tools", "Once upon a time")
		if strings.Contains(r.stderr, "does not support tools") {
			t.Fatalf("the tools model refused tools:\n%s", r.stderr)
		}
	})
}
