package picker

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/internal/ollama"
	"github.com/mneme-dev/mneme/tui/internal/paneltest"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/styles"
)

var (
	chatModel  = ollama.ModelInfo{Name: "qwen2.5:7b", Size: 4_683_087_332, Capabilities: []string{"completion", "tools"}, ContextLength: 32768}
	tinyModel  = ollama.ModelInfo{Name: "stories260k:latest", Size: 1_185_376, Capabilities: []string{"completion"}}
	embedModel = ollama.ModelInfo{Name: "nomic-embed-text:latest", Size: 274_302_450, Capabilities: []string{"embedding"}}
)

func newPicker(t *testing.T, mgr ModelManager, clock *testClock, chat, embed string, w, h int) *component[ModelPicker] {
	st := styles.New(true)
	p := NewModelPicker(&st, ModelsConfig{Manager: mgr, Now: clock.Now})
	p.SetSize(w, h)
	c := newComponent(t, p, ModelPicker.Update, ModelPicker.Owns)
	var cmd tea.Cmd
	c.M, cmd = c.M.Open(chat, embed)
	c.Push(cmd)
	c.RunAll()
	return c
}

func TestModelPickerListsAndChooses(t *testing.T) {
	mgr := paneltest.NewFakeModels(chatModel, tinyModel, embedModel)
	c := newPicker(t, mgr, newTestClock(), "qwen2.5:7b", "", 80, 24)
	requireShows(t, c.M.View(), "qwen2.5:7b", "4.7 GB", "tools", "stories260k:latest", "1.2 MB",
		"nomic-embed-text:latest", "274 MB", "embedding", "✓ chat", "search keywords only", "3 installed")

	c.Send(keyDown) // stories260k
	c.Send(keyEnter)
	c.RunAll()
	if got := sent[ModelChosenMsg](c); len(got) != 1 || got[0] != (ModelChosenMsg{Chat: "stories260k:latest"}) {
		t.Fatalf("sent %+v, want the tiny model for chat", c.Out)
	}
	c.Send(keyRune('e')) // not an embedding model
	c.RunAll()
	if len(sent[ModelChosenMsg](c)) != 1 {
		t.Fatalf("a chat model was chosen for embeddings: %+v", c.Out)
	}
	requireShows(t, c.M.View(), "stories260k:latest does not make embeddings")

	c.Send(keyDown) // nomic-embed-text
	c.Send(keyEnter)
	requireShows(t, c.M.View(), "cannot chat")
	c.Send(keyRune('e'))
	c.RunAll()
	got := sent[ModelChosenMsg](c)
	if want := (ModelChosenMsg{Chat: "stories260k:latest", Embed: "nomic-embed-text:latest"}); got[len(got)-1] != want {
		t.Fatalf("sent %+v, want %+v", got[len(got)-1], want)
	}
	requireShows(t, c.M.View(), "✓ search", "search nomic-embed-text:latest")
	c.Send(keyEsc)
	c.RunAll()
	if len(sent[panel.CloseOverlayMsg](c)) != 1 {
		t.Fatalf("esc sent %+v, want panel.CloseOverlayMsg", c.Out)
	}
}

// TestModelPickerOpensOnTheModelInUse: the list lands on the chat model in
// use, not on the first listed, each time the picker opens.
func TestModelPickerOpensOnTheModelInUse(t *testing.T) {
	mgr := paneltest.NewFakeModels(chatModel, tinyModel, embedModel)
	c := newPicker(t, mgr, newTestClock(), "stories260k", "", 80, 24)
	if got := c.M.models[c.M.list.Index()].Name; got != "stories260k:latest" {
		t.Fatalf("opened on %q", got)
	}
	c.Send(paneltest.KeyUp)
	var cmd tea.Cmd
	c.M, cmd = c.M.Open("stories260k:latest", "")
	c.Push(cmd)
	c.RunAll()
	if got := c.M.models[c.M.list.Index()].Name; got != "stories260k:latest" {
		t.Fatalf("opened again on %q", got)
	}
}

// startPull opens the name box (with the suggested default) and starts the
// pull; it returns once the pull waits for progress.
func startPull(t *testing.T, c *component[ModelPicker], want string) {
	t.Helper()
	c.Send(keyRune('p'))
	if !c.M.InputFocused() {
		t.Fatal("p did not open the name box")
	}
	if got := c.M.name.Value(); got != want {
		t.Fatalf("suggested %q, want %q", got, want)
	}
	c.Send(keyEnter)
	c.Step() // starts the goroutine; queues the wait for reports
	if !c.M.Pulling() || len(c.Queue) != 1 {
		t.Fatalf("pulling %v with %d commands queued", c.M.Pulling(), len(c.Queue))
	}
}

