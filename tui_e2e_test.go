package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/memory"
)

// End-to-end flows of the full chat screen in a real terminal (tmux),
// against the scripted fake Ollama.

// openStore opens the device's database (the TUI has exited or is idle).
func (d *device) openStore() *memory.Store {
	d.t.Helper()
	s, err := memory.Open(context.Background(), filepath.Join(d.home, "data", memory.DBFileName))
	if err != nil {
		d.t.Fatal(err)
	}
	d.t.Cleanup(func() { s.Close() })
	return s
}

// waitNudging polls the screen for text; while it is missing it presses
// nudge (keys that redo what should show it, such as a search) every
// couple of seconds, for work that finishes in the background.
func (term *terminal) waitNudging(text string, nudge ...string) string {
	term.t.Helper()
	last := time.Now()
	return term.waitFor(fmt.Sprintf("%q on screen", text), func(s string) bool {
		if strings.Contains(s, text) {
			return true
		}
		if time.Since(last) > 2*time.Second {
			term.keys(nudge...)
			last = time.Now()
		}
		return false
	})
}

// TestTUIAcceptance is the acceptance, as a new user would try it
// in a 100×30 terminal: a streamed answer, /search of a word from an
// earlier conversation and Enter onto that turn, /memory listing the
// notes, /help showing the keys, and Ctrl+C restoring the terminal.
func TestTUIAcceptance(t *testing.T) {
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	d.mustOK("", "memory", "add", "The user keeps bees on the roof.")
	term := startTerminal(t, 100, 30, d.env())
	term.waitText("fake-chat")

	// 1. A message gets a streamed answer: the first words show before the
	// rest is sent.
	gate := make(chan struct{})
	srv.Script(fakeollama.Reply{Content: fakeollama.SplitWords("The lighthouse keeper was called Arvid Nilsson."), Gate: gate})
	term.typeText("who kept the lighthouse?")
	term.keys("Enter")
	term.waitText("The")
	if s := term.screen(); strings.Contains(s, "Nilsson") {
		t.Fatalf("the whole answer arrived at once:\n%s", s)
	}
	gate <- struct{}{}
	gate <- struct{}{}
	term.waitText("The lighthouse")
	close(gate)
	term.waitText("Arvid Nilsson.")

	// 2. In a new conversation, /search finds the earlier turn; Enter opens it.
	term.typeText("/new")
	term.keys("Enter")
	term.waitText("New conversation")
	if strings.Contains(term.screen(), "Arvid") {
		t.Fatalf("/new kept the old conversation on screen:\n%s", term.screen())
	}
	term.typeText("/search lighthouse")
	term.keys("Enter")
	term.waitText("Search")
	term.waitNudging("who kept the lighthouse?", "Space", "BSpace")
	term.keys("Enter")
	s := term.waitText("Arvid Nilsson.")
	if !strings.Contains(s, "┃ who kept the lighthouse?") || strings.Contains(s, "Search ·") {
		t.Fatalf("Enter did not show the turn:\n%s", s)
	}

	// 3. /memory lists the notes.
	term.typeText("/memory")
	term.keys("Enter")
	term.waitFor("the memory browser listing the note", func(s string) bool {
		return strings.Contains(s, "Memory · 1 note") && strings.Contains(s, "The user keeps bees on the roof.")
	})
	term.keys("Escape")
	term.waitFor("the memory browser to close", func(s string) bool { return !strings.Contains(s, "Memory ·") })

	// 4. /help shows the key help.
	term.typeText("/help")
	term.keys("Enter")
	s = term.waitText("Keys and commands")
	for _, want := range []string{"ctrl+f", "search", "ctrl+o", "memory", "ctrl+s", "/export [FILE]"} {
		if !strings.Contains(s, want) {
			t.Errorf("the key help lacks %q:\n%s", want, s)
		}
	}
	term.keys("Escape")
	term.waitFor("the help to close", func(s string) bool { return !strings.Contains(s, "Keys and commands") })

	// 5. Ctrl+C exits and restores the terminal.
	term.keys("C-c")
	if code := term.exitStatus(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if s := term.screen(); strings.Contains(s, "Arvid") || strings.Contains(s, "fake-chat") {
		t.Fatalf("the chat is still on screen after quitting:\n%s", s)
	}
}

// TestTUIMemoryBrowserEditsANote: Ctrl+O opens the memory browser; an
// inline edit is saved to the database.
func TestTUIMemoryBrowserEditsANote(t *testing.T) {
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	d.mustOK("", "memory", "add", "The cat is called Tom.")
	term := startTerminal(t, 100, 30, d.env())
	term.waitText("fake-chat")
	term.keys("C-o")
	term.waitFor("the memory browser listing the note", func(s string) bool {
		return strings.Contains(s, "Memory · 1 note") && strings.Contains(s, "The cat is called Tom.")
	})
	term.keys("e")
	term.waitText("ctrl+s")
	term.keys("End")
	term.typeText(" He is a tabby.")
	term.keys("C-s")
	term.waitText("He is a tabby.")
	term.waitFor("the save", func(s string) bool { return !strings.Contains(s, "ctrl+s save") })

	store := d.openStore()
	term.waitFor("the note in the database", func(string) bool {
		notes, err := store.ListNotes(context.Background(), "tester")
		return err == nil && len(notes) == 1 && notes[0].Content == "The cat is called Tom. He is a tabby."
	})
	// Esc goes back to the list, and again to the chat (a key at a time: an
	// Esc the terminal sees right before another key is read as Alt).
	term.keys("Escape")
	term.waitText("Memory ·")
	term.keys("Escape")
	term.waitFor("the chat", func(s string) bool { return !strings.Contains(s, "Memory ·") })
	term.keys("C-c")
	if code := term.exitStatus(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// TestTUIDeleteConversation: a conversation deleted from the sidebar is
// gone from the list and from `mneme search`.
func TestTUIDeleteConversation(t *testing.T) {
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	d.mustOK("", "import", writeFile(t, "convs.jsonl", strings.Join([]string{
		`{"conversation":"a","title":"Volcano trip","role":"user","content":"which volcano should we climb in Iceland?"}`,
		`{"conversation":"a","role":"assistant","content":"Try Fagradalsfjall."}`,
		`{"conversation":"b","title":"Bread baking","role":"user","content":"how long should sourdough proof?"}`,
		`{"conversation":"b","role":"assistant","content":"Overnight in the fridge."}`,
	}, "\n")+"\n"))
	if out := d.mustOK("", "search", "volcano").stdout; !strings.Contains(out, "Volcano trip") {
		t.Fatalf("search before the delete:\n%s", out)
	}
	term := startTerminal(t, 100, 30, d.env())
	term.waitText("fake-chat")
	term.keys("C-s")
	term.waitText("Volcano trip")
	term.typeText("volc")
	term.waitFor("the filter", func(s string) bool { return !strings.Contains(s, "Bread baking") })
	term.keys("C-d")
	term.waitText("Delete “Volcano trip”?")
	term.keys("y")
	term.waitText("Deleted “Volcano trip”.")
	term.keys("Escape") // clear the filter
	s := term.waitText("Bread baking")
	if strings.Contains(s, "Volcano trip\u00a0") || strings.Count(s, "Volcano trip") > 1 {
		t.Fatalf("the deleted conversation is still listed:\n%s", s)
	}
	term.keys("C-c") // closes the conversation list
	term.waitText("Closed: press Ctrl+C again to quit.")
	term.keys("C-c")
	term.exitStatus()

	if out := d.mustOK("", "search", "volcano").stdout; strings.Contains(out, "Volcano") || strings.Contains(out, "Fagradalsfjall") {
		t.Fatalf("search still finds the deleted conversation:\n%s", out)
	}
	list := d.conversations()
	if len(list) != 1 || list[0].Title != "Bread baking" {
		t.Fatalf("conversations after the delete: %+v", list)
	}
}

// TestTUIResizeTo60x20: after a resize to 60×20 every row fits and the
// answer, the input, the status and the key help are all readable.
func TestTUIResizeTo60x20(t *testing.T) {
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	term := startTerminal(t, 100, 30, d.env())
	term.waitText("fake-chat")
	term.typeText("a question about resizing windows")
	term.keys("Enter")
	term.waitText("You said: a question about resizing windows")
	term.keys("C-s") // the sidebar too
	term.waitText("Conversations")
	term.keys("Escape")
	term.tmux("resize-window", "-t", "mneme", "-x", "60", "-y", "20")
	s := term.waitFor("the 60×20 layout", func(s string) bool {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		return len(lines) == 20 && strings.Contains(s, "fake-chat") && strings.Contains(s, "f1 help")
	})
	for i, l := range strings.Split(strings.TrimRight(s, "\n"), "\n") {
		if w := ansi.StringWidth(l); w > 60 {
			t.Errorf("row %d is %d wide: %q", i, w, l)
		}
	}
	for _, want := range []string{"You said: a question", "› ", "Conversations", "enter send"} {
		if !strings.Contains(s, want) {
			t.Errorf("at 60×20 the screen lacks %q:\n%s", want, s)
		}
	}
	// Still usable: a second message gets its answer.
	term.typeText("and another")
	term.keys("Enter")
	term.waitText("You said: and another")
	term.keys("C-c")
	if code := term.exitStatus(); code != 0 {
		t.Fatalf("exit %d", code)
	}
}

// TestTUIEscapeSequencesAreInert: a model answer that tries to set the
// window title, clear the screen, move the cursor and write the clipboard
// is shown as plain text, and none of it happens.
func TestTUIEscapeSequencesAreInert(t *testing.T) {
	srv := fakeollama.New(t)
	srv.Script(fakeollama.Reply{Content: []string{
		"\x1b]0;pwned\x07safe ", "\x1b[2J\x1b[H", "text \x1b[5;5H", "\x1b]52;c;aGk=\x07here", "\x9b31mred?",
	}})
	d := newDevice(t, srv.Host())
	term := startTerminal(t, 100, 30, d.env())
	term.waitText("fake-chat")
	title := strings.TrimSpace(term.tmux("display-message", "-p", "-t", "mneme", "#{pane_title}"))
	term.typeText("say something odd")
	term.keys("Enter")
	s := term.waitText("safe text here")
	if !strings.Contains(s, "┃ say something odd") {
		t.Fatalf("the screen was cleared or overwritten:\n%s", s)
	}
	if got := strings.TrimSpace(term.tmux("display-message", "-p", "-t", "mneme", "#{pane_title}")); got != title || strings.Contains(got, "pwned") {
		t.Fatalf("the pane title changed from %q to %q", title, got)
	}
	if buf := term.tmux("list-buffers"); strings.Contains(buf, "hi") {
		t.Fatalf("the clipboard was written: %q", buf)
	}
	for _, bad := range []string{"pwned", "[2J", "52;c"} {
		if strings.Contains(s, bad) {
			t.Errorf("the screen shows %q:\n%s", bad, s)
		}
	}
	term.keys("C-c")
	term.exitStatus()
}
