package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
)

// Several mneme processes on one data dir, as people use it: a chat open
// all day, scripts running `mneme ask` beside it, a second terminal.

// holdsOpen reports whether process pid has a file open whose name ends
// in suffix, from /proc: where a process is waiting can be seen there.
func holdsOpen(pid int, suffix string) bool {
	dir := fmt.Sprintf("/proc/%d/fd", pid)
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if target, err := os.Readlink(filepath.Join(dir, e.Name())); err == nil && strings.HasSuffix(target, suffix) {
			return true
		}
	}
	return false
}

// waitUntil polls cond until it holds, failing after limit.
func waitUntil(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not synchronisation
	}
}

// lockKeywordIndex takes the keyword index's lock as another mneme process
// would while it uses the index; the returned func lets it go.
func lockKeywordIndex(t *testing.T, d *device) func() {
	t.Helper()
	f, err := os.OpenFile(filepath.Join(d.home, "data", "keyword.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the keyword index lock", 10*time.Second, func() bool {
		return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
	})
	var once sync.Once
	unlock := func() { once.Do(func() { f.Close() }) }
	t.Cleanup(unlock)
	return unlock
}

// Processes started together on a new data dir all work: the schema and
// the keyword index are created once, whoever comes first.
func TestColdStartRace(t *testing.T) {
	const rounds, procs = 4, 6
	for r := 0; r < rounds; r++ {
		d := newDevice(t, closedPort(t))
		cmds := make([]*exec.Cmd, procs)
		for i := range cmds {
			cmds[i], _ = d.start(nil, "memory", "add", fmt.Sprintf("note %d of round %d", i, r))
		}
		for i, cmd := range cmds {
			if err := cmd.Wait(); err != nil {
				t.Fatalf("round %d: process %d: %v\nstderr: %s", r, i, err, cmd.Stderr)
			}
		}
		if got := len(d.notes()); got != procs {
			t.Fatalf("round %d: %d notes stored, want %d", r, got, procs)
		}
		out := d.mustOK("", "memory", "search", "--json", fmt.Sprintf("round %d", r)).stdout
		if got := strings.Count(out, fmt.Sprintf("of round %d", r)); got != procs {
			t.Fatalf("round %d: memory search finds %d of the %d notes:\n%s", r, got, procs, out)
		}
	}
}

// A command waiting for the index that another process holds ends within
// 2 s of SIGINT or SIGTERM, saying it was interrupted; without a signal it
// goes on as soon as the index is free.
func TestWaitingCommandEndsOnSignal(t *testing.T) {
	d := newDevice(t, closedPort(t))
	d.mustOK("", "memory", "add", "The user grows tomatoes.")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		unlock := lockKeywordIndex(t, d)
		cmd, stderr := d.start(nil, "search", "tomatoes")
		waitUntil(t, "search to wait for the index", 20*time.Second, func() bool {
			return holdsOpen(cmd.Process.Pid, "keyword.lock")
		})
		sent := time.Now()
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		took := time.Since(sent)
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 128+int(sig) {
			t.Fatalf("%v: exit %v, want %d; stderr: %s", sig, err, 128+int(sig), stderr)
		}
		if took > 2*time.Second {
			t.Fatalf("%v: exited %s after the signal", sig, took)
		}
		if !strings.Contains(stderr.String(), "interrupted") {
			t.Fatalf("%v: stderr %q does not say it was interrupted", sig, stderr)
		}
		unlock()
	}

	unlock := lockKeywordIndex(t, d)
	cmd, stderr := d.start(nil, "memory", "search", "tomatoes")
	waitUntil(t, "memory search to wait for the index", 20*time.Second, func() bool {
		return holdsOpen(cmd.Process.Pid, "keyword.lock")
	})
	unlock()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("memory search after the index was free: %v\n%s", err, stderr)
	}
	if out := fmt.Sprint(cmd.Stdout); !strings.Contains(out, "tomatoes") {
		t.Fatalf("memory search printed:\n%s", out)
	}
}

