package tui

import (
	"context"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/memory"
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
	// What would keep something says that incognito is why it is off
	// ("not available here" left the user guessing).
	cfg.Attach = func(context.Context, string) (AttachResult, error) { return boilerManual, nil }
	h = newHarness(t, cfg)
	h.sendText("/attach boiler.pdf")
	h.runUntilShown("Attaching documents is off in incognito, which keeps nothing.")
	// The command leaves the input: sent again, it could do no more.
	if got := h.m.input.Value(); got != "" {
		t.Fatalf("the input still holds %q", got)
	}
	cfg.Notes = nil // as the chat wires an incognito one
	h = newHarness(t, cfg)
	h.sendText("/memory")
	h.runUntilShown("The memory browser is off in incognito, which keeps nothing.")
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

// /incognito switches a normal chat to a throwaway store: the next
// conversation goes there, marked; /new returns to the normal store and
// closes the throwaway one.
func TestSlashIncognitoSwitchesStoreAndBack(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "Kept.")
	throwaway := openStore(t)
	tr := newFakeRunner(throwaway, "Forgotten.")
	closed := 0
	cfg := config(store, r, readyProbe)
	cfg.StartIncognito = func(context.Context) (IncognitoChat, error) {
		return IncognitoChat{Store: throwaway, NewRunner: func(string) Runner { return tr }, Close: func() { closed++ }}, nil
	}
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready v0.6.5")

	h.typeText("/incognito")
	h.send(keyEnter)
	h.runUntilShown(IncognitoNotice)
	if !strings.Contains(statusLine(h.screen()), "incognito") {
		t.Fatalf("no marker on the status line:\n%s", h.screen())
	}
	h.typeText("secret")
	h.send(keyEnter)
	h.runUntilShown("Forgotten.")
	h.runUntilIdle()
	if convs, _ := store.ListConversations(context.Background(), testUser, memory.ListOptions{}); len(convs) != 0 {
		t.Fatalf("the incognito chat reached the real store: %+v", convs)
	}
	if got := tr.runs(); len(got) != 1 || got[0] != "secret" {
		t.Fatalf("incognito runner ran %q", got)
	}

	h.typeText("/new")
	h.send(keyEnter)
	h.runUntil("the throwaway store closed", func() bool { return closed == 1 })
	if h.shows(IncognitoNotice) || h.shows("Forgotten.") || strings.Contains(statusLine(h.screen()), "incognito") {
		t.Fatalf("after /new (closed %d):\n%s", closed, h.screen())
	}
	h.typeText("hello")
	h.send(keyEnter)
	h.runUntilShown("Kept.")
	h.runUntilIdle()
	if conv, msgs := storedMessages(t, store); len(msgs) != 2 || msgs[0].Content != "hello" {
		t.Fatalf("normal chat after incognito: %+v %+v", conv, msgs)
	}
}
