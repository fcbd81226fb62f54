package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/memory"
)

// terminal is mneme running in a tmux pane of its own tmux server.
type terminal struct {
	t        testing.TB
	socket   string
	interval time.Duration // between two looks at the screen in waitFor
}

// startTerminal runs the mneme binary in a w×h tmux pane with env.
func startTerminal(t testing.TB, w, h int, env []string, args ...string) *terminal {
	t.Helper()
	return openTerminal(t, w, h, terminalCommand(env, mnemeBin, args...)...)
}

// terminalCommand runs prog with args in env only, as in xterm-256color.
func terminalCommand(env []string, prog string, args ...string) []string {
	cmd := append([]string{"env", "-i"}, env...)
	cmd = append(cmd, "TERM=xterm-256color", prog)
	return append(cmd, args...)
}

// openTerminal runs cmd in a w×h tmux pane of a tmux server of its own.
func openTerminal(t testing.TB, w, h int, cmd ...string) *terminal {
	t.Helper()
	needTmux(t)
	term := &terminal{t: t, socket: filepath.Join(t.TempDir(), "tmux.sock"), interval: 50 * time.Millisecond}
	term.tmux(append([]string{"new-session", "-d", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "-s", "mneme"}, cmd...)...)
	term.tmux("set-option", "-t", "mneme", "remain-on-exit", "on")
	t.Cleanup(func() { exec.Command("tmux", "-S", term.socket, "kill-server").Run() })
	return term
}

// needTmux skips the test without tmux, or fails it in CI.
func needTmux(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("tmux is required in CI (make test installs it)")
		}
		t.Skip("tmux not installed: the terminal tests need it (make test installs it)")
	}
}

