package tui

import (
	"fmt"
	"testing"

	"github.com/mneme-dev/mneme/tui/transcript"
)

// TestLiveTurnsNumberedAsReloaded: the turns of a conversation written in
// this session (answers, an answer stopped midway) are numbered as when
// the conversation is read back. (An answer stopped before its first word:
// TestTUIInterruptedTurnLooksTheSameEverywhere in the root package.)
func TestLiveTurnsNumberedAsReloaded(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "An answer")
	h := newHarness(t, config(store, r, readyProbe))
	h.runUntilShown("Ollama ready")
	ask := func(prompt, answer string, stop bool) {
		r.deltas, r.hold = []string{answer}, stop
		h.typeText(prompt)
		h.send(keyEnter)
		if stop {
			h.runUntilShown(answer)
			h.send(keyEsc)
		}
		h.runUntilIdle()
	}
	ask("first question", "An answer", false)
	ask("second question", "Half an", true)
	ask("third question", "Another answer", false)

	numbers := func(es []transcript.Entry) string {
		var s string
		for _, e := range es {
			switch e.Kind {
			case transcript.KindUser, transcript.KindAssistant, transcript.KindTool:
				s += fmt.Sprintf("%d:%d ", e.Kind, e.Turn)
			}
		}
		return s
	}
	_, msgs := storedMessages(t, store)
	reloaded, _ := transcript.FromHistory(msgs)
	live, want := numbers(h.m.transcript.Entries), numbers(reloaded)
	if live != want || want != "0:1 1:1 0:2 1:2 0:3 1:3 " {
		t.Fatalf("live turns %q, reloaded %q", live, want)
	}
}
