package tui

import (
	"context"
	"errors"
	"fmt"
	"image/color"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/ollama"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tui/internal/paneltest"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/paths"
	"github.com/mneme-dev/mneme/tui/sidebar"
	"github.com/mneme-dev/mneme/tui/transcript"
)

// Tests of the chat screen as a whole: the sidebar, the panels, the slash
// commands and the key help, driven through the root model.

var (
	keyCtrlF = tea.KeyPressMsg{Code: 'f', Mod: tea.ModCtrl}
	keyCtrlE = tea.KeyPressMsg{Code: 'e', Mod: tea.ModCtrl}
	keyTab   = tea.KeyPressMsg{Code: tea.KeyTab}
	keyF1    = tea.KeyPressMsg{Code: tea.KeyF1}
)

// storeConversation stores a conversation of user/assistant pairs.
func storeConversation(t *testing.T, store *memory.Store, title string, pairs ...string) memory.Conversation {
	t.Helper()
	ctx := context.Background()
	c, err := store.CreateConversation(ctx, testUser, title)
	if err != nil {
		t.Fatal(err)
	}
	for i, p := range pairs {
		role := memory.RoleUser
		if i%2 == 1 {
			role = memory.RoleAssistant
		}
		if _, err := store.AppendMessage(ctx, testUser, memory.Message{ConversationID: c.ID, Role: role, Content: p}); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// longPairs are n turns; turn 26 asks about the lighthouse keeper.
func longPairs(n int) []string {
	var out []string
	for i := 1; i <= n; i++ {
		q := fmt.Sprintf("filler question number %d", i)
		if i == 26 {
			q = "what was the name of the lighthouse keeper?"
		}
		out = append(out, q, fmt.Sprintf("filler answer %d\n\nwith a second paragraph", i))
	}
	return out
}

// screenConfig is a chat over store with every optional part main passes.
func screenConfig(t *testing.T, store *memory.Store) (Config, *index.Index) {
	t.Helper()
	ix, err := index.OpenIndex(context.Background(), store, t.TempDir(), index.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if err := ix.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	cfg := config(store, newFakeRunner(store, "An answer."), readyProbe)
	cfg.Conversations, cfg.Search, cfg.Notes = indexConversations{store, ix}, ix, ix
	return cfg, ix
}

func TestSidebarSwitchIsInstantAndRemembersThePosition(t *testing.T) {
	store := openStore(t)
	long := storeConversation(t, store, "Long chat", longPairs(40)...)
	storeConversation(t, store, "Short chat", "just one question", "and its short answer")
	cfg, _ := screenConfig(t, store)
	cfg.ConversationID = long.ID
	h := newHarness(t, cfg)
	h.send(tea.WindowSizeMsg{Width: 50, Height: 24}) // narrow: the sidebar takes the chat's place
	h.runUntil("history", func() bool { return !h.m.loading })
	h.send(keyPgUp)
	h.send(keyPgUp)
	before := h.m.transcript.View()

	h.send(keyCtrlS)
	h.runUntilShown("Short chat", "Long chat")
	h.typeText("short")
	h.send(keyEnter)
	h.runUntilShown("just one question", "and its short answer")
	if h.shows("filler") {
		t.Fatalf("the long chat is still on screen:\n%s", h.screen())
	}

	h.send(keyCtrlS)
	h.runUntilShown("Long chat")
	h.typeText("long")
	h.send(keyEnter)
	// Instant: shown as soon as the choice arrives, before the store is
	// read again, where the reader left it.
	h.runUntil("the switch", func() bool { return h.m.convID == long.ID })
	if h.m.loading || h.m.transcript.View() != before {
		t.Fatalf("back in the long chat, the screen is not as it was left:\n%s\nwant:\n%s",
			ansi.Strip(h.m.transcript.View()), ansi.Strip(before))
	}
	h.runUntil("commands done", func() bool { return len(h.queue) == 0 })
	if h.m.transcript.View() != before {
		t.Fatalf("reading the long chat again moved the screen:\n%s", h.screen())
	}
}

func TestSearchOpensTheConversationAtTheTurn(t *testing.T) {
	store := openStore(t)
	long := storeConversation(t, store, "Long chat", longPairs(40)...)
	cfg, _ := screenConfig(t, store)
	h := newHarness(t, cfg)
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})
	h.runUntilShown("Ollama ready")
	h.sendText("/search lighthouse keeper")
	h.runUntilShown("what was the name of the lighthouse keeper?", "turn 26")
	h.send(keyEnter)
	h.runUntil("the conversation", func() bool { return h.m.convID == long.ID && !h.m.loading })
	s := h.screen()
	if !strings.Contains(s, "lighthouse keeper") || strings.Contains(s, "filler question number 40") {
		t.Fatalf("the screen is not at turn 26:\n%s", s)
	}
	highlighted := false
	for _, e := range h.m.transcript.Entries {
		if e.Highlight && e.Turn != 26 {
			t.Fatalf("turn %d is highlighted", e.Turn)
		}
		highlighted = highlighted || e.Highlight
	}
	if !highlighted {
		t.Fatal("the turn is not highlighted")
	}
	h.send(highlightDoneMsg{})
	for _, e := range h.m.transcript.Entries {
		if e.Highlight {
			t.Fatal("the highlight stayed")
		}
	}
	// Ctrl+F opens search too.
	h.send(keyCtrlF)
	if !h.shows("Search") || h.m.top() != Panel(h.m.search) {
		t.Fatalf("ctrl+f did not open search:\n%s", h.screen())
	}
}

func TestSlashCompletionAndUsage(t *testing.T) {
	store := openStore(t)
	cfg, _ := screenConfig(t, store)
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready")
	h.typeText("/")
	for _, c := range []string{"/new — start a new conversation", "/search [QUERY]", "tab complete"} {
		if !h.shows(c) {
			t.Fatalf("typing / does not list %q:\n%s", c, h.screen())
		}
	}
	h.typeText("ar")
	h.send(keyTab)
	if got := h.m.input.Value(); got != "/archive" {
		t.Fatalf("tab completed /ar to %q", got)
	}
	h.m.input.Reset()
	h.typeText("/re")
	h.send(keyEnter) // /rename needs a title: completed, not run
	if got := h.m.input.Value(); got != "/rename " {
		t.Fatalf("enter on /re gave %q", got)
	}
	if !h.shows("/rename TITLE — rename this conversation") {
		t.Fatalf("no usage line while the arguments are typed:\n%s", h.screen())
	}
	h.m.input.Reset()
	h.typeText("/m")
	h.send(keyDown) // from /memory to /model
	if !h.shows("› /model") {
		t.Fatalf("down did not choose /model:\n%s", h.screen())
	}
	// Esc closes the list, and keeps the text; typing opens it again.
	h.send(keyEsc)
	if h.shows("/model [pull NAME] — ") || h.m.input.Value() != "/m" {
		t.Fatalf("esc left the list open, or took the text %q:\n%s", h.m.input.Value(), h.screen())
	}
	h.typeText("e")
	if !h.shows("/memory — browse") {
		t.Fatalf("typing after esc does not list again:\n%s", h.screen())
	}
}

func TestConversationCommands(t *testing.T) {
	store := openStore(t)
	cfg, _ := screenConfig(t, store)
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready")
	h.sendText("/rename") // completed to "/rename ", with its usage
	h.runUntilShown("/rename TITLE — rename this conversation")
	h.send(keyEnter)
	h.runUntilShown("Nothing to rename yet")
	h.m.input.Reset()
	h.sendText("first question")
	h.runUntilShown("An answer.")
	h.runUntilIdle()
	h.sendText("/rename Trip planning")
	h.runUntilShown("Renamed to “Trip planning”.")
	conv, _ := storedMessages(t, store)
	if conv.Title != "Trip planning" {
		t.Fatalf("stored title %q", conv.Title)
	}
	h.sendText("/archive")
	h.runUntilShown("Archived “Trip planning”")
	if c, _ := store.Conversation(context.Background(), testUser, conv.ID); !c.Archived {
		t.Fatal("not archived in the store")
	}
	// Its new turns are hidden with it: the status line says so.
	h.runUntilShown("(archived) Trip planning")
	h.sendText("/archive")
	h.runUntilShown("Unarchived “Trip planning”.")
	if h.shows("(archived)") {
		t.Fatalf("the status line still says archived:\n%s", h.screen())
	}

	h.sendText("/new")
	h.runUntilShown("New conversation", "new conversation")
	if h.shows("first question") {
		t.Fatalf("/new left the old conversation on screen:\n%s", h.screen())
	}
	// Delete it from the sidebar, after confirming.
	h.send(keyCtrlS)
	h.runUntilShown("Trip planning")
	h.send(tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl})
	h.runUntilShown("Delete “Trip planning”?")
	h.send(tea.KeyPressMsg{Code: 'y', Text: "y"})
	h.runUntilShown("Deleted “Trip planning”.", "No conversations yet.")
	if list, _ := store.ListConversations(context.Background(), testUser, memory.ListOptions{IncludeArchived: true}); len(list) != 0 {
		t.Fatalf("conversations after the delete: %+v", list)
	}
}

