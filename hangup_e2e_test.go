package main

import (
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/memory"
)

// deadPane waits for mneme to exit and returns its exit status and the
// signal that killed it (0 if none), as tmux saw them.
func (term *terminal) deadPane() (status, signal int) {
	term.t.Helper()
	term.waitFor("mneme to exit", func(string) bool {
		out := strings.TrimSpace(term.tmux("display-message", "-p", "-t", "mneme", "#{pane_dead}|#{pane_dead_status}|#{pane_dead_signal}"))
		f := strings.Split(out, "|")
		if len(f) != 3 || f[0] != "1" {
			return false
		}
		status, _ = strconv.Atoi(f[1])
		signal, _ = strconv.Atoi(f[2])
		return true
	})
	return status, signal
}

// Closing the terminal mid-answer (SIGHUP) ends the chat like quitting:
// the partial answer is stored, marked interrupted, and mneme exits by
// itself (129, as a shell expects) rather than dying of the signal.
func TestTUIHangupMidAnswerKeepsThePartialAnswer(t *testing.T) {
	srv := fakeollama.New(t)
	srv.Script(fakeollama.Reply{Content: fakeollama.SplitWords("The first part of a very long answer"), Hold: true})
	d := newDevice(t, srv.Host())
	term := startTerminal(t, 100, 30, d.env())
	term.waitText("fake-chat")
	term.typeText("tell me everything")
	term.keys("Enter")
	term.waitText("very long answer")

	if err := syscall.Kill(term.pid(), syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	// It exits by itself (129, as a shell expects), not killed by the signal.
	if _, sig := term.deadPane(); sig != 0 {
		t.Fatalf("mneme was killed by signal %d; screen:\n%s", sig, term.screen())
	}
	<-srv.Cancelled()
	recs := d.exported()
	if len(recs) != 2 || recs[0].Content != "tell me everything" || recs[1].Content != "The first part of a very long answer" ||
		recs[1].Status != memory.StatusInterrupted {
		t.Fatalf("export %+v", recs)
	}
}

// A stream that stalls mid-answer in the chat ends with a message, instead
// of "generating" forever; the partial answer stays on screen and stored.
func TestTUIStalledStreamEnds(t *testing.T) {
	srv := fakeollama.New(t)
	srv.Script(fakeollama.Reply{Content: fakeollama.SplitWords("Half an answer"), Hold: true})
	d := newDevice(t, srv.Host())
	term := startTerminal(t, 100, 30, d.env(), "--stream-idle-timeout", "1s")
	term.waitText("fake-chat")
	term.typeText("question")
	term.keys("Enter")
	term.waitText("Half an answer")
	start := time.Now()
	s := term.waitFor("the stall message", func(s string) bool { return strings.Contains(s, "sent nothing for 1 s") })
	if strings.Contains(s, "generating") {
		t.Fatalf("still generating after the stall (%s):\n%s", time.Since(start), s)
	}
	term.keys("C-c")
	if code := term.exitStatus(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	recs := d.exported()
	if len(recs) != 2 || recs[1].Content != "Half an answer" || recs[1].Status != memory.StatusInterrupted {
		t.Fatalf("export %+v", recs)
	}
}
