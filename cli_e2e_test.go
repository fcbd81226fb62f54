package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/cli"
	"github.com/mneme-dev/mneme/internal/fakeollama"
)

// TestAskExitsWithoutWaitingForATitle: ask exits once the answer is stored,
// even when the model would take minutes to write a title; the
// conversation is titled from its first prompt meanwhile.
func TestAskExitsWithoutWaitingForATitle(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
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
	term.keys("C-c") // closes the conversation list
	term.waitText("Closed: press Ctrl+C again to quit.")
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
	t.Parallel() // own data dir and fake Ollama
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
	t.Parallel() // own data dir and fake Ollama
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
	t.Parallel() // own data dir and fake Ollama
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

// importLines makes n JSON lines: conversations of 100 messages each.
func importLines(n int) []string {
	lines := make([]string, n)
	for i := range lines {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		lines[i] = fmt.Sprintf(`{"conversation":"c%d","role":%q,"content":"message %d about topic %d"}`, i/100, role, i, i/100)
	}
	return lines
}

// storedMessages sums the message counts of the conversations.
func (d *device) storedMessages() int {
	n := 0
	for _, c := range d.conversations() {
		n += c.MessageCount
	}
	return n
}

// TestImportInterruptedSaysHowFarAndResumes: Ctrl+C during an import from
// stdin (here: waiting for more input) says how many messages are stored
// and that running the command again resumes; running it again stores the
// rest, each message once.
func TestImportInterruptedSaysHowFarAndResumes(t *testing.T) {
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	lines := importLines(5000)
	cmd := exec.Command(mnemeBin, "import", "-")
	cmd.Env = d.env()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr lockedBuffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	// 2,500 lines: the first batch of 2,000 is stored, the rest waits for
	// more input that never comes.
	if _, err := io.WriteString(stdin, strings.Join(lines[:2500], "\n")+"\n"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for d.storedMessages() < 2000 {
		if time.Now().After(deadline) {
			t.Fatalf("the first batch was never stored\nstderr: %s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond) // polling interval
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	code := waitExit(t, cmd, 5*time.Second, &stderr)
	msg := stderr.String()
	if code != cli.ExitInterrupted || !strings.Contains(msg, "2,000 messages are stored") ||
		!strings.Contains(msg, "run the same command again to resume") || strings.Contains(msg, "context canceled") {
		t.Fatalf("exit %d stderr %q", code, msg)
	}

	file := writeFile(t, "all.jsonl", strings.Join(lines, "\n")+"\n")
	r := d.mustOK("", "import", file)
	if !strings.Contains(r.stdout, "Imported 3,000 messages") || !strings.Contains(r.stdout, "2,000 unchanged") {
		t.Fatalf("resumed import: %s", r.stdout)
	}
	if n := d.storedMessages(); n != 5000 {
		t.Fatalf("%d messages stored, want 5000", n)
	}
	if n := len(d.conversations()); n != 50 {
		t.Fatalf("%d conversations, want 50", n)
	}
}

// crashedIndex is a device with 2,500 turns whose keyword index is gone,
// as after a crash: the next command rebuilds it.
func crashedIndex(t *testing.T) *device {
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	d.mustOK("", "import", writeFile(t, "all.jsonl", strings.Join(importLines(5000), "\n")+"\n"))
	if err := os.RemoveAll(filepath.Join(d.home, "data", "keyword")); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestIndexRebuildIsAnnounced: the first command after the keyword index
// was lost rebuilds it and says so on stderr, once, when stderr is not a
// terminal; the search still finds the turn.
func TestIndexRebuildIsAnnounced(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	d := crashedIndex(t)
	r := d.mustOK("", "search", "message 4321")
	if n := strings.Count(r.stderr, "indexing 2,500 turns for search"); n != 1 {
		t.Fatalf("announced %d times; stderr:\n%s", n, r.stderr)
	}
	if !strings.Contains(r.stdout, "message 4320 about topic 43") {
		t.Fatalf("search after the rebuild:\n%s", r.stdout)
	}
	if r := d.mustOK("", "search", "message 4321"); strings.Contains(r.stderr, "indexing") {
		t.Fatalf("announced again with nothing to rebuild:\n%s", r.stderr)
	}
}

// TestIndexRebuildCountsOnATerminal: on a terminal the rebuild shows a
// counter that ends at the total.
func TestIndexRebuildCountsOnATerminal(t *testing.T) {
	d := crashedIndex(t)
	term := startTerminal(t, 100, 30, d.env(), "search", "message 4321")
	if code := term.exitStatus(); code != 0 {
		t.Fatalf("exit %d\n%s", code, term.screen())
	}
	// The whole pane, scrolled-off lines included.
	s := term.tmux("capture-pane", "-p", "-S", "-", "-t", "mneme")
	if !strings.Contains(s, "mneme: indexing turns for search: 2,500 of 2,500\n") || !strings.Contains(s, "topic 43") {
		t.Fatalf("screen:\n%s", s)
	}
}

// TestIndexRebuildOnADumbTerminal: TERM=dumb cannot redraw a line: the
// rebuild says itself once, as on a pipe, without the counter's carriage
// returns and erase codes.
func TestIndexRebuildOnADumbTerminal(t *testing.T) {
	d := crashedIndex(t)
	term := openTerminal(t, 100, 30, append(append([]string{"env", "-i"}, d.env()...), "TERM=dumb", mnemeBin, "search", "message 4321")...)
	if code := term.exitStatus(); code != 0 {
		t.Fatalf("exit %d\n%s", code, term.screen())
	}
	s := term.tmux("capture-pane", "-p", "-S", "-", "-t", "mneme")
	if !strings.Contains(s, "mneme: indexing 2,500 turns for search…") || strings.Contains(s, "of 2,500") || !strings.Contains(s, "topic 43") {
		t.Fatalf("screen:\n%s", s)
	}
}

// TestAskSeparatesTheTextOfEachModelCall: text the model writes before a
// tool call and the answer after it are printed as separate paragraphs,
// as they are stored, not run together.
func TestAskSeparatesTheTextOfEachModelCall(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	script := func() {
		srv.Script(
			fakeollama.Reply{Content: []string{"Let me look."},
				ToolCalls: []api.ToolCall{fakeollama.ToolCall("memory_search", map[string]any{"query": "cat"})}},
			fakeollama.Say("Your cat is called Tom."),
		)
	}
	d := newDevice(t, srv.Host())
	script()
	r := d.mustOK("", "ask", "what is my cat called?")
	if r.stdout != "Let me look.\n\nYour cat is called Tom.\n" {
		t.Fatalf("stdout %q", r.stdout)
	}
	script()
	if out, _ := d.askJSON("what is my cat called?"); out.Answer+"\n" != r.stdout {
		t.Fatalf("stored answer %q, printed %q", out.Answer, r.stdout)
	}
}

// An empty file (or one of blank lines) is said to hold nothing, and a
// script learns it from the exit code; so is an export of which nothing
// could be read. Neither is first summed up as "Imported 0 messages" with
// search "ready".
func TestImportOfAnEmptyFileSaysSo(t *testing.T) {
	d := newDevice(t, closedPort(t))
	for _, text := range []string{"", "\n\n"} {
		if r := d.mneme("", "import", writeFile(t, "empty.jsonl", text)); r.code != 1 || !strings.Contains(r.stderr, "the file holds nothing to import") ||
			strings.Contains(r.stdout+r.stderr, "Imported 0") || strings.Contains(r.stdout+r.stderr, "ready") {
			t.Fatalf("import of %q: %+v", text, r)
		}
	}
	bad := writeFile(t, "conversations.json", `[{"title": 5, "mapping": {}}]`)
	if r := d.mneme("", "import", "--from", "chatgpt", bad); r.code != 1 || !strings.Contains(r.stderr, "nothing imported") ||
		strings.Contains(r.stdout+r.stderr, "Imported 0") || strings.Contains(r.stdout+r.stderr, "ready") {
		t.Fatalf("import of an unreadable export: %+v", r)
	}
}