// Two asks at once run side by side: the second is answered while the
// first is still streaming.
func TestTwoAsksRunSideBySide(t *testing.T) {
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	d.mustOK("", "memory", "add", "warm-up so the data dir exists")
	gate := make(chan struct{})
	srv.Script(fakeollama.Reply{Content: fakeollama.SplitWords("the first answer, slowly"), Gate: gate})
	first, firstErr := d.start(nil, "ask", "first question")
	<-srv.Started()
	// The first answer is mid-stream; the second ask must not wait for it.
	second := d.mustOK("", "ask", "second question")
	if !strings.Contains(second.stdout, "second question") {
		t.Fatalf("second answer: %q", second.stdout)
	}
	if first.ProcessState != nil {
		t.Fatal("the first ask ended before its answer was released")
	}
	close(gate)
	if err := first.Wait(); err != nil {
		t.Fatalf("first ask: %v\n%s", err, firstErr)
	}
	if out := fmt.Sprint(first.Stdout); !strings.Contains(out, "the first answer, slowly") {
		t.Fatalf("first answer: %q", out)
	}
	if n := len(d.conversations()); n != 2 {
		t.Fatalf("%d conversations, want 2", n)
	}
}

// lastAsked is the last message of a chat request.
func lastAsked(req api.ChatRequest) string {
	if len(req.Messages) == 0 {
		return ""
	}
	return req.Messages[len(req.Messages)-1].Content
}

// waitAsked waits until the fake Ollama has begun answering prompt.
func waitAsked(srv *fakeollama.Server, prompt string) {
	for req := range srv.Started() {
		if lastAsked(req) == prompt {
			return
		}
	}
}

// Two scripts continuing one conversation take turns: the second waits for
// the first's answer, says so, and the conversation reads question,
// answer, question, answer; the second answer was asked with the first
// turn in its history.
func TestTwoAsksInOneConversationTakeTurns(t *testing.T) {
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	d.mustOK("", "ask", "base question")
	gate := make(chan struct{})
	srv.Script(fakeollama.Reply{Content: fakeollama.SplitWords("the first answer, slowly"), Gate: gate})
	first, firstErr := d.start(nil, "ask", "-c", "first question")
	waitAsked(srv, "first question") // the base question's signals (its answer, learning) come first
	second, secondErr := d.start(nil, "ask", "-c", "second question")
	waitUntil(t, "the second ask to say it waits", 10*time.Second, func() bool {
		return strings.Contains(secondErr.String(), "another mneme is answering in this conversation")
	})
	for _, req := range srv.Requests() {
		if lastAsked(req) == "second question" {
			t.Fatal("the second question was sent while the first was being answered")
		}
	}
	close(gate)
	if err := first.Wait(); err != nil {
		t.Fatalf("first ask: %v\n%s", err, firstErr)
	}
	if err := second.Wait(); err != nil {
		t.Fatalf("second ask: %v\n%s", err, secondErr)
	}
	var roles, contents []string
	for _, r := range d.exported() {
		roles = append(roles, string(r.Role))
		contents = append(contents, r.Content)
	}
	if got := strings.Join(roles, ","); got != "user,assistant,user,assistant,user,assistant" {
		t.Fatalf("roles %s: %q", got, contents)
	}
	if contents[2] != "first question" || contents[3] != "the first answer, slowly" || contents[4] != "second question" {
		t.Fatalf("turns out of order: %q", contents)
	}
	last := srv.LastRequest()
	var sent []string
	for _, m := range last.Messages {
		sent = append(sent, m.Content)
	}
	if !slices.Contains(sent, "the first answer, slowly") {
		t.Fatalf("the second question was asked without the first turn: %q", sent)
	}
}

// A conversation deleted in another mneme while ask answers in it: ask
// says so in words, not as a store error.
func TestAskInAConversationDeletedMeanwhile(t *testing.T) {
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	d.mustOK("", "ask", "--no-learn", "base question")
	gate := make(chan struct{})
	srv.Script(fakeollama.Reply{Content: fakeollama.SplitWords("an answer with nowhere to go"), Gate: gate})
	doomed, stderr := d.start(nil, "ask", "--no-learn", "-c", "doomed question")
	waitAsked(srv, "doomed question")
	d.mustOK("", "conversations", "rm", d.conversations()[0].ID)
	close(gate)
	err := doomed.Wait()
	var exit *exec.ExitError
	if !errors.As(err, &exit) || exit.ExitCode() != 1 || !strings.Contains(stderr.String(), "the conversation was deleted in another mneme") ||
		strings.Contains(stderr.String(), "not found") {
		t.Fatalf("ask in a deleted conversation: %v, stderr %q", err, stderr)
	}
}

