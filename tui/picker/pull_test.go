package picker_test

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/internal/ollama"
	"github.com/mneme-dev/mneme/tui/picker"
	"github.com/mneme-dev/mneme/tui/styles"
)

func fakeClient(t *testing.T, srv *fakeollama.Server) *api.Client {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(u, http.DefaultClient)
}

// TestModelPickerPullsThroughOllama drives the TUI's model picker with the
// real adapter against the fake server: the pull streams progress into the
// bar, and the pulled model is chosen for the empty chat role.
func TestModelPickerPullsThroughOllama(t *testing.T) {
	srv := fakeollama.New(t, fakeollama.WithModels(), fakeollama.WithRegistry(
		fakeollama.Model{Name: "llama3.2", Capabilities: []string{"completion", "tools"}, Size: 2_000_000}))
	st := styles.New(true)
	p := picker.NewModelPicker(&st, picker.ModelsConfig{Manager: ollama.Models{Client: fakeClient(t, srv)}})
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

	if !slices.Equal(srv.Pulls(), []string{ollama.DefaultChatModel}) {
		t.Fatalf("pulls %q", srv.Pulls())
	}
	if got := p.PullPercent(); got != 1 {
		t.Fatalf("bar at %v after the pull (went through %v), want 100%%", got, percents)
	}
	if view := ansi.Strip(p.View()); !strings.Contains(view, "✓ Pulled llama3.2 (2.0 MB).") {
		t.Fatalf("after the pull:\n%s", view)
	}
	var chosen []picker.ModelChosenMsg
	for _, m := range out {
		if m, ok := m.(picker.ModelChosenMsg); ok {
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
