package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/cli"
	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/memory"
)

// exported reads `mneme export` as records.
func (d *device) exported() []memory.Record {
	d.t.Helper()
	r := d.mustOK("", "export")
	var out []memory.Record
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var rec memory.Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			d.t.Fatalf("export line %q: %v", sc.Text(), err)
		}
		out = append(out, rec)
	}
	return out
}

// lockedBuffer collects a running process's output; it can be read while
// the process still writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// start runs the binary in the background; the caller waits for it.
func (d *device) start(stdout *os.File, args ...string) (*exec.Cmd, *lockedBuffer) {
	d.t.Helper()
	cmd := exec.Command(mnemeBin, args...)
	cmd.Env = d.env()
	var errb lockedBuffer
	cmd.Stdout, cmd.Stderr = stdout, &errb
	if stdout == nil {
		cmd.Stdout = &bytes.Buffer{}
	}
	if err := cmd.Start(); err != nil {
		d.t.Fatal(err)
	}
	d.t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	return cmd, &errb
}

// waitExit waits at most limit for cmd and returns its exit code (-1 if
// a signal killed it).
func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration, stderr *lockedBuffer) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("mneme did not exit within %s\nstderr: %s", limit, stderr.String())
		return 0
	}
}

// interruptOnceHeld waits until srv holds a request (Freeze, HoldEmbeds)
// of cmd's, then sends cmd SIGINT and waits for it to exit, within 2 s,
// returning its exit code.
func interruptOnceHeld(t *testing.T, srv *fakeollama.Server, cmd *exec.Cmd, stderr *lockedBuffer) int {
	t.Helper()
	select {
	case <-srv.Held(): // asked, and no answer comes
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("%v never asked Ollama\nstderr: %s", cmd.Args, stderr.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	return waitExit(t, cmd, 2*time.Second, stderr)
}

// waitStarted waits until a chat request reached the fake Ollama.
func waitStarted(t *testing.T, srv *fakeollama.Server, stderr *lockedBuffer) {
	t.Helper()
	select {
	case <-srv.Started():
	case <-time.After(30 * time.Second):
		t.Fatalf("no chat request reached Ollama within 30 s\nstderr: %s", stderr.String())
	}
}

// pollExport polls `mneme export` until ok accepts the records.
func (d *device) pollExport(what string, ok func([]memory.Record) bool) []memory.Record {
	d.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		recs := d.exported()
		if ok(recs) {
			return recs
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(d.home, "data", "mneme.log"))
			d.t.Fatalf("export never showed %s: %+v\nlog:\n%s", what, recs, log)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// `mneme ask … | head -c 20`: head exits after 20 bytes, the rest of the
// answer is still generated and stored, and mneme exits 141 by itself
// (not killed by SIGPIPE).
func TestAskIntoClosedPipeStoresTheWholeAnswer(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	gate := make(chan struct{})
	chunks := []string{"The first line is long enough.\n", "Then", " the", " rest", " of", " the", " answer."}
	srv.Script(fakeollama.Reply{Content: chunks, Gate: gate})
	d := newDevice(t, srv.Host())

	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd, stderr := d.start(pw, "ask", "tell me everything")
	pw.Close()
	head := exec.Command("head", "-c", "20")
	var headOut bytes.Buffer
	head.Stdin, head.Stdout = pr, &headOut
	if err := head.Run(); err != nil {
		t.Fatal(err)
	}
	pr.Close() // no reader is left: mneme's next write fails
	close(gate)
	code := waitExit(t, cmd, 30*time.Second, stderr)
	if headOut.String() != chunks[0][:20] {
		t.Fatalf("head printed %q", headOut.String())
	}
	if code != cli.ExitOutputClosed || !strings.Contains(stderr.String(), "the whole answer is stored") {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	recs := d.exported()
	if len(recs) != 2 || recs[1].Content != strings.Join(chunks, "") || recs[1].Status == memory.StatusInterrupted {
		t.Fatalf("export %+v", recs)
	}
	if !strings.Contains(d.mustOK("", "ask", "-h").stdout, "141") {
		t.Fatal("ask -h does not document exit code 141")
	}
}

func TestAskStalledStreamEndsWithinTheIdleTimeout(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.Script(fakeollama.Reply{Content: []string{"Half", " an"}, Hold: true})
	d := newDevice(t, srv.Host())
	d.extra = []string{"MNEME_STREAM_IDLE_TIMEOUT=1s"}
	d.timeout = 20 * time.Second // far below the 2 min first-token default: the idle timeout cut it
	r := d.mneme("", "ask", "question")
	if r.code != 1 || r.stdout != "Half an\n" || !strings.Contains(r.stderr, "sent nothing for 1 s mid-answer") ||
		!strings.Contains(r.stderr, "partial answer is saved") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	recs := d.exported()
	if len(recs) != 2 || recs[0].Content != "question" || recs[1].Content != "Half an" || recs[1].Status != memory.StatusInterrupted {
		t.Fatalf("export %+v", recs)
	}
}

// A model caught in a loop does not keep a script waiting: the answer is
// cut at max_answer_tokens, kept whole as far as it got, and ask says so.
func TestAskRunawayAnswerIsCut(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.Script(fakeollama.Reply{Content: slices.Repeat([]string{" la"}, 1000), Hold: true})
	d := newDevice(t, srv.Host())
	d.extra = []string{"MNEME_MAX_ANSWER_TOKENS=16"}
	r := d.mneme("", "ask", "--json", "sing")
	var out struct {
		Answer string `json:"answer"`
		Cut    bool   `json:"cut"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); r.code != 0 || err != nil || !out.Cut || strings.Count(out.Answer, "la") != 16 ||
		!strings.Contains(r.stderr, "cut at about 16 tokens (max_answer_tokens)") {
		t.Fatalf("exit %d stdout %q stderr %q (%v)", r.code, r.stdout, r.stderr, err)
	}
	recs := d.exported()
	if len(recs) != 2 || strings.TrimSpace(recs[1].Content) != out.Answer || recs[1].Status != memory.StatusInterrupted {
		t.Fatalf("export %+v", recs)
	}
}

// ask into a full disk says it could not print the answer, and where the
// answer is: stored, or (incognito) nowhere.
func TestAskOnAFullDisk(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here:", err)
	}
	defer full.Close()
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	for args, want := range map[string]string{
		"ask hello":             "the whole answer is stored (mneme export --conversation ",
		"ask --incognito hello": "incognito: nothing was kept",
	} {
		cmd, stderr := d.start(full, strings.Fields(args)...)
		err := cmd.Wait()
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(stderr.String(), "could not print the answer") ||
			!strings.Contains(stderr.String(), want) {
			t.Errorf("%s > /dev/full: %v, stderr %q", args, err, stderr)
		}
	}
}

func TestAskStallBeforeHeadersSaysWhatHappened(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.Script(fakeollama.Reply{Stall: true})
	d := newDevice(t, srv.Host())
	d.timeout = 20 * time.Second
	r := d.mneme("", "ask", "--first-token-timeout", "1s", "question")
	if r.code != 1 || !strings.Contains(r.stderr, "sent no answer within 1 s") || strings.Contains(r.stderr, "is it running") ||
		!strings.Contains(r.stderr, "prompt is saved") {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	// The prompt is kept; the turn ends with an empty answer marked interrupted.
	if recs := d.exported(); len(recs) != 2 || recs[0].Content != "question" || recs[1].Content != "" || recs[1].Status != "interrupted" {
		t.Fatalf("export %+v", recs)
	}
}

// TestAskRefusedByOllamaLeavesNothing: Ollama answers a new conversation's
// request with an error (a 500: out of memory loading the model): ask
// exits 1 with the reason and leaves no conversation, as when Ollama is
// down; --json says why. With -c, the prompt is kept, marked unanswered.
func TestAskRefusedByOllamaLeavesNothing(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	srv.Script(fakeollama.Reply{Status: 500, Error: "model requires more system memory"})
	r := d.mneme("", "ask", "--json", "hello there")
	var refused struct {
		ConversationID string `json:"conversation_id"`
		Error          string `json:"error"`
	}
	if r.code != 1 || !strings.Contains(r.stderr, "model requires more system memory") || !strings.Contains(r.stderr, "nothing was stored") ||
		json.Unmarshal([]byte(r.stdout), &refused) != nil || refused.ConversationID != "" || !strings.Contains(refused.Error, "nothing was stored") {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if r := d.mneme("", "search", "hello"); !strings.Contains(r.stdout, "Nothing found") {
		t.Fatalf("search finds the refused prompt:\n%s", r.stdout)
	}
	if list := d.conversations(); len(list) != 0 {
		t.Fatalf("a refused ask left %+v", list)
	}
	d.mustOK("", "ask", "first question")
	srv.Script(fakeollama.Reply{Status: 500, Error: "model requires more system memory"})
	r = d.mneme("", "ask", "-c", "--json", "second question")
	var out struct {
		Error string `json:"error"`
	}
	if r.code != 1 || json.Unmarshal([]byte(r.stdout), &out) != nil || !strings.Contains(out.Error, "model requires more system memory") {
		t.Fatalf("ask -c refused: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	if recs := d.exported(); len(recs) != 4 || recs[2].Content != "second question" || recs[3].Status != "interrupted" {
		t.Fatalf("export %+v", recs)
	}
}

// kill -9 mid-answer loses at most the last second of it: the answer is
// saved as it streams, marked interrupted until it is complete.
func TestAskKilledMidStreamKeepsThePartialAnswer(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	gate := make(chan struct{})
	srv.Script(fakeollama.Reply{Content: []string{"Once", " upon", " a", " time"}, Gate: gate})
	d := newDevice(t, srv.Host())
	cmd, stderr := d.start(nil, "ask", "tell me a story")
	// Only once the ask has reached Ollama: a second process creating the
	// database at the same time as the first is another matter.
	waitStarted(t, srv, stderr)
	d.pollExport("the first chunk", func(r []memory.Record) bool { return len(r) == 2 && r[1].Content == "Once" })
	gate <- struct{}{}
	d.pollExport("the second chunk", func(r []memory.Record) bool { return len(r) == 2 && r[1].Content == "Once upon" })
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd, 10*time.Second, stderr); code != -1 {
		t.Fatalf("exit %d after SIGKILL", code)
	}
	recs := d.exported()
	if len(recs) != 2 || recs[0].Content != "tell me a story" || recs[1].Content != "Once upon" || recs[1].Status != memory.StatusInterrupted {
		t.Fatalf("export %+v", recs)
	}
	// The next run picks up after it; the interrupted answer stays.
	close(gate)
	d.mustOK("", "ask", "--continue", "go on")
	if recs := d.exported(); len(recs) != 4 || recs[1].Content != "Once upon" || recs[3].Content != "You said: go on" {
		t.Fatalf("export after the next ask %+v", recs)
	}
}

// Ctrl+C while Ollama has not answered yet: the prompt is kept, with an
// empty answer marked interrupted (as the chat shows it), no empty
// conversation is left, and mneme exits promptly.
func TestAskInterruptedBeforeTheAnswerKeepsThePrompt(t *testing.T) {
	for name, rep := range map[string]fakeollama.Reply{
		"no headers":   {Stall: true},
		"headers only": {Hold: true},
	} {
		t.Run(name, func(t *testing.T) {
			srv := fakeollama.New(t)
			srv.Script(rep)
			d := newDevice(t, srv.Host())
			cmd, stderr := d.start(nil, "ask", "are you there?")
			waitStarted(t, srv, stderr)
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			if code := waitExit(t, cmd, 2*time.Second, stderr); code != cli.ExitInterrupted || !strings.Contains(stderr.String(), "prompt was kept") {
				t.Fatalf("exit %d stderr %q", code, stderr.String())
			}
			if recs := d.exported(); len(recs) != 2 || recs[0].Content != "are you there?" || recs[0].Role != memory.RoleUser ||
				recs[1].Role != memory.RoleAssistant || recs[1].Content != "" || recs[1].Status != memory.StatusInterrupted {
				t.Fatalf("export %+v", recs)
			}
			if list := d.conversations(); len(list) != 1 || list[0].MessageCount != 2 {
				t.Fatalf("conversations %+v", list)
			}
		})
	}
}

// Ctrl+C while Ollama hangs altogether (the start-up probe gets no
// answer): the prompt, stored before the probe, is kept; no conversation
// is left empty; mneme exits at once.
func TestAskInterruptedWhileOllamaHangsKeepsThePrompt(t *testing.T) {
	srv := fakeollama.New(t)
	srv.Freeze()
	d := newDevice(t, srv.Host())
	cmd, stderr := d.start(nil, "ask", "are you there?")
	select {
	case <-srv.Held():
	case <-time.After(30 * time.Second):
		t.Fatalf("mneme never asked Ollama anything\nstderr: %s", stderr.String())
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	if code := waitExit(t, cmd, 2*time.Second, stderr); code != cli.ExitInterrupted || !strings.Contains(stderr.String(), "prompt was kept") {
		t.Fatalf("exit %d stderr %q", code, stderr.String())
	}
	if recs := d.exported(); len(recs) != 2 || recs[0].Content != "are you there?" || recs[0].Role != memory.RoleUser ||
		recs[1].Content != "" || recs[1].Status != memory.StatusInterrupted {
		t.Fatalf("export %+v", recs)
	}
	if list := d.conversations(); len(list) != 1 || list[0].MessageCount != 2 {
		t.Fatalf("conversations %+v", list)
	}
}

// `mneme conversations | head -1`: the reader goes away mid-output, and
// mneme ends quietly with 141, as a process killed by SIGPIPE would, with
// no "broken pipe" message.
func TestListIntoClosedPipeEndsQuietly(t *testing.T) {
	t.Parallel() // own data dir
	d := newDevice(t, "127.0.0.1:1")
	var lines strings.Builder
	for i := range 3000 { // far more than a pipe holds
		fmt.Fprintf(&lines, `{"conversation":"c%d","title":"a conversation with a long enough title, number %d","role":"user","content":"hello"}`+"\n", i, i)
	}
	d.mustOK("", "import", writeFile(t, "many.jsonl", lines.String()))
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd, stderr := d.start(pw, "conversations")
	pw.Close()
	head := exec.Command("head", "-n", "1")
	head.Stdin, head.Stdout = pr, io.Discard
	if err := head.Run(); err != nil {
		t.Fatal(err)
	}
	pr.Close()
	if code := waitExit(t, cmd, 30*time.Second, stderr); code != cli.ExitOutputClosed || stderr.String() != "" {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
}