func TestModelPickerPullShowsProgressAndChoosesTheModel(t *testing.T) {
	mgr := paneltest.NewFakeModels()
	clock := newTestClock()
	c := newPicker(t, mgr, clock, "", "", 80, 24)
	requireShows(t, c.M.View(), "No chat model installed: press p to pull llama3.2.", "No models installed")
	startPull(t, c, ollama.DefaultChatModel)

	const total = 2_000_000_000
	digest := "sha256:dde5aa3fc5ff"
	mgr.Send(t, ollama.PullProgress{Status: "pulling manifest"})
	c.Step()
	requireShows(t, c.M.View(), "Pulling llama3.2 · pulling manifest", "waiting for the download to start")
	mgr.Send(t, ollama.PullProgress{Status: "pulling dde5aa3fc5ff", Digest: digest, Total: total, Completed: 0})
	c.Step()
	clock.Advance(10 * time.Second)
	mgr.Send(t, ollama.PullProgress{Status: "pulling dde5aa3fc5ff", Digest: digest, Total: total, Completed: total / 4})
	c.Step()
	view := plain(c.M.View())
	requireShows(t, view, "500 MB / 2.0 GB · 25%", "50 MB/s", "ETA 30s")
	full, empty := strings.Count(view, "█"), strings.Count(view, "░")
	if full == 0 || empty == 0 || full*4 < (full+empty)-2 || full*4 > (full+empty)+2 {
		t.Fatalf("bar has %d full and %d empty cells, want a quarter full:\n%s", full, empty, view)
	}
	if got := c.M.PullPercent(); got != 0.25 {
		t.Fatalf("percent %v, want 0.25", got)
	}
	clock.Advance(10 * time.Second)
	mgr.Send(t, ollama.PullProgress{Status: "pulling dde5aa3fc5ff", Digest: digest, Total: total, Completed: total})
	c.Step()
	requireShows(t, c.M.View(), "2.0 GB / 2.0 GB · 100%")
	mgr.Send(t, ollama.PullProgress{Status: "success"})
	c.Step()
	mgr.End(t, nil)
	c.RunAll()
	if c.M.Pulling() {
		t.Fatal("still pulling after success")
	}
	// The pulled model is listed and takes the empty chat role.
	if got := sent[ModelChosenMsg](c); len(got) != 1 || got[0] != (ModelChosenMsg{Chat: "llama3.2:latest"}) {
		t.Fatalf("sent %+v, want llama3.2 chosen for chat", c.Out)
	}
	requireShows(t, c.M.View(), "Pulled llama3.2.", "✓ Pulled llama3.2 (2.0 GB).", "llama3.2:latest", "✓ chat",
		"No embedding model: press p to pull nomic-embed-text.")

	// Then the embedding model is offered.
	startPull(t, c, ollama.DefaultEmbedModel)
	mgr.End(t, nil)
	c.RunAll()
	got := sent[ModelChosenMsg](c)
	if want := (ModelChosenMsg{Chat: "llama3.2:latest", Embed: "nomic-embed-text:latest"}); got[len(got)-1] != want {
		t.Fatalf("sent %+v, want %+v", got[len(got)-1], want)
	}
}

func TestModelPickerEscCancelsThePull(t *testing.T) {
	mgr := paneltest.NewFakeModels(chatModel)
	c := newPicker(t, mgr, newTestClock(), "qwen2.5:7b", "", 80, 24)
	startPull(t, c, ollama.DefaultEmbedModel)
	mgr.Send(t, ollama.PullProgress{Status: "pulling 970aa74c0a90", Digest: "sha256:970aa74c0a90", Total: 274_302_450, Completed: 1_000_000})
	c.Step()
	requireShows(t, c.M.View(), "Pulling nomic-embed-text", "esc cancel pull")

	c.Send(keyEsc)
	if err := mgr.WaitReturned(t); !errors.Is(err, context.Canceled) {
		t.Fatalf("the pull returned %v, want its context cancelled", err)
	}
	if c.M.Pulling() {
		t.Fatal("still pulling after esc")
	}
	requireShows(t, c.M.View(), "Pull of nomic-embed-text cancelled.")
	if len(sent[panel.CloseOverlayMsg](c)) != 0 {
		t.Fatal("esc during a pull closed the picker")
	}
	// The cancelled pull's last wait ends without effect.
	c.RunAll()
	if c.M.Pulling() || len(sent[ModelChosenMsg](c)) != 0 {
		t.Fatalf("the cancelled pull had an effect: pulling %v, sent %+v", c.M.Pulling(), c.Out)
	}
	// A second esc closes.
	c.Send(keyEsc)
	c.RunAll()
	if len(sent[panel.CloseOverlayMsg](c)) != 1 {
		t.Fatalf("sent %+v, want panel.CloseOverlayMsg", c.Out)
	}
}