func TestDeletingTheOpenConversationClearsTheScreen(t *testing.T) {
	store := openStore(t)
	c := storeConversation(t, store, "Doomed", "delete me", "sure")
	cfg, _ := screenConfig(t, store)
	cfg.ConversationID = c.ID
	h := newHarness(t, cfg)
	h.runUntilShown("delete me")
	h.send(keyCtrlS)
	h.runUntilShown("› Doomed")
	h.send(tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl})
	h.send(tea.KeyPressMsg{Code: 'y', Text: "y"})
	// The store may say the conversation is gone before the list says it
	// deleted it: that is not another mneme's doing.
	h.send(othersDeletedMsg{id: c.ID})
	h.runUntilShown("Deleted “Doomed”.", "new conversation")
	if h.shows("delete me") || h.m.convID != "" {
		t.Fatalf("the deleted conversation is still open:\n%s", h.screen())
	}
	h.send(keyEsc) // the list hid the chat
	h.runUntil("the keys back in the chat", func() bool { return h.m.focus == focusInput })
	if h.shows("deleted in another") {
		t.Fatalf("this chat's own delete is said to be another's:\n%s", h.screen())
	}
}

func TestKeyHelpOverlay(t *testing.T) {
	store := openStore(t)
	cfg, _ := screenConfig(t, store)
	for _, size := range [][2]int{{100, 30}, {60, 20}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			h := newHarness(t, cfg)
			h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			h.runUntilShown("Ollama ready")
			h.send(keyF1)
			got := h.m.View().Content
			requireGolden(t, fmt.Sprintf("screen_help_%dx%d", size[0], size[1]), got)
			assertFits(t, got, size[0], size[1])
			for _, want := range []string{"Keys and commands", "ctrl+f", "search", "esc close"} {
				if !h.shows(want) {
					t.Errorf("the help lacks %q", want)
				}
			}
			// Scrolling reaches the panels' keys.
			for range 10 {
				h.send(tea.KeyPressMsg{Code: tea.KeyPgDown})
			}
			if !h.shows("Models (/model)") {
				t.Errorf("the end of the help has no model keys:\n%s", h.screen())
			}
			// ↓ is told with ↑ ("↑/↓ move"), never on a row of its own.
			if regexp.MustCompile(`(?m)^↓ +(next|scroll down)`).MatchString(h.screen()) {
				t.Errorf("a panel's ↓ has a row of its own:\n%s", h.screen())
			}
			// Typing closes it and goes on to the input.
			h.typeText("x")
			if h.m.helpOpen || h.m.input.Value() != "x" {
				t.Fatalf("typing with the help open: open %v, input %q", h.m.helpOpen, h.m.input.Value())
			}
		})
	}
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready")
	h.sendText("/help")
	h.runUntilShown("Keys and commands", "/export [FILE] — write this conversation to a markdown file")
	h.send(keyEsc)
	if h.m.helpOpen {
		t.Fatal("esc did not close the help")
	}
}

// assertFits checks that a screen has exactly h rows of at most w cells.
func assertFits(t *testing.T, screen string, w, h int) {
	t.Helper()
	lines := strings.Split(screen, "\n")
	if len(lines) != h {
		t.Errorf("the screen has %d rows, want %d", len(lines), h)
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw > w {
			t.Errorf("row %d is %d wide, more than %d: %q", i, lw, w, ansi.Strip(l))
		}
	}
}

func TestScreenWithSidebarGolden(t *testing.T) {
	store := openStore(t)
	conv := seedConversation(t, store)
	for _, size := range [][2]int{{100, 30}, {60, 20}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			cfg := config(store, newFakeRunner(store), readyProbe)
			cfg.ConversationID = conv.ID
			list := sampleConversations()
			list[1].ID, list[1].Title = conv.ID, "Resuming conversation"
			cfg.Conversations = &fakeConversations{list: list}
			cfg.MemoryStatus = func(context.Context, string) (MemoryStatus, error) {
				return MemoryStatus{EmbedModel: "nomic-embed-text", Pending: 3, Notes: 12}, nil
			}
			h := newHarness(t, cfg)
			h.m.sidebar.SetNow(func() time.Time { return sidebarNow })
			h.send(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			h.runUntil("history and probe", func() bool { return !h.m.loading && !h.m.probing })
			h.send(keyCtrlS)
			h.runUntilShown("Tax retur")
			h.send(keyEsc) // the keys back to the input; the sidebar stays
			h.runUntil("the keys back and the memory status", func() bool { return h.m.focus == focusInput && h.m.memStat.Known })
			got := h.m.View().Content
			assertFits(t, got, size[0], size[1])
			requireGolden(t, fmt.Sprintf("screen_sidebar_%dx%d", size[0], size[1]), got)
		})
	}
}

