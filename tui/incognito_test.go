package tui

import (
	"strings"
	"testing"
)

// An incognito chat says so plainly: on the status line all along, and as
// the first line of the conversation, also after /new.
func TestIncognitoIsAlwaysMarked(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "Hello", " there.")
	cfg := config(store, r, readyProbe)
	cfg.Incognito = true
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready v0.6.5", IncognitoNotice)
	if status := statusLine(h.screen()); !strings.Contains(status, "incognito") {
		t.Fatalf("no incognito marker on the status line %q:\n%s", status, h.screen())
	}

	h.typeText("hi")
	h.send(keyEnter)
	h.runUntilShown("Hello there.")
	h.runUntilIdle()
	if !h.shows(IncognitoNotice) || !strings.Contains(statusLine(h.screen()), "incognito") {
		t.Fatalf("the marker went away after an answer:\n%s", h.screen())
	}

	h.typeText("/new")
	h.send(keyEnter)
	h.runUntilIdle()
	if !h.shows(IncognitoNotice) || h.shows("Hello there.") {
		t.Fatalf("after /new:\n%s", h.screen())
	}
}

// A normal chat shows no incognito marker.
func TestNormalChatIsNotMarkedIncognito(t *testing.T) {
	store := openStore(t)
	h := newHarness(t, config(store, newFakeRunner(store), readyProbe))
	h.runUntilShown("Ollama ready v0.6.5")
	if h.shows("ncognito") {
		t.Fatalf("a normal chat is marked incognito:\n%s", h.screen())
	}
}

// statusLine is the screen's status line (the one naming Ollama).
func statusLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "Ollama ") {
			return l
		}
	}
	return ""
}