func TestModelPickerPullFailure(t *testing.T) {
	mgr := paneltest.NewFakeModels(chatModel, embedModel)
	c := newPicker(t, mgr, newTestClock(), "qwen2.5:7b", "nomic-embed-text:latest", 80, 24)
	c.Send(keyRune('p'))
	if c.M.name.Value() != "" {
		t.Fatalf("suggested %q with both kinds installed", c.M.name.Value())
	}
	c.TypeText("no-such-model")
	c.Send(keyEnter)
	c.Step()
	mgr.End(t, errors.New("pull model manifest: file does not exist"))
	c.RunAll()
	requireShows(t, c.M.View(), "Pull of no-such-model failed: pull model manifest: file does not exist")
	if c.M.Pulling() {
		t.Fatal("still pulling after a failure")
	}
}

func TestModelPickerGolden(t *testing.T) {
	t.Run("models_pull_80x24", func(t *testing.T) {
		mgr := paneltest.NewFakeModels(tinyModel, embedModel)
		clock := newTestClock()
		c := newPicker(t, mgr, clock, "stories260k:latest", "nomic-embed-text:latest", 80, 24)
		c.Send(keyRune('p'))
		c.Send(tea.KeyPressMsg{Code: tea.KeyBackspace, Mod: tea.ModCtrl}) // clear the suggestion, if any
		c.TypeText("llama3.2")
		c.Send(keyEnter)
		c.Step()
		digest := "sha256:dde5aa3fc5ff"
		mgr.Send(t, ollama.PullProgress{Status: "pulling dde5aa3fc5ff", Digest: digest, Total: 2_019_393_189, Completed: 0})
		c.Step()
		clock.Advance(20 * time.Second)
		mgr.Send(t, ollama.PullProgress{Status: "pulling dde5aa3fc5ff", Digest: digest, Total: 2_019_393_189, Completed: 1_211_635_913})
		c.Step()
		view := c.M.View()
		requireSize(t, view, 80, 24)
		requireGolden(t, "models_pull_80x24", view)
		c.Send(keyEsc)
		mgr.WaitReturned(t)
	})
	t.Run("models_first_run_60x20", func(t *testing.T) {
		c := newPicker(t, paneltest.NewFakeModels(), newTestClock(), "", "", 60, 20)
		view := c.M.View()
		requireSize(t, view, 60, 20)
		requireGolden(t, "models_first_run_60x20", view)
	})
}

// TestOverlaysRestyleKeepState checks that a change of background keeps
// what the model picker holds (a pull goes on).
func TestOverlaysRestyleKeepState(t *testing.T) {
	light := styles.New(false)
	clock := newTestClock()
	mgr := paneltest.NewFakeModels(chatModel)
	p := newPicker(t, mgr, clock, "", "", 80, 24)
	startPull(t, p, ollama.DefaultEmbedModel)
	p.M.Restyle(&light)
	if !p.M.Pulling() {
		t.Fatal("restyle stopped the pull")
	}
	p.Send(keyEsc)
	mgr.WaitReturned(t)
}

// TestModelPickerInALowWindowListsWhatFits: too low for its hint and help
// lines, the picker gives their rows to the list (at 40×12 it showed one
// model of two, above empty rows).
func TestModelPickerInALowWindowListsWhatFits(t *testing.T) {
	mgr := paneltest.NewFakeModels(chatModel, embedModel)
	for _, h := range []int{9, 10, 12} { // without, and with, its hint and help lines
		c := newPicker(t, mgr, newTestClock(), "qwen2.5:7b", "", 40, h)
		requireShows(t, c.M.View(), "2 installed", "qwen2.5", "nomic-em")
		if n := strings.Count(c.M.View(), "\n") + 1; n != h {
			t.Fatalf("the picker draws %d rows in %d:\n%s", n, h, c.M.View())
		}
	}
}
