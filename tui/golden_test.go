package tui

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/mneme-dev/mneme/tui/internal/paneltest"
	"github.com/mneme-dev/mneme/tui/keyhelp"
	"github.com/mneme-dev/mneme/tui/statusline"
	"github.com/mneme-dev/mneme/tui/styles"
)

// update is -update (registered by paneltest, which the tests link in).
var update = paneltest.Update

// requireGolden compares got, downsampled to a colourless terminal (bold,
// italics and the like stay, colours go), with testdata/<name>.golden.
func requireGolden(t *testing.T, name, got string) {
	t.Helper()
	var b strings.Builder
	w := colorprofile.Writer{Forward: &b, Profile: colorprofile.ASCII}
	if _, err := w.WriteString(got); err != nil {
		t.Fatal(err)
	}
	got = b.String()
	path := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s (run go test -update after checking the change)\ngot:\n%s\nwant:\n%s",
			name, path, got, want)
	}
}

func TestStatusLineGolden(t *testing.T) {
	st := styles.New(true)
	tests := []struct {
		name  string
		width int
		info  statusline.Info
	}{
		{"connecting", 80, statusline.Info{Ollama: statusline.OllamaConnecting}},
		{"ready", 80, statusline.Info{Model: "llama3.2", Ollama: statusline.OllamaReady, Version: "0.6.5", Title: "Goroutines and channels"}},
		{"generating", 80, statusline.Info{Model: "llama3.2", Ollama: statusline.OllamaReady, Version: "0.6.5", Title: "Goroutines and channels", Activity: "generating", Spinner: "⠋"}},
		{"offline", 80, statusline.Info{Ollama: statusline.OllamaOffline}},
		{"reprobing", 80, statusline.Info{Ollama: statusline.OllamaConnecting, Activity: "connecting", Spinner: "⠋"}},
		{"long_title_60", 60, statusline.Info{Model: "qwen2.5:14b-instruct", Ollama: statusline.OllamaReady, Version: "0.12.3",
			Title: "A very long conversation title that cannot fit in sixty columns", Activity: "generating", Spinner: "⠋"}},
		{"narrow_30", 30, statusline.Info{Model: "llama3.2", Ollama: statusline.OllamaReady, Version: "0.6.5", Title: "Title", Activity: "generating", Spinner: "⠋"}},
		{"memory_100", 100, statusline.Info{Model: "llama3.2", Ollama: statusline.OllamaReady, Version: "0.6.5", Title: "Goroutines and channels",
			Context: 43, Memory: statusline.Memory{Known: true, Embed: statusline.EmbedReady, Notes: 12}}},
		{"pending_sync_100", 100, statusline.Info{Model: "llama3.2", Ollama: statusline.OllamaReady, Version: "0.6.5", Title: "Goroutines and channels",
			Context: 81, Memory: statusline.Memory{Known: true, Embed: statusline.EmbedPending, Pending: 37, Notes: 1}, Sync: "pending 3",
			Activity: "generating", Spinner: "⠋"}},
		{"keyword_only_80", 80, statusline.Info{Model: "llama3.2", Ollama: statusline.OllamaReady, Version: "0.6.5", Title: "Goroutines and channels",
			Memory: statusline.Memory{Known: true, Embed: statusline.EmbedKeywordOnly}}},
		{"paused_pulling_80", 80, statusline.Info{Model: "llama3.2", Ollama: statusline.OllamaReady, Version: "0.6.5", Title: "Lisbon",
			Memory: statusline.Memory{Known: true, Embed: statusline.EmbedPaused, Notes: 4}, Pull: "pulling nomic-embed-text 42%"}},
		{"context_window_100", 100, statusline.Info{Model: "llama3.2", Ollama: statusline.OllamaReady, Version: "0.6.5", Title: "Goroutines and channels",
			Context: 3, Window: 8192, Memory: statusline.Memory{Known: true, Embed: statusline.EmbedReady, Notes: 12}}},
		{"memory_60", 60, statusline.Info{Model: "llama3.2", Ollama: statusline.OllamaReady, Version: "0.6.5", Title: "Goroutines and channels",
			Context: 43, Memory: statusline.Memory{Known: true, Embed: statusline.EmbedPending, Pending: 5, Notes: 12}, Sync: "synced"}},
		{"review_100", 100, statusline.Info{Model: "llama3.2", Ollama: statusline.OllamaReady, Version: "0.6.5", Title: "Goroutines and channels",
			Memory: statusline.Memory{Known: true, Embed: statusline.EmbedReady, Notes: 12, Review: 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := statusline.Render(&st, tt.width, tt.info)
			if w := visibleWidth(got); w > tt.width {
				t.Errorf("status line is %d wide, more than %d", w, tt.width)
			}
			requireGolden(t, "status_"+tt.name, got)
		})
	}
}

func TestKeyHelpGolden(t *testing.T) {
	st := styles.New(true)
	h := help.New()
	h.Styles = st.Help
	for _, running := range []bool{false, true} {
		keys := DefaultKeyMap()
		keys.Cancel.SetEnabled(running)
		for _, width := range []int{40, 60, 80} {
			name := fmt.Sprintf("help_idle_%d", width)
			if running {
				name = fmt.Sprintf("help_running_%d", width)
			}
			t.Run(name, func(t *testing.T) {
				h.SetWidth(width)
				got := keyhelp.Fit(h, keys.ShortHelp())
				if w := visibleWidth(got); w > width {
					t.Errorf("help is %d wide, more than %d", w, width)
				}
				requireGolden(t, name, got)
			})
		}
	}
}

func TestTranscriptGolden(t *testing.T) {
	store := openStore(t)
	conv := seedConversation(t, store)
	cfg := config(store, newFakeRunner(store), readyProbe)
	cfg.ConversationID = conv.ID
	h := newHarness(t, cfg)
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.runUntil("history and probe", func() bool { return !h.m.loading && !h.m.probing })
	requireGolden(t, "transcript_80", h.m.transcript.View())
}

func TestScreenGolden(t *testing.T) {
	store := openStore(t)
	conv := seedConversation(t, store)
	cfg := config(store, newFakeRunner(store), offlineProbe)
	cfg.ConversationID = conv.ID
	h := newHarness(t, cfg)
	h.send(tea.WindowSizeMsg{Width: 60, Height: 20})
	h.runUntil("history and probe", func() bool { return !h.m.loading && !h.m.probing })
	h.typeText("a prompt that waits")
	requireGolden(t, "screen_offline_60x20", h.m.View().Content)
}

func visibleWidth(s string) int {
	w := 0
	for _, l := range strings.Split(s, "\n") {
		w = max(w, lipgloss.Width(l))
	}
	return w
}
