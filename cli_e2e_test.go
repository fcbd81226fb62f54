package main

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
)

// TestAskExitsWithoutWaitingForATitle: ask exits once the answer is stored,
// even when the model would take minutes to write a title; the
// conversation is titled from its first prompt meanwhile.
func TestAskExitsWithoutWaitingForATitle(t *testing.T) {
	srv := fakeollama.New(t)
	release := make(chan struct{})
	t.Cleanup(func() { close(release) }) // before the server closes
	srv.SetGenerate(func(api.GenerateRequest) fakeollama.Reply {
		<-release // a title model that never answers while ask runs
		return fakeollama.Say(`{"title": "A model title"}`)
	})
	d := newDevice(t, srv.Host())
	d.timeout = 30 * time.Second // the title call's own bound is 2 minutes
	r := d.mustOK("", "ask", "hello there, how are you?")
	if r.stdout != "You said: hello there, how are you?\n" {
		t.Fatalf("stdout = %q", r.stdout)
	}
	if list := d.conversations(); len(list) != 1 || list[0].Title != "hello there, how are you?" {
		t.Fatalf("conversations = %+v", list)
	}
	if n := len(srv.GenerateRequests()); n != 0 {
		t.Fatalf("ask made %d title requests", n)
	}
}

// TestChatTitlesWhatAskLeftUntitled: the chat, once it finds Ollama, gives
// the model's title to a conversation `mneme ask` made; the conversation
// list shows it.
func TestChatTitlesWhatAskLeftUntitled(t *testing.T) {
	srv := fakeollama.New(t)
	srv.SetGenerate(func(req api.GenerateRequest) fakeollama.Reply {
		if strings.Contains(req.Prompt, "User: where do puffins nest?") {
			return fakeollama.Say(`{"title": "Puffin nesting sites"}`)
		}
		return fakeollama.Say(`{"title": "Something else"}`)
	})
	d := newDevice(t, srv.Host())
	d.mustOK("", "ask", "where do puffins nest?")
	if list := d.conversations(); len(list) != 1 || list[0].Title != "where do puffins nest?" {
		t.Fatalf("after ask: %+v", d.conversations())
	}
	term := startTerminal(t, 100, 30, d.env())
	term.waitText("Ollama ready")
	term.keys("C-s")
	term.waitText("Puffin nesting sites")
	term.keys("C-c")
	term.exitStatus()
	if list := d.conversations(); len(list) != 1 || list[0].Title != "Puffin nesting sites" {
		t.Fatalf("after the chat: %+v", list)
	}
}

// TestNoToolsNoticeOncePerModel: the notice that a model cannot use tools
// is shown by the first ask with that model only, also when several asks
// start at once; another such model gets its own notice.
func TestNoToolsNoticeOncePerModel(t *testing.T) {
	srv := fakeollama.New(t, fakeollama.WithModels(
		fakeollama.Model{Name: "plain", Capabilities: []string{"completion"}},
		fakeollama.Model{Name: "other:1b", Capabilities: []string{"completion"}},
		fakeollama.Model{Name: fakeollama.DefaultEmbedModel, Capabilities: []string{"embedding"}},
	))
	d := newDevice(t, srv.Host())
	const notice = "does not support tools"
	told := func(r result) int { return strings.Count(r.stderr, notice) }

	if r := d.mustOK("", "ask", "--model", "plain", "first"); told(r) != 1 {
		t.Fatalf("first ask with plain: told %d times\n%s", told(r), r.stderr)
	}
	if r := d.mustOK("", "ask", "--model", "plain:latest", "second"); told(r) != 0 {
		t.Fatalf("second ask with plain: told again\n%s", r.stderr)
	}
	// Four processes at once with a model not seen yet: one tells.
	results := make([]result, 4)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done() // also when d.mneme gives up on a process
			results[i] = d.mneme("", "ask", "--model", "other:1b", fmt.Sprintf("at once %d", i))
		}()
	}
	wg.Wait()
	total := 0
	for _, r := range results {
		if r.code != 0 {
			t.Fatalf("concurrent ask exited %d\n%s", r.code, r.stderr)
		}
		total += told(r)
	}
	if total != 1 {
		t.Fatalf("four concurrent asks with other:1b told %d times, want 1", total)
	}
}

// TestAskStepLimitIsAnError: a model that keeps calling tools up to the
// step limit, even on the last call that offers none, ends ask with a
// non-zero exit that says the limit was reached; what it said is stored.
func TestAskStepLimitIsAnError(t *testing.T) {
	srv := fakeollama.New(t)
	srv.SetDefault(func(api.ChatRequest) fakeollama.Reply {
		return fakeollama.Reply{Content: []string{"Let me look."},
			ToolCalls: []api.ToolCall{fakeollama.ToolCall("memory_search", map[string]any{"query": "cat"})}}
	})
	d := newDevice(t, srv.Host())
	d.extra = []string{"MNEME_MAX_STEPS=3"}
	r := d.mneme("", "ask", "what is my cat called?")
	if r.code != 1 || !strings.Contains(r.stderr, "step limit") || !strings.Contains(r.stderr, "max_steps") {
		t.Fatalf("exit %d\nstdout %q\nstderr %s", r.code, r.stdout, r.stderr)
	}
	if n := len(srv.Requests()); n != 3 {
		t.Fatalf("%d model calls, want 3", n)
	}
	if list := d.conversations(); len(list) != 1 || list[0].MessageCount < 2 {
		t.Fatalf("conversations %+v", list)
	}
}

// TestAskEmptyAnswerIsAnError: a model whose last call, without tools,
// answers nothing ends ask with a non-zero exit that says so, instead of
// exit 0 and an empty answer.
func TestAskEmptyAnswerIsAnError(t *testing.T) {
	for _, tc := range []struct {
		name   string
		script []fakeollama.Reply
	}{
		{"no text", []fakeollama.Reply{{Content: []string{"  ", "\n"}}}},
		{"tools, then nothing", []fakeollama.Reply{
			{ToolCalls: []api.ToolCall{fakeollama.ToolCall("memory_search", map[string]any{"query": "cat"})}},
			{},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeollama.New(t)
			srv.Script(tc.script...)
			d := newDevice(t, srv.Host())
			d.extra = []string{"MNEME_MAX_STEPS=2"}
			r := d.mneme("", "ask", "what is my cat called?")
			if r.code != 1 || !strings.Contains(r.stderr, "no answer") {
				t.Fatalf("exit %d\nstdout %q\nstderr %s", r.code, r.stdout, r.stderr)
			}
			if srv.Remaining() != 0 {
				t.Fatalf("%d scripted replies not used", srv.Remaining())
			}
		})
	}
}
