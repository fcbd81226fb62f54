package tui

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/agent"
)

// TestOllamaClosingBeforeAnswerIsSaidInWords: Ollama closing the
// connection before the first token (Go's `Post "…": EOF`) is told in
// words, once, and the status line says Ollama is offline.
func TestOllamaClosingBeforeAnswerIsSaidInWords(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store)
	r.fail = agent.ExplainError(&url.Error{Op: "Post", URL: testHost + "/api/chat", Err: io.EOF}, testHost, testModel)
	h := newHarness(t, config(store, r, readyProbe))
	h.runUntilShown("Ollama ready")
	h.typeText("hello")
	h.send(keyEnter)
	h.runUntilIdle()
	s := h.screen()
	if !strings.Contains(s, msgStoppedNothing) || !strings.Contains(s, "(interrupted)") || !strings.Contains(s, "Ollama offline") {
		t.Errorf("want the stop said in words, the answer marked interrupted, Ollama offline:\n%s", s)
	}
	if strings.Contains(s, "EOF") || strings.Contains(s, "Post ") {
		t.Errorf("the raw error is shown:\n%s", s)
	}
	if n := strings.Count(s, "✗"); n != 1 {
		t.Errorf("%d error lines, want one:\n%s", n, s)
	}
}

// While Ollama stays away after an answer broke off, the background probes
// add nothing to the screen: the one message stays the only one. When it
// comes back, the status says so.
func TestBackgroundProbesAddNoAlert(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store)
	r.fail = agent.ExplainError(&url.Error{Op: "Post", URL: testHost + "/api/chat", Err: io.EOF}, testHost, testModel)
	probe := &switchableProbe{}
	probe.ready.Store(true)
	h := newHarness(t, config(store, r, probe.probe))
	h.runUntilShown("Ollama ready")
	h.typeText("hello")
	h.send(keyEnter)
	h.runUntilIdle()
	probe.ready.Store(false)
	calls := probe.calls.Load()
	h.send(reprobeMsg{})
	h.runUntil("the background probe", func() bool { return probe.calls.Load() > calls && !h.m.probing })
	if s := h.screen(); strings.Count(s, "✗") != 1 || strings.Contains(s, "is it running") {
		t.Fatalf("a background probe that failed again added a message:\n%s", s)
	}
	probe.ready.Store(true)
	h.send(reprobeMsg{})
	h.runUntilShown("Ollama ready")
}

// Ollama stopping while the chat is idle: the next ping (every pingEvery)
// finds it gone, the status line says offline without any message in the
// transcript, and the background probing says ready again once it is
// back.
func TestIdleChatNoticesOllamaStopping(t *testing.T) {
	store := openStore(t)
	probe := &switchableProbe{}
	probe.ready.Store(true)
	cfg := config(store, newFakeRunner(store), probe.probe)
	cfg.Ping = func(ctx context.Context) error {
		if probe.ready.Load() {
			return nil
		}
		return &url.Error{Op: "Head", URL: testHost + "/", Err: syscall.ECONNREFUSED}
	}
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready")
	h.send(pingMsg{})
	h.runUntilIdle()
	if s := h.screen(); !strings.Contains(s, "Ollama ready") {
		t.Fatalf("a ping Ollama answered changed the status:\n%s", s)
	}
	// A server that answers, with an error (a proxy in front of Ollama
	// refusing HEAD /), is there.
	h.send(pingedMsg{err: api.StatusError{StatusCode: http.StatusUnauthorized, Status: "401 Unauthorized"}})
	h.runUntilIdle()
	if s := h.screen(); !strings.Contains(s, "Ollama ready") {
		t.Fatalf("an HTTP error to the ping took Ollama for gone:\n%s", s)
	}
	probe.ready.Store(false)
	h.send(pingMsg{})
	h.runUntilShown("Ollama offline")
	if s := h.screen(); strings.Contains(s, "✗") || strings.Contains(s, "connection refused") {
		t.Fatalf("an idle chat's ping wrote to the transcript:\n%s", s)
	}
	// A background probe that finds it still away keeps the model chosen.
	calls := probe.calls.Load()
	h.send(reprobeMsg{})
	h.runUntil("the background probe", func() bool { return probe.calls.Load() > calls && !h.m.probing })
	if s := h.screen(); strings.Contains(s, "no model") || !strings.Contains(s, testModel) {
		t.Fatalf("offline, the status line lost the model:\n%s", s)
	}
	probe.ready.Store(true)
	h.send(reprobeMsg{})
	h.runUntilShown("Ollama ready")
}
