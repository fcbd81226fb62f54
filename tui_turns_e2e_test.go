package main

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/fakeollama"
)

// TestTUISearchHitInTodaysConversationOpens: a turn written in this
// session is numbered as a reloaded one is, so a search hit on it opens
// it, before and after a restart.
func TestTUISearchHitInTodaysConversationOpens(t *testing.T) {
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	term := startTerminal(t, 100, 30, d.env())
	term.waitText("fake-chat")
	send := func(prompt string) {
		term.typeText(prompt)
		term.keys("Enter")
		term.waitText("You said: " + prompt)
		term.waitIdle()
	}
	send("where did the lighthouse keeper live?")
	for i := 2; i <= 8; i++ {
		send(fmt.Sprintf("filler question number %d", i))
	}
	landed := func(term *terminal) {
		t.Helper()
		term.keys("C-f")
		term.waitText("Search")
		term.typeText("lighthouse")
		term.waitNudging("where did the lighthouse keeper live?", "Space", "BSpace")
		term.keys("Enter")
		s := term.waitFor("turn 1 at the top", func(s string) bool {
			return strings.Contains(s, "has no turn") ||
				strings.Contains(s, "┃ where did the lighthouse keeper live?") && !strings.Contains(s, "filler question number 8") &&
					!strings.Contains(s, "Search · all conversations")
		})
		if strings.Contains(s, "has no turn") {
			t.Fatalf("the search hit did not open:\n%s", s)
		}
	}
	landed(term)
	term.keys("C-c")
	term.exitStatus()

	// After a restart the same hit opens the same turn.
	term = startTerminal(t, 100, 30, d.env(), "--continue")
	term.waitText("filler question number 8")
	landed(term)
	term.keys("C-c")
	term.exitStatus()
}