func TestCopyExportAndCompose(t *testing.T) {
	store := openStore(t)
	cfg, _ := screenConfig(t, store)
	cfg.TempDir = t.TempDir()
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready")
	h.sendText("/copy")
	h.runUntilShown("There is no answer to copy yet.")
	h.m.input.Reset()
	h.sendText("what is the capital of Portugal")
	h.runUntilShown("An answer.")
	h.runUntilIdle()

	// /copy writes the answer to the clipboard with OSC 52.
	h.typeText("/copy")
	next, cmd := h.m.Update(keyEnter)
	h.m = next.(Model)
	if msg := runCmd(t, cmd); fmt.Sprintf("%T", msg) != "tea.setClipboardMsg" || fmt.Sprint(msg) != "An answer." {
		t.Fatalf("/copy sent %T %q, want the answer for the clipboard", msg, msg)
	}
	if !h.shows("Sent the last answer (10 characters) to the terminal's clipboard") {
		t.Fatalf("no notice after /copy:\n%s", h.screen())
	}

	// /export writes markdown, never over an existing file.
	path := filepath.Join(t.TempDir(), "trip.md")
	h.sendText("/export " + path)
	h.runUntilShown("Exported to " + path)
	md, err := os.ReadFile(path)
	if err != nil || !strings.Contains(string(md), "what is the capital of Portugal") || !strings.Contains(string(md), "An answer.") {
		t.Fatalf("exported %q, %v", md, err)
	}
	h.sendText("/export " + path)
	h.runUntilShown("/export never writes over a file; give another name, or a folder.")
	if !strings.Contains(strings.ReplaceAll(h.screen(), "\n", ""), filepath.Base(path)) {
		t.Fatalf("the refusal does not name the file:\n%s", h.screen())
	}
	h.m.input.Reset()
	// ~/ is the home folder, and a folder that is not there yet is made.
	home := t.TempDir()
	t.Setenv("HOME", home)
	h.sendText("/export ~/exports/trip.md")
	h.runUntil("the export into a new folder", func() bool {
		md, err := os.ReadFile(filepath.Join(home, "exports", "trip.md"))
		return err == nil && strings.Contains(string(md), "An answer.")
	})
	if got := paths.ExportName("Trip: Lisbon & Porto!", "0193abcdef"); got != "mneme-trip-lisbon-porto-0193abcd.md" {
		t.Errorf("ExportName = %q", got)
	}

	// Ctrl+E writes the input to a file for the editor and takes back what
	// was saved there.
	h.typeText("draft")
	h.send(keyCtrlE)
	h.runUntil("the editor request", func() bool { return len(h.queue) > 0 })
	edit, ok := runCmd(t, h.queue[len(h.queue)-1]).(panel.ExternalEditMsg)
	if !ok || edit.Owner != composeOwner {
		t.Fatalf("ctrl+e asked for %#v", edit)
	}
	if b, _ := os.ReadFile(edit.Path); string(b) != "draft" {
		t.Fatalf("the editor got %q", b)
	}
	if err := os.WriteFile(edit.Path, []byte("a long message\nwritten in the editor\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.queue = nil
	h.send(panel.ExternalEditDoneMsg{Owner: composeOwner, Path: edit.Path})
	h.runUntil("the composed text", func() bool { return h.m.input.Value() != "draft" })
	if got := h.m.input.Value(); got != "a long message\nwritten in the editor" {
		t.Fatalf("input after the editor = %q", got)
	}
	if _, err := os.Stat(edit.Path); !os.IsNotExist(err) {
		t.Errorf("the editor's file was left behind: %v", err)
	}
}

func TestThemeFollowsTheTerminalBackground(t *testing.T) {
	store := openStore(t)
	conv := seedConversation(t, store)
	cfg, _ := screenConfig(t, store)
	cfg.ConversationID = conv.ID
	cfg.Dark = true
	h := newHarness(t, cfg)
	h.runUntilShown("You asked about goroutines before.")
	dark := h.m.View().Content
	h.send(tea.BackgroundColorMsg{Color: color.White})
	if h.m.st.Dark {
		t.Fatal("a white background kept the dark styles")
	}
	if light := h.m.View().Content; light == dark || !h.shows("You asked about goroutines before.") {
		t.Fatalf("the screen was not drawn again in light styles:\n%s", h.screen())
	}
	h.send(tea.BackgroundColorMsg{Color: color.Black})
	if !h.m.st.Dark || h.m.View().Content != dark {
		t.Fatal("a black background did not bring the dark styles back")
	}
}

func TestCtrlOOpensTheMemoryBrowser(t *testing.T) {
	store := openStore(t)
	cfg, ix := screenConfig(t, store)
	if _, err := ix.SaveNote(context.Background(), testUser, "The user's cat is called Tom.", memory.NoteSource{}); err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready")
	h.send(keyCtrlO)
	h.runUntilShown("Memory", "The user's cat is called Tom.")
	h.send(keyEsc)
	h.runUntil("the browser closed", func() bool { return h.m.top() == nil })
	h.sendText("/memory")
	h.runUntilShown("The user's cat is called Tom.")
}

func TestFirstRunOffersAnEmbeddingModel(t *testing.T) {
	store := openStore(t)
	cfg, _ := screenConfig(t, store)
	cfg.Models = paneltest.NewFakeModels(ollama.ModelInfo{Name: testModel, Capabilities: []string{"completion", "tools"}})
	cfg.FirstRun = true
	var saved []string
	cfg.SaveModels = func(chat, embed string) (string, error) { saved = append(saved, chat+"|"+embed); return "", nil }
	h := newHarness(t, cfg)
	h.runUntil("the picker", func() bool { return h.m.top() == Panel(h.m.models) })
	h.runUntilShown("Models", "✓ chat")
	h.send(keyEnter) // use the model for chat
	h.runUntil("saved", func() bool { return len(saved) > 0 })
	if saved[0] != testModel+"|" {
		t.Fatalf("saved %q", saved)
	}
	// Not a first run: no offer while a chat model is there.
	cfg.FirstRun = false
	h2 := newHarness(t, cfg)
	h2.runUntilShown("Ollama ready")
	h2.runUntil("commands done", func() bool { return len(h2.queue) == 0 })
	if h2.m.top() != nil {
		t.Fatal("models were offered with a chat model installed")
	}
}

// TestAChosenModelSaysWhatWinsAtTheNextStart: a model chosen in the
// picker is saved, and the chat says when the environment will win over
// it at the next start instead of letting it come back unexplained.
func TestAChosenModelSaysWhatWinsAtTheNextStart(t *testing.T) {
	store := openStore(t)
	cfg, _ := screenConfig(t, store)
	cfg.Models = paneltest.NewFakeModels(ollama.ModelInfo{Name: testModel, Capabilities: []string{"completion", "tools"}})
	cfg.FirstRun = true
	cfg.SaveModels = func(chat, embed string) (string, error) { return "MNEME_MODEL=nosuch-model in the environment", nil }
	h := newHarness(t, cfg)
	h.runUntil("the picker", func() bool { return h.m.top() == Panel(h.m.models) })
	h.runUntilShown("Models", "✓ chat")
	h.send(keyEnter)
	h.runUntil("saved", func() bool { return strings.Contains(h.m.hint, "saved") })
	if !strings.Contains(h.m.hint, "at the next start MNEME_MODEL=nosuch-model in the environment wins over it") {
		t.Fatalf("hint %q", h.m.hint)
	}
}

func TestThinkingExpandsWithDetails(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "The answer is 4.")
	r.thinking = []string{"Two plus two ", "is four, obviously."}
	h := newHarness(t, config(store, r, readyProbe))
	h.runUntilShown("Ollama ready")
	h.sendText("what is 2+2")
	h.runUntilShown("The answer is 4.", "▸ thought for 6 words", "ctrl+t details")
	if h.shows("is four, obviously.") {
		t.Fatalf("the thinking is shown before it is expanded:\n%s", h.screen())
	}
	h.send(pressBinding(t, h.m.keys.Details))
	h.runUntilShown("▾ thought for 6 words:", "Two plus two is four, obviously.")
}

func TestScrollKeysAndWheel(t *testing.T) {
	store := openStore(t)
	long := storeConversation(t, store, "Long chat", longPairs(40)...)
	cfg, _ := screenConfig(t, store)
	cfg.ConversationID = long.ID
	h := newHarness(t, cfg)
	h.runUntilShown("filler question number 40")
	h.send(tea.KeyPressMsg{Code: tea.KeyHome, Mod: tea.ModCtrl})
	if !h.shows("filler question number 1\n") && !strings.Contains(h.screen(), "filler question number 1 ") {
		t.Fatalf("ctrl+home is not at the top:\n%s", h.screen())
	}
	top := h.m.transcript.View()
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelDown})
	if h.m.transcript.View() == top {
		t.Fatal("the wheel did not scroll")
	}
	h.send(tea.MouseWheelMsg{Button: tea.MouseWheelUp})
	if h.m.transcript.View() != top {
		t.Fatal("the wheel up did not come back")
	}
	h.send(tea.KeyPressMsg{Code: tea.KeyPgDown})
	h.send(tea.KeyPressMsg{Code: tea.KeyEnd, Mod: tea.ModCtrl})
	if !h.shows("filler answer 40") || !h.m.transcript.AtBottom() {
		t.Fatalf("ctrl+end is not at the bottom:\n%s", h.screen())
	}
}

