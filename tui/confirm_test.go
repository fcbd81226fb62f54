package tui

import (
	"testing"
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
		h.send(confirmMsg{ConfirmRequest{Question: "The model wants to delete “Has a cat called Tom”.", Reply: reply, Done: done}})
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
