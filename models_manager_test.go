package main

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/tui"
)

func fakeClient(t *testing.T, srv *fakeollama.Server) *api.Client {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(u, http.DefaultClient)
}

func TestModelManagerListsCapabilitiesAndSizes(t *testing.T) {
	srv := fakeollama.New(t, fakeollama.WithModels(
		fakeollama.Model{Name: "llama3.2", Capabilities: []string{"completion", "tools"}, Size: 2_019_393_189, ContextLength: 131072},
		fakeollama.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}, Size: 274_302_450, Family: "bert"},
	))
	models, err := newModelManager(fakeClient(t, srv)).List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []tui.ModelInfo{
		{Name: "llama3.2:latest", Size: 2_019_393_189, Capabilities: []string{"completion", "tools"}, ContextLength: 131072},
		{Name: "nomic-embed-text:latest", Size: 274_302_450, Capabilities: []string{"embedding"}, ContextLength: 4096},
	}
	if len(models) != len(want) {
		t.Fatalf("listed %+v", models)
	}
	for i := range want {
		m := models[i]
		if m.Name != want[i].Name || m.Size != want[i].Size || !slices.Equal(m.Capabilities, want[i].Capabilities) || m.ContextLength != want[i].ContextLength {
			t.Errorf("model %d = %+v, want %+v", i, m, want[i])
		}
	}
	if !models[0].CanChat() || models[0].CanEmbed() || !models[1].CanEmbed() || models[1].CanChat() {
		t.Errorf("capabilities read wrong: %+v", models)
	}
}

func TestModelManagerPullReportsProgress(t *testing.T) {
	srv := fakeollama.New(t, fakeollama.WithModels(), fakeollama.WithRegistry(
		fakeollama.Model{Name: "llama3.2", Capabilities: []string{"completion", "tools"}, Size: 2_000_000}))
	mgr := newModelManager(fakeClient(t, srv))
	var reports []tui.PullProgress
	if err := mgr.Pull(context.Background(), "llama3.2", func(p tui.PullProgress) { reports = append(reports, p) }); err != nil {
		t.Fatal(err)
	}
	var sized []int64
	for _, r := range reports {
		if r.Total > 0 {
			if r.Total != 2_000_000 || r.Digest == "" {
				t.Errorf("report %+v", r)
			}
			sized = append(sized, r.Completed)
		}
	}
	if !slices.Equal(sized, []int64{0, 1_000_000, 2_000_000}) {
		t.Errorf("completed bytes %v over %+v", sized, reports)
	}
	if last := reports[len(reports)-1]; last.Status != "success" {
		t.Errorf("last report %+v, want success", last)
	}
	models, err := mgr.List(context.Background())
	if err != nil || len(models) != 1 || models[0].Name != "llama3.2:latest" {
		t.Fatalf("after the pull: %+v, %v", models, err)
	}

	if err := mgr.Pull(context.Background(), "no-such-model", func(tui.PullProgress) {}); err == nil {
		t.Fatal("pulling a model the registry lacks succeeded")
	}
}

func TestModelManagerPullCancels(t *testing.T) {
	srv := fakeollama.New(t, fakeollama.WithModels(), fakeollama.WithRegistry(
		fakeollama.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}, Size: 1_000_000}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	err := newModelManager(fakeClient(t, srv)).Pull(ctx, "nomic-embed-text", func(tui.PullProgress) {
		calls++
		cancel() // the user pressed Esc at the first report
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("pull returned %v, want context.Canceled", err)
	}
	if calls != 1 {
		t.Fatalf("%d reports after cancelling at the first", calls)
	}
}

// TestModelPickerPullsThroughOllama drives the TUI's model picker with the
// real adapter against the fake server: the pull streams progress into the
// bar, and the pulled model is chosen for the empty chat role.
func TestModelPickerPullsThroughOllama(t *testing.T) {
	srv := fakeollama.New(t, fakeollama.WithModels(), fakeollama.WithRegistry(
		fakeollama.Model{Name: "llama3.2", Capabilities: []string{"completion", "tools"}, Size: 2_000_000}))
	st := tui.NewStyles(true)
	p := tui.NewModelPicker(&st, tui.ModelsConfig{Manager: newModelManager(fakeClient(t, srv))})
	p.SetSize(80, 24)
	p, cmd := p.Open("", "")

	var (
		queue    = []tea.Cmd{cmd}
		out      []tea.Msg
		percents []float64
	)
	press := func(k tea.KeyPressMsg) {
		var c tea.Cmd
		p, c = p.Update(k)
		queue = append(queue, c)
	}
	run := func() {
		for steps := 0; len(queue) > 0; steps++ {
			if steps > 100 {
				t.Fatal("the picker does not settle")
			}
			c := queue[0]
			queue = queue[1:]
			if c == nil {
				continue
			}
			msg := c()
			if b, ok := msg.(tea.BatchMsg); ok {
				queue = append(queue, b...)
				continue
			}
			if !p.Owns(msg) {
				out = append(out, msg)
				continue
			}
			var next tea.Cmd
			p, next = p.Update(msg)
			if p.Pulling() {
				percents = append(percents, p.PullPercent())
			}
			queue = append(queue, next)
		}
	}
	run()
	press(tea.KeyPressMsg{Code: 'p', Text: "p"}) // the name box offers llama3.2
	press(tea.KeyPressMsg{Code: tea.KeyEnter})
	run()

	if !slices.Equal(srv.Pulls(), []string{tui.DefaultChatModel}) {
		t.Fatalf("pulls %q", srv.Pulls())
	}
	if got := p.PullPercent(); got != 1 {
		t.Fatalf("bar at %v after the pull (went through %v), want 100%%", got, percents)
	}
	if view := ansi.Strip(p.View()); !strings.Contains(view, "✓ Pulled llama3.2 (2.0 MB).") {
		t.Fatalf("after the pull:\n%s", view)
	}
	var chosen []tui.ModelChosenMsg
	for _, m := range out {
		if m, ok := m.(tui.ModelChosenMsg); ok {
			chosen = append(chosen, m)
		}
	}
	if len(chosen) != 1 || chosen[0].Chat != "llama3.2:latest" {
		t.Fatalf("sent %+v, want llama3.2 chosen for chat", out)
	}
	if p.Pulling() || len(p.Models()) != 1 {
		t.Fatalf("after the pull: pulling %v, models %+v", p.Pulling(), p.Models())
	}
}