// savingRunner answers after saving a note with the memory tool, as the
// agent does.
type savingRunner struct {
	store *memory.Store
	ix    *index.Index
}

func (r savingRunner) Run(ctx context.Context, req agent.Request, emit func(agent.Event)) (agent.Result, error) {
	res := agent.Result{ConversationID: req.ConversationID, Model: testModel}
	if _, err := r.store.AppendMessage(ctx, req.UserID, memory.Message{ConversationID: req.ConversationID, Role: memory.RoleUser, Content: req.Prompt}); err != nil {
		return res, err
	}
	n, err := r.ix.SaveNote(ctx, req.UserID, "The user's dog is called Rex.", memory.NoteSource{ConversationID: req.ConversationID, TurnNumber: 1})
	if err != nil {
		return res, err
	}
	call := agent.ToolActivity{ID: "1", Name: "memory_save", Args: `{"content":"The user's dog is called Rex."}`,
		Result: fmt.Sprintf(`{"note_id":%q,"status":"saved"}`, n.ID), Done: true, Notes: []agent.NoteRef{{ID: n.ID, Action: agent.NoteSaved}}}
	emit(agent.ToolCallEvent{Call: agent.ToolActivity{ID: "1", Name: "memory_save", Args: call.Args}})
	emit(agent.ToolResultEvent{Call: call})
	emit(agent.ContentDelta{Text: "Noted."})
	emit(agent.DoneEvent{Result: res})
	return res, nil
}

func TestNotesWrittenInTheAnswerAreMarked(t *testing.T) {
	store := openStore(t)
	cfg, ix := screenConfig(t, store)
	if _, err := ix.SaveNote(context.Background(), testUser, "An older note.", memory.NoteSource{}); err != nil {
		t.Fatal(err)
	}
	cfg.NewRunner = func(string) Runner { return savingRunner{store: store, ix: ix} }
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready")
	h.sendText("my dog is called Rex")
	h.runUntilShown("Noted.")
	h.runUntilIdle()
	h.send(keyCtrlO)
	h.runUntilShown("The user's dog is called Rex.", "● 1 new", "An older note.")
}

// TestDeleteFromTheSidebarForgetsItsNotes: the delete question says how
// many notes came from the conversation and f forgets them with it, from
// the store and from search; a note from elsewhere stays.
func TestDeleteFromTheSidebarForgetsItsNotes(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	storeConversation(t, store, "Dogs", "my dog is called Rex", "a good dog")
	c := storeConversation(t, store, "Cats", "my cat is called Tom", "a fine name")
	cfg, ix := screenConfig(t, store)
	for _, text := range []string{"Has a cat called Tom.", "Feeds the cat at seven."} {
		if _, err := ix.SaveNote(ctx, testUser, text, memory.NoteSource{ConversationID: c.ID, TurnNumber: 1, By: memory.SourceExtracted}); err != nil {
			t.Fatal(err)
		}
	}
	other, err := ix.SaveNote(ctx, testUser, "Likes the cat of the neighbour.", memory.NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready")
	h.send(keyCtrlS)
	h.runUntilShown("Cats")
	h.send(tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl})
	h.runUntilShown("Delete “Cats”?", "2 notes came from it", "f delete, forget notes")
	// The key help says the same.
	if !h.shows("y delete, keep notes • f delete, forget notes • n keep") {
		t.Fatalf("the key help does not offer the answers:\n%s", h.screen())
	}
	h.send(tea.KeyPressMsg{Code: 'f', Text: "f"})
	h.runUntilShown("Deleted “Cats” and forgot the 2 notes learnt from it.")
	notes, err := store.ListNotes(ctx, testUser)
	if err != nil || len(notes) != 1 || notes[0].ID != other.ID {
		t.Fatalf("notes after forgetting: %+v, %v", notes, err)
	}
	hits, err := ix.SearchNotes(ctx, index.NoteQuery{UserID: testUser, Text: "cat Tom seven"})
	if err != nil {
		t.Fatal(err)
	}
	for _, h := range hits {
		if h.ID != other.ID {
			t.Fatalf("search finds a forgotten note: %+v", h)
		}
	}

	// A conversation no note came from: the key help offers no f either.
	h.send(tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl})
	h.runUntilShown("Delete “Dogs”?", "no note came from it", "y delete • n keep • ctrl+c quit")
	if h.shows("forget notes") {
		t.Fatalf("forgetting is offered with no note to forget:\n%s", h.screen())
	}
}