// The flow: a chat open in a terminal while two scripts run 100
// commands each (ask, memory add, search) on the same data dir. Nothing
// hangs, nothing is lost, and the chat's search, conversation list and
// status line show what the scripts wrote.
func TestChatBesideTwoScripts(t *testing.T) {
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	d.timeout = 30 * time.Second // any single command: no hang
	term := startTerminal(t, 100, 30, d.env())
	term.waitText("fake-chat")

	const perScript = 100
	var wg sync.WaitGroup
	var mu sync.Mutex
	asks, adds := 0, 0
	run := func(args ...string) bool {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, mnemeBin, args...)
		cmd.Env = d.env()
		out, err := cmd.CombinedOutput()
		if ctx.Err() != nil {
			t.Errorf("mneme %v hung (no end within 30 s)", args)
			return false
		}
		if err != nil {
			t.Errorf("mneme %v: %v\n%s", args, err, out)
			return false
		}
		return true
	}
	for s := 0; s < 2; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < perScript; i++ {
				var ok bool
				switch i % 3 {
				case 0:
					if ok = run("ask", fmt.Sprintf("script%d asks about zebra%dx%d", s, s, i)); ok {
						mu.Lock()
						asks++
						mu.Unlock()
					}
				case 1:
					if ok = run("memory", "add", fmt.Sprintf("script %d remembers walrus%dx%d", s, s, i)); ok {
						mu.Lock()
						adds++
						mu.Unlock()
					}
				case 2:
					ok = run("search", "zebra")
				}
				if !ok {
					return
				}
			}
		}()
	}
	// The chat is used meanwhile.
	term.typeText("a message from the chat itself")
	term.keys("Enter")
	term.waitText("You said: a message from the chat itself")
	wg.Wait()
	if t.Failed() {
		return
	}

	if got := len(d.conversations()); got != asks+1 {
		t.Fatalf("%d conversations stored, want %d (every ask and the chat's)", got, asks+1)
	}
	if got := len(d.notes()); got != adds {
		t.Fatalf("%d notes stored, want %d", got, adds)
	}
	// The status line counts the scripts' notes, within a couple of seconds.
	term.waitText(fmt.Sprintf("%d notes", adds))
	// The conversation list shows the scripts' conversations.
	term.keys("C-s")
	term.waitFor(fmt.Sprintf("the conversation list to count %d", asks+1), func(s string) bool {
		for _, line := range strings.Split(s, "\n") {
			if f := strings.Fields(strings.ReplaceAll(line, "│", " ")); len(f) >= 2 && f[0] == "Conversations" {
				return f[1] == fmt.Sprint(asks+1)
			}
		}
		return false
	})
	term.keys("C-s")
	// The chat's search finds the turn the last ask of script 1 wrote.
	last := (perScript - 1) / 3 * 3
	term.keys("C-f")
	term.typeText(fmt.Sprintf("zebra1x%d", last))
	term.waitText(fmt.Sprintf("script1 asks about zebra1x%d", last))
	term.keys("Escape")
	term.waitFor("the search to close", func(s string) bool { return !strings.Contains(s, "Search · all conversations") })
	term.keys("C-c")
	if code := term.exitStatus(); code != 0 {
		t.Fatalf("chat exited %d", code)
	}
}

