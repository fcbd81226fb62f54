package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/tui/confirm"
)

// TestConfirmModelChange: a change of the model's that waits for the user
// (model_changes = "confirm") shows its question above the input; y or n
// answers it, and the question goes away.
func TestConfirmModelChange(t *testing.T) {
	store := openStore(t)
	h := newHarness(t, config(store, newFakeRunner(store, "ok"), readyProbe))
	h.runUntilShown("Ollama ready")
	done := make(chan struct{})
	for _, c := range []struct {
		key  rune
		want bool
	}{{'n', false}, {'y', true}} {
		reply := make(chan bool, 1)
		h.send(confirm.Msg{Req: confirm.Request{Question: "The model wants to delete “Has a cat called Tom”.", Reply: reply, Done: done}})
		if !h.shows("The model wants to delete “Has a cat called Tom”. Allow? y yes · n no") {
			t.Fatalf("question not shown:\n%s", h.screen())
		}
		h.typeText(string(c.key))
		h.runUntil("the answer", func() bool { return len(reply) > 0 })
		select {
		case got := <-reply:
			if got != c.want {
				t.Fatalf("%c answered %v", c.key, got)
			}
		default:
			t.Fatalf("%c did not answer", c.key)
		}
		if h.shows("Allow?") {
			t.Fatalf("question still shown after %c:\n%s", c.key, h.screen())
		}
		if v := h.m.input.Value(); v != "" {
			t.Fatalf("the answer went to the input too: %q", v)
		}
	}
}

// TestConfirmLeavesWhatYouTypeAlone: while something is typed, y and n go
// to the input ("my cat" does not say yes); alt+y answers.
func TestConfirmLeavesWhatYouTypeAlone(t *testing.T) {
	store := openStore(t)
	h := newHarness(t, config(store, newFakeRunner(store, "ok"), readyProbe))
	h.runUntilShown("Ollama ready")
	h.typeText("m")
	reply := make(chan bool, 1)
	h.send(confirm.Msg{Req: confirm.Request{Question: "The model wants to delete “Has a cat called Tom”.", Reply: reply, Done: make(chan struct{})}})
	h.typeText("y cat is grey")
	if v := h.m.input.Value(); v != "my cat is grey" || len(reply) > 0 {
		t.Fatalf("typing answered the question: input %q, %d answers", v, len(reply))
	}
	if !h.shows("Allow? alt+y yes · alt+n no") {
		t.Fatalf("the question does not say how to answer while typing:\n%s", h.screen())
	}
	h.send(tea.KeyPressMsg{Code: 'y', Mod: tea.ModAlt})
	h.runUntil("the answer", func() bool { return len(reply) > 0 })
	if !<-reply || h.m.input.Value() != "my cat is grey" {
		t.Fatalf("alt+y: input %q", h.m.input.Value())
	}
}