// TestCtrlCClosesWhatIsOpenFirst: with search open (a query typed), the
// first Ctrl+C closes it and the chat stays; with nothing open and nothing
// typed, Ctrl+C quits at once.
func TestCtrlCClosesWhatIsOpenFirst(t *testing.T) {
	store := openStore(t)
	cfg, _ := screenConfig(t, store)
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready")
	h.send(keyCtrlF)
	h.typeText("trams")
	queued := len(h.queue)
	h.send(keyCtrlC)
	if h.m.top() != nil || len(h.queue) > queued && quits(t, h.queue[len(h.queue)-1]) {
		t.Fatalf("Ctrl+C in search: still open %v, screen:\n%s", h.m.top() != nil, h.screen())
	}
	h.runUntilShown("Closed: press Ctrl+C again to quit.")
	// The conversation list with the keys, and its delete question, too.
	h.send(keyCtrlS)
	h.send(tea.KeyPressMsg{Code: 'd', Mod: tea.ModCtrl})
	queued = len(h.queue)
	h.send(keyCtrlC)
	if h.m.focus != focusInput || h.m.sideOpen || len(h.queue) > queued && quits(t, h.queue[len(h.queue)-1]) {
		t.Fatalf("Ctrl+C in the conversation list: focus %v, open %v:\n%s", h.m.focus, h.m.sideOpen, h.screen())
	}
	h.send(keyF1)
	h.typeText("x") // any other key disarms, and closes the help
	h.send(tea.KeyPressMsg{Code: tea.KeyBackspace})
	h.send(keyCtrlC)
	if !quits(t, h.queue[len(h.queue)-1]) {
		t.Fatalf("Ctrl+C with nothing open or typed did not quit:\n%s", h.screen())
	}
}

// TestTurnsAnotherMnemeAddsAppear: a turn that another process adds to
// the open conversation (`mneme ask -c` in a script) is shown once the
// store says it changed, below what was there, numbered on; a second
// change with nothing new adds nothing twice.
func TestTurnsAnotherMnemeAddsAppear(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	c := storeConversation(t, store, "Shared", "first question here", "first answer here")
	cfg, _ := screenConfig(t, store)
	cfg.ConversationID = c.ID
	h := newHarness(t, cfg)
	h.runUntilShown("first answer here")
	if _, err := store.AppendMessage(ctx, testUser, memory.Message{ConversationID: c.ID, Role: memory.RoleUser, Content: "appended from another shell ZEBRA"}); err != nil {
		t.Fatal(err)
	}
	// The other process stores its answer as it goes (interrupted until done).
	answer, err := store.AppendMessage(ctx, testUser, memory.Message{ConversationID: c.ID, Role: memory.RoleAssistant,
		Content: "the other shell's first words", Status: memory.StatusInterrupted})
	if err != nil {
		t.Fatal(err)
	}
	h.send(storeChangedMsg{})
	// Being written, not interrupted.
	h.runUntilShown("appended from another shell ZEBRA", "the other shell's first words", "New messages from another mneme",
		"(still being written by another mneme…)")
	if h.shows("(interrupted)") {
		t.Fatalf("the answer another mneme is writing is drawn as interrupted:\n%s", h.screen())
	}
	answer.Content, answer.Status = "the other shell's answer", memory.StatusComplete
	if err := store.UpdateMessage(ctx, testUser, answer); err != nil {
		t.Fatal(err)
	}
	h.send(storeChangedMsg{})
	h.runUntilShown("the other shell's answer")
	if h.shows("first words") || h.shows("still being written") {
		t.Fatalf("the other process's finished answer is drawn beside its start:\n%s", h.screen())
	}
	if s := h.screen(); strings.Index(s, "first answer here") > strings.Index(s, "ZEBRA") {
		t.Fatalf("the other process's turn is not below the first:\n%s", s)
	}
	if h.m.transcript.Turns.Current() != 2 {
		t.Errorf("the last turn is numbered %d, want 2", h.m.transcript.Turns.Current())
	}
	h.send(storeChangedMsg{})
	h.runUntilIdle()
	if n := strings.Count(h.screen(), "ZEBRA"); n != 1 {
		t.Fatalf("the added turn is shown %d times:\n%s", n, h.screen())
	}
}

// TestConversationDeletedElsewhereLeavesTheScreen: `mneme conversations
// rm` in a shell while the chat shows that conversation: the chat says so
// and begins a new one, instead of showing what is gone.
func TestConversationDeletedElsewhereLeavesTheScreen(t *testing.T) {
	h := sharedChat(t, notSentRunner{})
	if err := h.m.store.(*memory.Store).DeleteConversation(context.Background(), testUser, h.m.convID); err != nil {
		t.Fatal(err)
	}
	h.send(storeChangedMsg{})
	h.runUntilShown("The conversation open here was deleted in another mneme; this is a new one.")
	if h.shows("first question here") || h.m.convID != "" {
		t.Fatalf("the deleted conversation is still shown (id %q):\n%s", h.m.convID, h.screen())
	}
}

// TestUpRecallsEarlierPrompts: ↑ in an empty input brings back the
// conversation's prompts, newest first; ↓ goes back to an empty input; a
// recalled prompt is sent as it stands, and a draft keeps ↑ to itself.
func TestUpRecallsEarlierPrompts(t *testing.T) {
	store := openStore(t)
	c := storeConversation(t, store, "Recall", "first prompt", "an answer", "second prompt", "another answer")
	cfg, _ := screenConfig(t, store)
	cfg.ConversationID = c.ID
	h := newHarness(t, cfg)
	h.runUntilShown("another answer")
	for _, step := range []struct {
		key  tea.KeyPressMsg
		want string
	}{{keyUp, "second prompt"}, {keyUp, "first prompt"}, {keyUp, "first prompt"}, {keyDown, "second prompt"}, {keyDown, ""}} {
		h.send(step.key)
		if got := h.m.input.Value(); got != step.want {
			t.Fatalf("after %s the input holds %q, want %q", step.key, got, step.want)
		}
	}
	h.typeText("a draft")
	h.send(keyUp)
	if got := h.m.input.Value(); got != "a draft" {
		t.Fatalf("↑ in a draft replaced it with %q", got)
	}

	// A recalled prompt, unchanged, stays with its conversation: a new
	// one starts with an empty input (and nothing to recall).
	h.send(keyCtrlC) // clears the draft
	h.send(keyUp)    // "second prompt"
	h.send(sidebar.NewMsg{})
	h.send(keyUp)
	if got := h.m.input.Value(); got != "" {
		t.Fatalf("a new conversation's input holds %q", got)
	}
	// Another conversation opened: ↑ there recalls its own prompts.
	other := storeConversation(t, store, "Other", "/etc/hosts explain", "an answer about hosts")
	h.send(panel.OpenTurnMsg{ConversationID: other.ID})
	h.runUntilShown("an answer about hosts")
	h.send(keyUp) // a message that began with "/" comes back escaped, as it was typed
	if got := h.m.input.Value(); got != "//etc/hosts explain" {
		t.Fatalf("↑ in the other conversation gave %q", got)
	}
}

