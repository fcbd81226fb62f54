package main

import (
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/fakeollama"
)

// TestTUIOllamaStopsMidAnswer: Ollama dies while answering. The chat says
// so in words, once, keeps the partial answer marked interrupted and shows
// Ollama offline; once Ollama is back, the status line says so by itself
// and the next message is answered.
func TestTUIOllamaStopsMidAnswer(t *testing.T) {
	srv := fakeollama.New(t)
	host := srv.Host()
	d := newDevice(t, host)
	term := startTerminal(t, 100, 30, d.env())
	term.waitText("fake-chat")
	term.typeText("hello")
	term.keys("Enter")
	term.waitText("You said: hello")

	srv.Script(fakeollama.Reply{Content: fakeollama.SplitWords("The first part of a long answer"), Hold: true})
	term.typeText("tell me everything")
	term.keys("Enter")
	term.waitText("long answer")
	srv.Close()
	s := term.waitText("Ollama offline")
	s = term.waitIdle()
	if !strings.Contains(s, "Ollama stopped while answering; the partial answer is kept.") {
		t.Errorf("the screen does not say what happened in words:\n%s", s)
	}
	if !strings.Contains(s, "The first part of a long answer\n  (interrupted)") {
		t.Errorf("the partial answer is not marked interrupted:\n%s", s)
	}
	for _, raw := range []string{"EOF", "Post ", "broke off", "/api/chat"} {
		if strings.Contains(s, raw) {
			t.Errorf("the screen shows the raw error (%q):\n%s", raw, s)
		}
	}
	if n := strings.Count(s, "✗"); n != 1 {
		t.Errorf("%d error lines, want one:\n%s", n, s)
	}

	// Ollama comes back on the same address: the status line follows
	// without anything being typed, and the next message is answered.
	fakeollama.New(t, fakeollama.WithAddr(host))
	term.waitText("Ollama ready")
	term.typeText("are you back?")
	term.keys("Enter")
	s = term.waitText("You said: are you back?")
	if n := strings.Count(s, "✗"); n != 1 {
		t.Errorf("%d error lines after Ollama came back, want the one from before:\n%s", n, s)
	}
}
