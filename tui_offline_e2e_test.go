package main

import (
	"os"
	"path/filepath"
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
	term.waitIdle() // the answer's words are on screen before its run ends

	srv.Script(fakeollama.Reply{Content: fakeollama.SplitWords("The first part of a long answer"), Hold: true})
	term.typeText("tell me everything")
	term.keys("Enter")
	term.waitText("long answer")
	srv.Close()
	term.waitText("Ollama offline")
	s := term.waitIdle()
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
	back := fakeollama.New(t, fakeollama.WithAddr(host))
	term.waitText("Ollama ready")
	term.typeText("are you back?")
	term.keys("Enter")
	s = term.waitText("You said: are you back?")
	if n := strings.Count(s, "✗"); n != 1 {
		t.Errorf("%d error lines after Ollama came back, want the one from before:\n%s", n, s)
	}

	// Ollama stops while the chat is idle: the status line follows (a
	// ping every 10 s), with nothing added to the transcript.
	back.Close()
	s = term.waitText("Ollama offline")
	if n := strings.Count(s, "✗"); n != 1 {
		t.Errorf("%d error lines once Ollama stopped while idle, want the one from before:\n%s", n, s)
	}
}

// TestTUIFirstRunOnlineOffersPull: on a first run with the model library
// reachable and no embedding model, the picker opens and offers one.
func TestTUIFirstRunOnlineOffersPull(t *testing.T) {
	chatOnly := fakeollama.Model{Name: fakeollama.DefaultChatModel, Capabilities: []string{"completion", "tools"}, ContextLength: 4096}
	srv := fakeollama.New(t, fakeollama.WithModels(chatOnly))
	d := newDevice(t, srv.Host())
	term := startTerminal(t, 80, 24, d.env())
	s := term.waitText("No embedding model: press p to pull nomic-embed-text.")
	if strings.Contains(s, "Offline") {
		t.Errorf("online, the chat says offline:\n%s", s)
	}
}

// TestTUIFirstRunOfflinePull: on a first run without network (the model
// library unreachable), the picker does not open on its own: one line says
// that search uses keywords until an embedding model is installed, and how;
// the log has why. A pull asked for anyway fails: the whole error is on
// screen (wrapped, not cut at the edge) and in the log.
func TestTUIFirstRunOfflinePull(t *testing.T) {
	chatOnly := fakeollama.Model{Name: fakeollama.DefaultChatModel, Capabilities: []string{"completion", "tools"}, ContextLength: 4096}
	srv := fakeollama.New(t, fakeollama.WithModels(chatOnly), fakeollama.WithoutRegistry())
	d := newDevice(t, srv.Host())
	d.extra = []string{"MNEME_OLLAMA_REGISTRY=http://" + closedPort(t)}
	term := startTerminal(t, 80, 24, d.env())
	term.waitText("Offline: search uses keywords until an embedding model is installed.")
	term.waitIdle()
	if s := term.screen(); strings.Contains(s, "press p to pull") || strings.Count(s, "Offline") != 1 {
		t.Fatalf("offline, the picker opened on its own, or the line is not shown once:\n%s", s)
	}
	term.typeText("/model pull nomic-embed-text")
	term.keys("Enter")
	s := term.waitText("Search uses keywords until an embedding model is installed:")
	full := `pull model manifest: Get "https://registry.ollama.ai/v2/library/nomic-embed-text/manifests/latest": ` +
		`dial tcp: lookup registry.ollama.ai on 127.0.0.53:53: server misbehaving`
	squeeze := func(s string) string { return strings.Join(strings.Fields(s), "") }
	if !strings.Contains(squeeze(s), squeeze(full)) {
		t.Errorf("the pull's error is not shown whole:\n%s", s)
	}
	if !strings.Contains(s, "unreachable") {
		t.Errorf("the screen does not say the library is unreachable:\n%s", s)
	}
	if !strings.Contains(squeeze(s), squeeze("run `ollama pull nomic-embed-text`")) {
		t.Errorf("the screen does not say how to install an embedding model:\n%s", s)
	}
	term.keys("C-c") // closes the model picker
	term.waitText("Closed: press Ctrl+C again to quit.")
	term.keys("C-c")
	term.exitStatus()
	log, err := os.ReadFile(filepath.Join(d.home, "data", "mneme.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "the model library is unreachable") {
		t.Errorf("the log does not say why no download was offered:\n%s", log)
	}
	if !strings.Contains(string(log), "registry.ollama.ai/v2/library/nomic-embed-text/manifests/latest") ||
		!strings.Contains(string(log), "server misbehaving") {
		t.Errorf("the log lacks the pull's full error:\n%s", log)
	}
}
