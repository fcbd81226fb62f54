package realollama

import (
	"errors"
	"fmt"
	"math"
	"net/http"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// Timings observed on the 2-core build machine (Ollama v0.6.5, CPU only):
//   - Start, exec to the first answer of GET /: 25-65 ms; stopping (SIGTERM): 3-8 ms
//   - CreateChatModel / CreateToolsModel (blob upload + create): 5-11 ms
//   - first chat, which starts the runner: first chunk after ~0.27 s, 24 tokens in ~0.34 s;
//     later: first chunk after ~12 ms, 24 tokens in ~0.12 s
//   - /api/embed (64-dim vector): ~7 ms
//   - forced tool call (ToolCallFormat): 0.07-0.31 s, streamed or not
//   - this whole test: ~2.2 s (~5 s wall with compiling)
//
// Always bound replies with num_predict: without it one chat with the tools
// model once ran 38 s, the tiny model writing on through context shifts.

// memorySave is the tool the tool-call tests offer the model.
var memorySave = api.Tool{
	Type: "function",
	Function: api.ToolFunction{
		Name:        "memory_save",
		Description: "Save a fact about the user.",
		Parameters: api.ToolFunctionParameters{
			Type:     "object",
			Required: []string{"content"},
			Properties: func() *api.ToolPropertiesMap {
				p := api.NewToolPropertiesMap()
				p.Set("content", api.ToolProperty{Type: api.PropertyType{"string"}, Description: "the fact"})
				return p
			}(),
		},
	},
}

func TestRealOllama(t *testing.T) {
	t0 := time.Now()
	s := Start(t)
	t.Logf("server %s (%s) answered after %v", s.Host, s.Bin, time.Since(t0))

	t0 = time.Now()
	s.CreateChatModel(t, "stories-chat", 256)
	t.Logf("created stories-chat in %v", time.Since(t0))
	t0 = time.Now()
	s.CreateToolsModel(t, "stories-tools", 512)
	t.Logf("created stories-tools in %v", time.Since(t0))

	c := s.Client()
	user := []api.Message{{Role: "user", Content: "Tell me a story."}}

	t.Run("capabilities", func(t *testing.T) {
		for name, wantTools := range map[string]bool{"stories-chat": false, "stories-tools": true} {
			resp, err := c.Show(t.Context(), &api.ShowRequest{Model: name})
			if err != nil {
				t.Fatalf("show %s: %v", name, err)
			}
			if !slices.Contains(resp.Capabilities, model.CapabilityCompletion) {
				t.Errorf("%s: capabilities %v lack completion", name, resp.Capabilities)
			}
			if got := slices.Contains(resp.Capabilities, model.CapabilityTools); got != wantTools {
				t.Errorf("%s: capabilities %v: tools listed = %v, want %v", name, resp.Capabilities, got, wantTools)
			}
			if !strings.Contains(resp.Parameters, "temperature") || !strings.Contains(resp.Parameters, "num_ctx") {
				t.Errorf("%s: parameters %q lack temperature or num_ctx", name, resp.Parameters)
			}
		}
	})

	t.Run("streamed chat is deterministic", func(t *testing.T) {
		chat := func() (string, int) {
			t0 := time.Now()
			var sb strings.Builder
			chunks := 0
			var first time.Duration
			err := c.Chat(t.Context(), &api.ChatRequest{
				Model:    "stories-chat",
				Messages: user,
				Options:  map[string]any{"num_predict": 24},
			}, func(r api.ChatResponse) error {
				if chunks == 0 {
					first = time.Since(t0)
				}
				chunks++
				sb.WriteString(r.Message.Content)
				return nil
			})
			if err != nil {
				t.Fatalf("chat: %v", err)
			}
			t.Logf("chat: %d chunks, first after %v, all in %v: %q", chunks, first, time.Since(t0), sb.String())
			return sb.String(), chunks
		}
		a, chunks := chat()
		b, _ := chat()
		if strings.TrimSpace(a) == "" {
			t.Fatal("empty reply")
		}
		if chunks < 2 {
			t.Errorf("reply came in %d chunk(s), want a stream", chunks)
		}
		if a != b {
			t.Errorf("replies differ at temperature 0:\n%q\n%q", a, b)
		}
	})

	t.Run("embed", func(t *testing.T) {
		t0 := time.Now()
		resp, err := c.Embed(t.Context(), &api.EmbedRequest{Model: "stories-chat", Input: "green tea"})
		if err != nil {
			t.Fatalf("embed: %v", err)
		}
		t.Logf("embed in %v", time.Since(t0))
		if len(resp.Embeddings) != 1 || len(resp.Embeddings[0]) == 0 {
			t.Fatalf("embeddings: got %d vectors", len(resp.Embeddings))
		}
		var norm float64
		for _, x := range resp.Embeddings[0] {
			norm += float64(x) * float64(x)
		}
		if norm = math.Sqrt(norm); math.Abs(norm-1) > 1e-3 {
			t.Errorf("%d-dim vector has norm %v, want 1", len(resp.Embeddings[0]), norm)
		}
	})

	t.Run("tools rejected by plain model", func(t *testing.T) {
		err := c.Chat(t.Context(), &api.ChatRequest{
			Model:    "stories-chat",
			Messages: user,
			Tools:    api.Tools{memorySave},
		}, func(api.ChatResponse) error { return nil })
		var se api.StatusError
		if !errors.As(err, &se) || se.StatusCode != http.StatusBadRequest || !strings.Contains(se.ErrorMessage, "does not support tools") {
			t.Fatalf("got error %v, want HTTP 400 ... does not support tools", err)
		}
	})

	t.Run("tools accepted by tools model", func(t *testing.T) {
		// Without a format the model just writes a story: no tool call, but
		// no error either. (v0.6.5 holds back the text of a streamed reply
		// to a request with tools, looking for tool calls, and sends it all
		// in the final chunk.)
		var reply api.Message
		err := c.Chat(t.Context(), &api.ChatRequest{
			Model:    "stories-tools",
			Messages: user,
			Tools:    api.Tools{memorySave},
			Options:  map[string]any{"num_predict": 16},
		}, func(r api.ChatResponse) error {
			reply.Content += r.Message.Content
			reply.ToolCalls = append(reply.ToolCalls, r.Message.ToolCalls...)
			return nil
		})
		if err != nil {
			t.Fatalf("chat with tools: %v", err)
		}
		t.Logf("reply without format: %q, %d tool calls", reply.Content, len(reply.ToolCalls))
	})

	t.Run("forced tool call", func(t *testing.T) {
		const content = "The user likes green tea."
		format := ToolCallFormat("memory_save", map[string]any{"content": content})
		msgs := []api.Message{{Role: "user", Content: "Remember that I like green tea."}}
		for _, stream := range []bool{true, false} {
			for range 3 { // the same call every time
				t0 := time.Now()
				var calls []api.ToolCall
				var text strings.Builder
				err := c.Chat(t.Context(), &api.ChatRequest{
					Model:    "stories-tools",
					Messages: msgs,
					Tools:    api.Tools{memorySave},
					Format:   format,
					Stream:   &stream,
				}, func(r api.ChatResponse) error {
					calls = append(calls, r.Message.ToolCalls...)
					text.WriteString(r.Message.Content)
					return nil
				})
				if err != nil {
					t.Fatalf("stream=%v: chat: %v", stream, err)
				}
				t.Logf("stream=%v: %d tool call(s) in %v, text %q", stream, len(calls), time.Since(t0), text.String())
				if len(calls) != 1 || calls[0].Function.Name != "memory_save" {
					t.Fatalf("stream=%v: tool calls %+v, text %q; want one memory_save call", stream, calls, text.String())
				}
				args := calls[0].Function.Arguments
				if got, _ := args.Get("content"); got != content {
					t.Errorf("stream=%v: arguments %s, want content %q", stream, args.String(), content)
				}
			}
		}

		// The call round-trips: the template renders it back, with the
		// tool's answer, for the next turn.
		msgs = append(msgs,
			api.Message{Role: "assistant", ToolCalls: []api.ToolCall{{Function: api.ToolCallFunction{
				Name: "memory_save", Arguments: argsOf(map[string]any{"content": content}),
			}}}},
			api.Message{Role: "tool", Content: "saved"},
		)
		var sb strings.Builder
		err := c.Chat(t.Context(), &api.ChatRequest{
			Model:    "stories-tools",
			Messages: msgs,
			Tools:    api.Tools{memorySave},
			Options:  map[string]any{"num_predict": 8},
		}, func(r api.ChatResponse) error { sb.WriteString(r.Message.Content); return nil })
		if err != nil {
			t.Fatalf("chat after the tool result: %v", err)
		}
		t.Logf("reply after the tool result: %q", sb.String())
	})
}

func argsOf(m map[string]any) api.ToolCallFunctionArguments {
	a := api.NewToolCallFunctionArguments()
	for k, v := range m {
		a.Set(k, v)
	}
	return a
}

func TestStartSkipsWithoutBinary(t *testing.T) {
	t.Setenv(EnvBin, "")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("PATH", t.TempDir())
	t.Setenv("CI", "")
	reached := false
	t.Run("start", func(t *testing.T) {
		Start(t)
		reached = true
	})
	if reached {
		t.Fatal("Start returned without a binary; want a skip")
	}
}

func TestSharedFile(t *testing.T) {
	t.Run("found", func(t *testing.T) {
		p := SharedFile(t, ModelFile)
		if filepath.Base(p) != "stories260K.gguf" {
			t.Errorf("SharedFile = %s", p)
		}
	})

	t.Run("override", func(t *testing.T) {
		dir := t.TempDir()
		t.Setenv(EnvSharedDir, dir)
		reached := false
		t.Setenv("CI", "")
		t.Run("missing", func(t *testing.T) {
			SharedFile(t, ModelFile) // not in dir: skips
			reached = true
		})
		if reached {
			t.Fatal("SharedFile returned for a missing file; want a skip")
		}
	})
}

// outcomeTB records whether a helper skipped or failed the test.
type outcomeTB struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (o *outcomeTB) Helper() {}
func (o *outcomeTB) Skip(args ...any) {
	o.skipped, o.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}
func (o *outcomeTB) Fatal(args ...any) {
	o.failed, o.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}
func (o *outcomeTB) Skipf(format string, args ...any)  { o.Skip(fmt.Sprintf(format, args...)) }
func (o *outcomeTB) Fatalf(format string, args ...any) { o.Fatal(fmt.Sprintf(format, args...)) }

// outcome runs fn with an outcomeTB in its own goroutine, as the testing
// package runs a test.
func outcome(t *testing.T, fn func(testing.TB)) *outcomeTB {
	o := &outcomeTB{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn(o)
	}()
	<-done
	return o
}

// TestSharedFileMissingFailsInCI: a clone without ../shared skips the real
// model tests on a laptop, but under CI=true it fails, so that CI cannot go
// green without running them.
func TestSharedFileMissingFailsInCI(t *testing.T) {
	t.Setenv(EnvSharedDir, t.TempDir())
	for _, ci := range []string{"", "true"} {
		t.Setenv("CI", ci)
		o := outcome(t, func(tb testing.TB) { SharedFile(tb, ModelFile) })
		if wantFail := ci == "true"; o.failed != wantFail || o.skipped == wantFail {
			t.Errorf("CI=%q: failed=%v skipped=%v (%s)", ci, o.failed, o.skipped, o.msg)
		}
		if !strings.Contains(o.msg, "stories260K.gguf") {
			t.Errorf("CI=%q: message %q does not name the missing file", ci, o.msg)
		}
	}
}