// Every file mneme writes is the user's alone, even in a data dir that
// was made readable for others before mneme first ran.
func TestDataFilesAreOwnerOnly(t *testing.T) {
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	data := filepath.Join(d.home, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(data, 0o755); err != nil {
		t.Fatal(err)
	}
	d.mustOK("", "memory", "add", "The user's bank is in Lisbon.")
	d.mustOK("", "ask", "where is my bank?")
	d.mustOK("", "search", "bank")
	d.mustOK("", "export", "-o", filepath.Join(data, "export.jsonl"))
	n := 0
	err := filepath.Walk(data, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		n++
		if perm := fi.Mode().Perm(); perm&0o077 != 0 {
			t.Errorf("%s is %v: other users can read it", p, perm)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if n < 5 {
		t.Fatalf("only %d files in the data dir", n)
	}
}

// Flags common to every command may come before the command's name.
func TestCommonFlagsBeforeTheCommand(t *testing.T) {
	d := newDevice(t, closedPort(t))
	other := filepath.Join(t.TempDir(), "other")
	d.mustOK("", "--data-dir", other, "memory", "add", "kept in the other data dir")
	out := d.mustOK("", "--data-dir="+other, "--user", "tester", "memory", "list").stdout
	if !strings.Contains(out, "kept in the other data dir") {
		t.Fatalf("memory list with flags before it:\n%s", out)
	}
	if out := d.mustOK("", "memory", "list").stdout; strings.Contains(out, "kept in the other data dir") {
		t.Fatalf("the note went to the default data dir:\n%s", out)
	}
}

// doctor warns about files in the data dir that other users could read.
func TestDoctorWarnsAboutReadableFiles(t *testing.T) {
	d := newDevice(t, closedPort(t))
	d.mustOK("", "memory", "add", "private")
	if out := d.mneme("", "doctor").stdout; strings.Contains(out, "other users could read") {
		t.Fatalf("doctor warns about a private data dir:\n%s", out)
	}
	leak := filepath.Join(d.home, "data", "copy-of-notes.txt")
	if err := os.WriteFile(leak, []byte("private"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(leak, 0o644); err != nil {
		t.Fatal(err)
	}
	if out := d.mneme("", "doctor").stdout; !strings.Contains(out, "1 file other users could read") || !strings.Contains(out, "copy-of-notes.txt") {
		t.Fatalf("doctor does not warn about %s:\n%s", leak, out)
	}
	// A config file others may read: said when it holds the sync token
	// (as ssh refuses a key file others may read), and the token is not.
	cfgDir := filepath.Join(d.home, "config", "mneme")
	cfgFile := filepath.Join(cfgDir, "config.toml")
	for _, c := range []struct {
		toml string
		warn bool
	}{{"max_steps = 3\n", false}, {"[sync]\nurl = \"http://127.0.0.1:9\"\ntoken = \"tok-never-shown\"\ninterval = \"off\"\n", true}} {
		writeFiles(t, cfgDir, map[string]string{"config.toml": c.toml})
		if err := os.Chmod(cfgFile, 0o644); err != nil {
			t.Fatal(err)
		}
		out := d.mneme("", "doctor").stdout
		if strings.Contains(out, "holds a secret") != c.warn || strings.Contains(out, "tok-never-shown") ||
			(c.warn && !strings.Contains(out, "chmod 600 "+cfgFile)) {
			t.Fatalf("doctor with a config file of mode 644 holding %q:\n%s", c.toml, out)
		}
	}
}

// SIGTERM ends the chat at once and gives the terminal back (no chat
// screen left on it). Bubble Tea's own signal handler used to race with
// mneme's: the chat hung until the 1.5 s watchdog killed it, leaving the
// terminal in the chat's state.
func TestTUIEndsOnSIGTERM(t *testing.T) {
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	term := startTerminal(t, 100, 30, d.env())
	term.waitText("fake-chat")
	p := term.pid()
	sent := time.Now()
	if err := syscall.Kill(p, syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "mneme to end", 5*time.Second, func() bool { return !running(p) })
	if took := time.Since(sent); took > 2*time.Second {
		t.Fatalf("the chat took %s to end after SIGTERM", took)
	}
	// (Its exit code, 143, is checked without a terminal in
	// TestWaitingCommandEndsOnSignal: tmux does not always have the
	// status of a pane that just died.)
	term.waitFor("the terminal to be given back", func(s string) bool { return !strings.Contains(s, "fake-chat") })
}

// running reports whether process pid is alive (not gone, not a zombie).
func running(pid int) bool {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	// The state follows the command name in parentheses.
	i := strings.LastIndexByte(string(data), ')')
	return i < 0 || i+2 >= len(data) || data[i+2] != 'Z'
}