func (term *terminal) tmux(args ...string) string {
	term.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", term.socket}, args...)...).CombinedOutput()
	if err != nil {
		term.t.Fatalf("tmux %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// pid is the pid of mneme in the pane (env execs it, so it is the pane's).
func (term *terminal) pid() int {
	term.t.Helper()
	pid, err := strconv.Atoi(strings.TrimSpace(term.tmux("display-message", "-p", "-t", "mneme", "#{pane_pid}")))
	if err != nil {
		term.t.Fatalf("pane pid: %v", err)
	}
	return pid
}

// screen is what a person sees in the pane now.
func (term *terminal) screen() string { return term.tmux("capture-pane", "-p", "-t", "mneme") }

func (term *terminal) keys(keys ...string) {
	term.tmux(append([]string{"send-keys", "-t", "mneme"}, keys...)...)
}

// typeText types literally, as a person would.
func (term *terminal) typeText(s string) { term.tmux("send-keys", "-t", "mneme", "-l", s) }

// waitFor polls the screen until cond holds, failing after a deadline.
func (term *terminal) waitFor(what string, cond func(screen string) bool) string {
	term.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		s := term.screen()
		if cond(s) {
			return s
		}
		if time.Now().After(deadline) {
			term.t.Fatalf("timed out waiting for %s; screen:\n%s", what, s)
		}
		time.Sleep(term.interval) // polling interval, not synchronisation
	}
}

func (term *terminal) waitText(text string) string {
	term.t.Helper()
	return term.waitFor(fmt.Sprintf("%q on screen", text), func(s string) bool { return strings.Contains(s, text) })
}

// waitIdle waits until no answer is being generated or compacted, as a
// person waits for the spinner to stop before pressing the next key.
func (term *terminal) waitIdle() string {
	term.t.Helper()
	return term.waitFor("the answer to finish", func(s string) bool {
		return !strings.Contains(s, "generating") && !strings.Contains(s, "compacting")
	})
}

// exitStatus waits for mneme to exit and returns its exit code.
func (term *terminal) exitStatus() int {
	term.t.Helper()
	var status int
	term.waitFor("mneme to exit", func(string) bool {
		out := strings.TrimSpace(term.tmux("display-message", "-p", "-t", "mneme", "#{pane_dead} #{pane_dead_status}"))
		var dead int
		fmt.Sscanf(out, "%d %d", &dead, &status)
		return dead == 1
	})
	return status
}

func TestTUIChatCancelQuit(t *testing.T) {
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	term := startTerminal(t, 100, 30, d.env())

	term.waitText("fake-chat")
	term.typeText("hello from tmux")
	term.keys("Enter")
	term.waitText("You said: hello from tmux")
	term.waitIdle() // the answer's words are on screen before its run ends

	// A long answer that never finishes: Esc stops it, the partial stays.
	long := fakeollama.Reply{Content: fakeollama.SplitWords("The first part of a very long answer"), Hold: true}
	srv.Script(long)
	term.typeText("tell me everything")
	term.keys("Enter")
	term.waitText("very long answer")
	term.keys("Escape")
	term.waitText("interrupted")
	<-srv.Cancelled()

	term.keys("C-c")
	if code := term.exitStatus(); code != 0 {
		t.Fatalf("mneme exited %d; screen:\n%s", code, term.screen())
	}
	if s := term.screen(); strings.Contains(s, "hello from tmux") {
		t.Fatalf("the chat is still on screen after quitting (alt screen not restored):\n%s", s)
	}

	store, err := memory.Open(context.Background(), filepath.Join(d.home, "data", memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	convs, _ := store.ListConversations(context.Background(), "tester", memory.ListOptions{})
	if len(convs) != 1 {
		t.Fatalf("%d conversations stored", len(convs))
	}
	msgs, _ := store.Messages(context.Background(), "tester", convs[0].ID)
	if len(msgs) != 4 || msgs[1].Content != "You said: hello from tmux" || msgs[3].Status != memory.StatusInterrupted ||
		!strings.HasPrefix(msgs[3].Content, "The first part") {
		t.Fatalf("stored messages: %+v", msgs)
	}
}

func TestTUIOpensWithOllamaDown(t *testing.T) {
	d := newDevice(t, closedPort(t))
	term := startTerminal(t, 80, 24, d.env())
	term.waitText("ollama serve")
	term.typeText("are you there?")
	term.waitText("are you there?")
	term.keys("Enter")
	// Still down: the message names the address, and the typed text is kept.
	term.waitFor("the error and the kept text", func(s string) bool {
		return strings.Contains(s, d.ollama) && strings.Contains(s, "are you there?")
	})
	// The first Ctrl+C clears the kept text, the second quits.
	term.keys("C-c")
	term.waitText("Input cleared: press Ctrl+C again to quit.")
	term.keys("C-c")
	if code := term.exitStatus(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

func TestTUIOpensAtTheTurnSearchFound(t *testing.T) {
	d := newDevice(t, closedPort(t))
	var lines []string
	lines = append(lines, `{"conversation":"long","title":"Long chat","role":"user","content":"first question about nothing"}`)
	lines = append(lines, `{"conversation":"long","role":"assistant","content":"first answer"}`)
	for i := 2; i <= 40; i++ {
		lines = append(lines, fmt.Sprintf(`{"conversation":"long","role":"user","content":"filler question number %d"}`, i))
		lines = append(lines, fmt.Sprintf(`{"conversation":"long","role":"assistant","content":"filler answer %d\n\nwith a second paragraph"}`, i))
	}
	lines[50] = `{"conversation":"long","role":"user","content":"what was the name of the lighthouse keeper?"}`
	d.mustOK("", "import", writeFile(t, "long.jsonl", strings.Join(lines, "\n")+"\n"))

	out := d.mustOK("", "search", "lighthouse", "keeper").stdout
	var id string
	var turn int
	for _, l := range strings.Split(out, "\n") {
		if _, err := fmt.Sscanf(strings.TrimSpace(l), "mneme --resume %s --turn %d", &id, &turn); err == nil {
			break
		}
	}
	if id == "" || turn != 26 {
		t.Fatalf("search did not print how to open turn 26:\n%s", out)
	}
	term := startTerminal(t, 100, 30, d.env(), "--resume", id, "--turn", fmt.Sprint(turn))
	s := term.waitText("lighthouse keeper")
	if strings.Contains(s, "filler question number 40") || strings.Contains(s, "first question") {
		t.Fatalf("the screen is not at turn %d:\n%s", turn, s)
	}
	term.keys("C-c")
	term.exitStatus()
}
