package tui

import (
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/sanitize/hostile"
	"github.com/mneme-dev/mneme/tui/styles"
	"github.com/mneme-dev/mneme/tui/transcript"
)

// sgr matches the colour and style sequences the TUI itself draws with.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// requireSafeView checks a rendered view: apart from the TUI's own colours
// it holds no control a terminal acts on, it shows want (line breaks
// aside: the view wraps) and none of hidden.
func requireSafeView(t *testing.T, where, view, want, hidden string) {
	t.Helper()
	if bad := hostile.Unsafe(sgr.ReplaceAllString(view, "")); bad != "" {
		t.Fatalf("%s: %s", where, bad)
	}
	flat := strings.Join(strings.Fields(sgr.ReplaceAllString(view, "")), "")
	if !strings.Contains(flat, want) {
		t.Errorf("%s: %q is not shown:\n%s", where, want, plain(view))
	}
	if hidden != "" && strings.Contains(flat, hidden) {
		t.Errorf("%s: the sequence's %q is shown:\n%s", where, hidden, plain(view))
	}
}

// TestHostileTextIsShownSafely is the TUI's part of the terminal-safety
// test (the binary's is TestHostileTextNeverReachesTheTerminal): the same
// payloads, streamed as an answer on the whole screen, as a prompt, a
// notice and an error in the transcript (the sidebar's part is in
// tui/sidebar).
func TestHostileTextIsShownSafely(t *testing.T) {
	for _, p := range hostile.Payloads {
		t.Run(p.Name, func(t *testing.T) {
			store := openStore(t)
			h := newHarness(t, config(store, newFakeRunner(store, "answer ", p.Raw, "\n\nmore ", p.Raw), readyProbe))
			h.typeText("a question")
			h.send(keyEnter)
			h.runUntilIdle()
			requireSafeView(t, "screen after a streamed answer", h.m.View().Content, "answer"+p.Readable, p.Hidden)

			st := styles.New(true)
			tr := transcript.New(&st, slog.Default())
			now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			tr.SetSize(70, 40, now)
			tr.AddUser("prompt " + p.Raw)
			tr.AddNotice("Model m-" + p.Raw + " does not support tools")
			tr.AddError("ollama said " + p.Raw)
			tr.Refresh(now, false)
			for _, want := range []string{"prompt" + p.Readable, "Modelm-" + p.Readable, "ollamasaid" + p.Readable} {
				requireSafeView(t, "transcript", tr.View(), want, p.Hidden)
			}
		})
	}
}