// TestOwnAnswerIsNotTakenForAnother: the store's change after this
// screen's own answer, read before the title says how many messages are
// stored, does not draw the answer a second time.
func TestOwnAnswerIsNotTakenForAnother(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	c := storeConversation(t, store, "Mine", "first question here", "first answer here")
	cfg, _ := screenConfig(t, store)
	cfg.ConversationID = c.ID
	h := newHarness(t, cfg)
	h.runUntilShown("first answer here")
	h.sendText("a second question")
	h.runUntil("the answer to end", func() bool { return h.m.phase == phaseIdle && h.m.run == nil && h.m.others.counting })
	conv, err := store.Conversation(ctx, testUser, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	msgs, err := store.Messages(ctx, testUser, c.ID)
	if err != nil {
		t.Fatal(err)
	}
	h.send(othersAddedMsg{conv: conv, msgs: msgs}) // read before the title came back
	for len(h.queue) > 0 {
		h.step()
	}
	h.send(storeChangedMsg{})
	for len(h.queue) > 0 {
		h.step()
	}
	if n := strings.Count(h.screen(), "a second question"); n != 1 || h.shows("another mneme") {
		t.Fatalf("this screen's own prompt is drawn %d times:\n%s", n, h.screen())
	}
}

// TestTurnAddedWhileAnsweringAppearsAfter: a turn another mneme stores
// while this screen's answer streams is drawn once the answer is over
// (the conversation is redrawn as stored), not skipped; so is an answer
// of another's that was drawn while still being written.
func TestTurnAddedWhileAnsweringAppearsAfter(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	c := storeConversation(t, store, "Shared", "first question here", "first answer here")
	r := newFakeRunner(store, "my own answer")
	r.gate = make(chan struct{}, 1)
	r.notice = "The answer was cut at about 4096 tokens"
	cfg, _ := screenConfig(t, store)
	cfg.NewRunner, cfg.ConversationID = func(string) Runner { return r }, c.ID
	h := newHarness(t, cfg)
	h.runUntilShown("first answer here")
	// Another mneme is still writing its answer when this screen sends.
	if _, err := store.AppendMessage(ctx, testUser, memory.Message{ConversationID: c.ID, Role: memory.RoleUser, Content: "external question EPSILON"}); err != nil {
		t.Fatal(err)
	}
	partial, err := store.AppendMessage(ctx, testUser, memory.Message{ConversationID: c.ID, Role: memory.RoleAssistant,
		Content: "external first words", Status: memory.StatusInterrupted})
	if err != nil {
		t.Fatal(err)
	}
	h.send(storeChangedMsg{})
	h.runUntilShown("external first words")
	h.sendText("my own question")
	// While this answer streams, the other finishes and adds one more turn.
	partial.Content, partial.Status = "external full answer", memory.StatusComplete
	if err := store.UpdateMessage(ctx, testUser, partial); err != nil {
		t.Fatal(err)
	}
	for _, m := range []memory.Message{{Role: memory.RoleUser, Content: "external question ZETA"}, {Role: memory.RoleAssistant, Content: "zeta answer"}} {
		m.ConversationID = c.ID
		if _, err := store.AppendMessage(ctx, testUser, m); err != nil {
			t.Fatal(err)
		}
	}
	r.gate <- struct{}{}
	// This run's notice stays under its answer when the rest is redrawn.
	h.runUntilShown("my own answer", "external question ZETA", "zeta answer", "external full answer", "Redrawn as stored", r.notice)
	if h.shows("external first words") {
		t.Fatalf("the other's answer is still drawn as it was begun:\n%s", h.screen())
	}

	// Another answer caught half-written when this screen's answer ends is
	// drawn whole once the other mneme finishes it.
	r.gate <- struct{}{}
	h.sendText("my second question")
	h.runUntil("the second answer to start", func() bool { return h.m.run != nil })
	if _, err := store.AppendMessage(ctx, testUser, memory.Message{ConversationID: c.ID, Role: memory.RoleUser, Content: "external question ETA"}); err != nil {
		t.Fatal(err)
	}
	late, err := store.AppendMessage(ctx, testUser, memory.Message{ConversationID: c.ID, Role: memory.RoleAssistant,
		Content: "eta begins", Status: memory.StatusInterrupted})
	if err != nil {
		t.Fatal(err)
	}
	h.runUntilShown("external question ETA", "eta begins")
	late.Content, late.Status = "eta begins and ends", memory.StatusComplete
	if err := store.UpdateMessage(ctx, testUser, late); err != nil {
		t.Fatal(err)
	}
	h.send(storeChangedMsg{})
	h.runUntilShown("eta begins and ends")
}

// TestHalfWrittenAnswerFinishedDuringThisRunIsRedrawn: a conversation
// opened while another mneme writes its answer, and a prompt sent at once
// (it waits its turn): the other's answer, finished meanwhile, is drawn as
// stored after this run, not left cut and "interrupted".
func TestHalfWrittenAnswerFinishedDuringThisRunIsRedrawn(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	c := storeConversation(t, store, "Shared", "question ALPHA")
	other, err := store.AppendMessage(ctx, testUser, memory.Message{ConversationID: c.ID, Role: memory.RoleAssistant,
		Content: "alpha first words", Status: memory.StatusInterrupted})
	if err != nil {
		t.Fatal(err)
	}
	r := newFakeRunner(store, "my own answer")
	r.gate = make(chan struct{}, 1)
	cfg, _ := screenConfig(t, store)
	cfg.NewRunner, cfg.ConversationID = func(string) Runner { return r }, c.ID
	h := newHarness(t, cfg)
	h.runUntilShown("alpha first words")
	h.sendText("my question")
	h.runUntil("the answer to start", func() bool { return h.m.run != nil })
	other.Content, other.Status = "alpha first words and the rest", memory.StatusComplete
	if err := store.UpdateMessage(ctx, testUser, other); err != nil {
		t.Fatal(err)
	}
	r.gate <- struct{}{}
	h.runUntilShown("my own answer", "alpha first words and the rest")
}

// stoppedChat opens a chat on a conversation whose answer to question was
// stopped after answer (stored interrupted).
func stoppedChat(t *testing.T, question, answer string) (*harness, *memory.Store, memory.Conversation) {
	t.Helper()
	store := openStore(t)
	c := storeConversation(t, store, "Stopped", question)
	if _, err := store.AppendMessage(context.Background(), testUser, memory.Message{ConversationID: c.ID, Role: memory.RoleAssistant,
		Content: answer, Status: memory.StatusInterrupted}); err != nil {
		t.Fatal(err)
	}
	cfg, _ := screenConfig(t, store)
	cfg.ConversationID = c.ID
	h := newHarness(t, cfg)
	h.runUntilShown(answer)
	return h, store, c
}

// TestOwnOldInterruptedAnswerIsNotAnothers: a conversation reopened with
// an answer this user stopped earlier (stored interrupted) is not taken
// for another mneme writing: the next answer draws no "redrawn" notice.
func TestOwnOldInterruptedAnswerIsNotAnothers(t *testing.T) {
	h, _, _ := stoppedChat(t, "tell me a long story", "Once upon")
	h.send(storeChangedMsg{}) // some other write: nothing moves
	h.sendText("a new question")
	h.runUntilShown("An answer.")
	for len(h.queue) > 0 {
		h.step()
	}
	if h.shows("Redrawn as stored") {
		t.Fatalf("this user's own stopped answer was taken for another mneme's:\n%s", h.screen())
	}
}

// sharedChat opens a chat on a stored conversation, whose runs r answers.
func sharedChat(t *testing.T, r Runner) *harness {
	t.Helper()
	store := openStore(t)
	c := storeConversation(t, store, "Shared", "first question here", "first answer here")
	cfg, _ := screenConfig(t, store)
	cfg.NewRunner, cfg.ConversationID = func(string) Runner { return r }, c.ID
	h := newHarness(t, cfg)
	h.runUntilShown("first answer here")
	return h
}

// TestRenameElsewhereReachesTheStatusLine: the open conversation renamed
// in another mneme is renamed in this one's status line too, once the
// store reports the change.
func TestRenameElsewhereReachesTheStatusLine(t *testing.T) {
	h := sharedChat(t, notSentRunner{})
	h.runUntilShown("· Shared")
	if err := h.m.store.(*memory.Store).RenameConversation(context.Background(), testUser, h.m.convID, "Fresh name from A"); err != nil {
		t.Fatal(err)
	}
	h.send(storeChangedMsg{}) // as the store's change feed reports it
	h.runUntilShown("· Fresh name from A")
}

// notSentRunner is a run stopped while another mneme answered in the
// conversation: it stores nothing (internal/turnlock).
type notSentRunner struct{}

func (notSentRunner) Run(_ context.Context, req agent.Request, emit func(agent.Event)) (agent.Result, error) {
	res := agent.Result{ConversationID: req.ConversationID}
	emit(agent.NoticeEvent{Text: "Another mneme is answering in this conversation: this prompt waits for its answer to end."})
	err := fmt.Errorf("%w: stopped while another mneme answered in this conversation", agent.ErrNotSent)
	emit(agent.ErrorEvent{Err: err, Result: res})
	return res, err
}

// TestPromptNotSentGoesBackToTheInput: a prompt stopped while another
// mneme answered in its conversation was not stored; it is back in the
// input, and the conversation is drawn as stored, without it.
func TestPromptNotSentGoesBackToTheInput(t *testing.T) {
	h := sharedChat(t, notSentRunner{})
	h.sendText("my unsent question")
	h.runUntilShown(hintNotSent)
	for len(h.queue) > 0 {
		h.step()
	}
	if got := h.m.input.Value(); got != "my unsent question" {
		t.Fatalf("the input holds %q", got)
	}
	for _, e := range h.m.transcript.Entries {
		if e.Kind == transcript.KindUser && e.Text == "my unsent question" || strings.Contains(e.Text, "this prompt waits") {
			t.Fatalf("the unsent prompt is still drawn as sent:\n%s", h.screen())
		}
	}
}

// downRunner is a send with nothing listening at Ollama's address: the
// agent stores nothing (agent.checkReachable).
type downRunner struct{}

func (downRunner) Run(_ context.Context, req agent.Request, emit func(agent.Event)) (agent.Result, error) {
	res := agent.Result{ConversationID: req.ConversationID}
	err := fmt.Errorf("%w: %w at %s: is it running? Start it with `ollama serve`", agent.ErrNotSent, agent.ErrOllamaUnreachable, testHost)
	emit(agent.ErrorEvent{Err: err, Result: res})
	return res, err
}

// TestPromptSentWithOllamaDownGoesBackToTheInput: Ollama died while the
// status line still said ready; the message was not stored, so it is back
// in the input, not drawn as sent with an empty answer, and the status
// line says offline.
func TestPromptSentWithOllamaDownGoesBackToTheInput(t *testing.T) {
	h := sharedChat(t, downRunner{})
	h.sendText("ping while down")
	h.runUntilShown(hintNotSentOffline, "Ollama offline")
	for len(h.queue) > 0 {
		h.step()
	}
	if got := h.m.input.Value(); got != "ping while down" {
		t.Fatalf("the input holds %q", got)
	}
	for _, e := range h.m.transcript.Entries {
		if e.Kind == transcript.KindUser && e.Text == "ping while down" {
			t.Fatalf("the unsent prompt is drawn as sent:\n%s", h.screen())
		}
	}
}

// TestFirstMessageWithOllamaDownLeavesNoConversation: a new chat's first
// message refused because Ollama is not running leaves no empty
// conversation behind (`mneme -c` would resume it): the chat is a new one
// again, with the message back in the input.
func TestFirstMessageWithOllamaDownLeavesNoConversation(t *testing.T) {
	store := openStore(t)
	cfg, _ := screenConfig(t, store)
	cfg.NewRunner = func(string) Runner { return downRunner{} }
	h := newHarness(t, cfg)
	h.runUntilShown("Ollama ready")
	h.sendText("ping while down")
	h.runUntilShown(hintNotSentOffline)
	h.drain()
	if got := h.m.input.Value(); got != "ping while down" || h.m.convID != "" {
		t.Fatalf("input %q, conversation %q", got, h.m.convID)
	}
	if list, err := store.ListConversations(context.Background(), testUser, memory.ListOptions{IncludeArchived: true}); err != nil || len(list) != 0 {
		t.Fatalf("conversations left: %+v %v", list, err)
	}
}

// TestOnlyAGrowingAnswerIsDrawnAsBeingWritten: an answer stopped earlier
// stays "(interrupted)" when another mneme adds a turn; one another mneme
// begins is drawn as being written until readings find it still, when its
// writer was stopped for good.
func TestOnlyAGrowingAnswerIsDrawnAsBeingWritten(t *testing.T) {
	ctx := context.Background()
	h, store, c := stoppedChat(t, "an old question", "stopped yesterday")
	h.runUntilShown("(interrupted)")
	for _, m := range []memory.Message{{Role: memory.RoleUser, Content: "a script's question"}, {Role: memory.RoleAssistant, Content: "a script's answer"}} {
		m.ConversationID = c.ID
		if _, err := store.AppendMessage(ctx, testUser, m); err != nil {
			t.Fatal(err)
		}
	}
	h.send(storeChangedMsg{})
	h.runUntilShown("a script's answer")
	if h.shows("still being written") {
		t.Fatalf("an answer stopped yesterday is drawn as being written:\n%s", h.screen())
	}
	// Another mneme begins an answer, and is killed before it ends.
	if _, err := store.AppendMessage(ctx, testUser, memory.Message{ConversationID: c.ID, Role: memory.RoleUser, Content: "a doomed question"}); err != nil {
		t.Fatal(err)
	}
	if _, err := store.AppendMessage(ctx, testUser, memory.Message{ConversationID: c.ID, Role: memory.RoleAssistant,
		Content: "the first words of a killed writer", Status: memory.StatusInterrupted}); err != nil {
		t.Fatal(err)
	}
	h.send(storeChangedMsg{})
	h.runUntilShown("the first words of a killed writer", "(still being written by another mneme…)")
	for range staleReads + 1 { // the re-readings its label schedules
		h.send(othersTickMsg{})
		for len(h.queue) > 0 {
			h.step()
		}
	}
	if h.shows("still being written") || strings.Count(h.screen(), "(interrupted)") != 2 {
		t.Fatalf("a stopped writer's answer is still drawn as being written:\n%s", h.screen())
	}
}

// waitedRunner waits for another mneme's answer, then answers.
type waitedRunner struct{ inner Runner }

func (w waitedRunner) Run(ctx context.Context, req agent.Request, emit func(agent.Event)) (agent.Result, error) {
	emit(agent.NoticeEvent{Text: "Another mneme is answering in this conversation: this prompt waits for its answer to end.", Passing: true})
	return w.inner.Run(ctx, req, emit)
}

// TestWaitNoticeGoesWhenTheWaitIsOver: the notice that a prompt waits for
// another mneme's answer is gone once its own answer comes: it no longer
// stands under an answer that did not wait.
func TestWaitNoticeGoesWhenTheWaitIsOver(t *testing.T) {
	store := openStore(t)
	c := storeConversation(t, store, "Shared", "first question here", "first answer here")
	cfg, _ := screenConfig(t, store)
	cfg.NewRunner, cfg.ConversationID = func(string) Runner { return waitedRunner{newFakeRunner(store, "my own ", "answer")} }, c.ID
	h := newHarness(t, cfg)
	h.runUntilShown("first answer here")
	h.sendText("a waiting question")
	h.runUntilShown("my own answer")
	h.runUntilIdle()
	if h.shows("this prompt waits") {
		t.Fatalf("the wait notice outlived the wait:\n%s", h.screen())
	}
}

// waitingRunner waits for its turn until stopped, then is not sent.
type waitingRunner struct{}

func (waitingRunner) Run(ctx context.Context, req agent.Request, emit func(agent.Event)) (agent.Result, error) {
	emit(agent.NoticeEvent{Text: "Another mneme is answering in this conversation: this prompt waits for its answer to end."})
	<-ctx.Done()
	return notSentRunner{}.Run(ctx, req, func(e agent.Event) {
		if _, ok := e.(agent.NoticeEvent); !ok {
			emit(e)
		}
	})
}

// A prompt stopped while it waited comes back before what was typed
// meanwhile, which stays.
func TestPromptNotSentKeepsTheDraftTypedMeanwhile(t *testing.T) {
	h := sharedChat(t, waitingRunner{})
	h.sendText("the waiting question")
	h.runUntilShown("this prompt waits")
	h.typeText("a draft of the next")
	h.send(keyEsc)
	h.runUntilShown(hintNotSent)
	for len(h.queue) > 0 {
		h.step()
	}
	if got := h.m.input.Value(); got != "the waiting question\n\na draft of the next" {
		t.Fatalf("the input holds %q", got)
	}
}

// failingRunner cannot store the prompt (a full disk): it says so.
type failingRunner struct{}

func (failingRunner) Run(_ context.Context, req agent.Request, emit func(agent.Event)) (agent.Result, error) {
	res := agent.Result{ConversationID: req.ConversationID}
	err := errors.New("store prompt: database or disk is full")
	emit(agent.ErrorEvent{Err: err, Result: res})
	return res, err
}

// A prompt that could not be stored stays on screen with its error: the
// conversation is not redrawn as stored, and no other mneme is blamed.
func TestPromptThatCouldNotBeStoredStaysWithItsError(t *testing.T) {
	h := sharedChat(t, failingRunner{})
	h.sendText("a question on a full disk")
	h.runUntilShown("database or disk is full")
	for len(h.queue) > 0 {
		h.step()
	}
	if !h.shows("a question on a full disk") || !h.shows("database or disk is full") || h.shows("Redrawn as stored") {
		t.Fatalf("the failed prompt or its error went:\n%s", h.screen())
	}
}

// TestAnAnswerBeingWrittenElsewhereIsDrawnSo: a conversation opened while
// another mneme answers in it (its turn lock held) draws the half-written
// answer as being written, not as interrupted; when nobody answers, the
// same answer reads as interrupted.
func TestAnAnswerBeingWrittenElsewhereIsDrawnSo(t *testing.T) {
	for _, answering := range []bool{true, false} {
		store := openStore(t)
		c := storeConversation(t, store, "Shared", "question ALPHA")
		if _, err := store.AppendMessage(context.Background(), testUser, memory.Message{ConversationID: c.ID, Role: memory.RoleAssistant,
			Content: "alpha first words", Status: memory.StatusInterrupted}); err != nil {
			t.Fatal(err)
		}
		cfg, _ := screenConfig(t, store)
		cfg.ConversationID = c.ID
		cfg.Answering = func(id string) bool { return answering && id == c.ID }
		h := newHarness(t, cfg)
		h.runUntilShown("alpha first words")
		if writing := h.shows("still being written by another mneme"); writing != answering || h.shows("(interrupted)") == answering {
			t.Fatalf("answering %v:\n%s", answering, h.screen())
		}
	}
}

// TestAnAnswerStaysBeingWrittenWhileItsWriterHoldsTheLock: another
// mneme's answer, saved once a second, read twice between two saves,
// stays drawn as being written while its turn lock is held (it read
// "(interrupted)" mid-stream); let go, the same answer reads interrupted.
func TestAnAnswerStaysBeingWrittenWhileItsWriterHoldsTheLock(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	c := storeConversation(t, store, "Shared", "first question here", "first answer here")
	var held atomic.Bool
	cfg, _ := screenConfig(t, store)
	cfg.ConversationID = c.ID
	cfg.Answering = func(id string) bool { return held.Load() && id == c.ID }
	h := newHarness(t, cfg)
	h.runUntilShown("first answer here")
	held.Store(true)
	for _, m := range []memory.Message{{Role: memory.RoleUser, Content: "from a script BETA"},
		{Role: memory.RoleAssistant, Content: "beta first words", Status: memory.StatusInterrupted}} {
		m.ConversationID = c.ID
		if _, err := store.AppendMessage(ctx, testUser, m); err != nil {
			t.Fatal(err)
		}
	}
	h.send(storeChangedMsg{})
	h.runUntilShown("beta first words", "(still being written by another mneme…)")
	for range staleReads + 1 { // no save between these readings
		h.send(othersTickMsg{})
		for len(h.queue) > 0 {
			h.step()
		}
	}
	if !h.shows("(still being written by another mneme…)") || h.shows("(interrupted)") {
		t.Fatalf("an answer whose writer holds the lock is drawn as stopped:\n%s", h.screen())
	}
	held.Store(false) // stopped for good, its answer left cut
	h.send(othersTickMsg{})
	for len(h.queue) > 0 {
		h.step()
	}
	if h.shows("still being written") || !h.shows("(interrupted)") {
		t.Fatalf("an answer nobody writes any more is drawn as being written:\n%s", h.screen())
	}
}
