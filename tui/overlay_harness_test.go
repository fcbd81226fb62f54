package tui

import (
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/internal/ollama"
	"github.com/mneme-dev/mneme/memory/index"
)

// component drives an overlay the way the root model would: it calls
// Update, queues the returned commands and runs them one at a time on
// request. A message the overlay owns is fed back to it; any other
// (OpenTurnMsg, CloseOverlayMsg, ...) is for the root and is collected.
type component[T any] struct {
	t      *testing.T
	m      T
	update func(T, tea.Msg) (T, tea.Cmd)
	owns   func(T, tea.Msg) bool
	queue  []tea.Cmd
	out    []tea.Msg
}

func newComponent[T any](t *testing.T, m T, update func(T, tea.Msg) (T, tea.Cmd), owns func(T, tea.Msg) bool) *component[T] {
	return &component[T]{t: t, m: m, update: update, owns: owns}
}

// send delivers msg to Update and queues the command it returns.
func (c *component[T]) send(msg tea.Msg) {
	c.t.Helper()
	var cmd tea.Cmd
	c.m, cmd = c.update(c.m, msg)
	c.push(cmd)
}

// sendCmd queues cmd as if Update had returned it.
func (c *component[T]) push(cmd tea.Cmd) {
	if cmd != nil {
		c.queue = append(c.queue, cmd)
	}
}

func (c *component[T]) typeText(s string) {
	c.t.Helper()
	for _, r := range s {
		c.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// take removes and returns the oldest queued command.
func (c *component[T]) take() tea.Cmd {
	c.t.Helper()
	if len(c.queue) == 0 {
		c.t.Fatal("no command queued")
	}
	cmd := c.queue[0]
	c.queue = c.queue[1:]
	return cmd
}

// step runs the oldest queued command and handles its message.
func (c *component[T]) step() {
	c.t.Helper()
	c.handle(runCmd(c.t, c.take()))
}

func (c *component[T]) handle(msg tea.Msg) {
	c.t.Helper()
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, cmd := range msg {
			c.push(cmd)
		}
	default:
		if cmds, ok := cmdSlice(msg); ok {
			for _, cmd := range cmds {
				c.push(cmd)
			}
			return
		}
		if c.owns(c.m, msg) {
			c.send(msg)
			return
		}
		c.out = append(c.out, msg)
	}
}

// runAll runs queued commands until none is left.
func (c *component[T]) runAll() {
	c.t.Helper()
	for range maxSteps {
		if len(c.queue) == 0 {
			return
		}
		c.step()
	}
	c.t.Fatalf("still %d commands queued after %d steps", len(c.queue), maxSteps)
}

// runUntil runs queued commands until cond holds.
func (c *component[T]) runUntil(what string, cond func() bool) {
	c.t.Helper()
	for range maxSteps {
		if cond() {
			return
		}
		if len(c.queue) == 0 {
			c.t.Fatalf("waiting for %s: no commands left", what)
		}
		c.step()
	}
	c.t.Fatalf("waiting for %s: still false after %d commands", what, maxSteps)
}

// sent returns the messages for the root of type M.
func sent[M any, T any](c *component[T]) []M {
	var out []M
	for _, m := range c.out {
		if m, ok := m.(M); ok {
			out = append(out, m)
		}
	}
	return out
}

// testClock is a settable clock whose ticks fire as soon as their command
// runs, recording the delays asked for.
type testClock struct {
	mu     sync.Mutex
	now    time.Time
	delays []time.Duration
}

func newTestClock() *testClock {
	return &testClock{now: time.Date(2026, 3, 14, 15, 0, 0, 0, time.UTC)}
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func (c *testClock) Tick(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
	c.mu.Lock()
	c.delays = append(c.delays, d)
	c.mu.Unlock()
	return func() tea.Msg { return fn(c.Now()) }
}

// plain is a view as a person reads it.
func plain(view string) string { return ansi.Strip(view) }

// requireSize checks that a view is exactly width×height cells at most.
func requireSize(t *testing.T, view string, width, height int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != height {
		t.Errorf("view has %d rows, want %d:\n%s", len(lines), height, plain(view))
	}
	if w := visibleWidth(view); w > width {
		t.Errorf("view is %d wide, more than %d:\n%s", w, width, plain(view))
	}
}

func requireShows(t *testing.T, view string, texts ...string) {
	t.Helper()
	s := plain(view)
	for _, x := range texts {
		if !strings.Contains(s, x) {
			t.Fatalf("%q not on screen:\n%s", x, s)
		}
	}
}

func must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

// TestOverlaysRestyleKeepState checks that a change of background keeps
// what the overlays hold.
func TestOverlaysRestyleKeepState(t *testing.T) {
	light := NewStyles(false)
	clock := newTestClock()
	f := &fakeSearcher{results: map[string][]index.SearchResult{"channel": sampleResults(clock.Now())}}
	s := newSearch(t, f, clock, 80, 24)
	s.typeText("channel")
	s.runAll()
	s.m.Restyle(&light)
	if s.m.Query() != "channel" || len(s.m.Results()) != 3 {
		t.Fatalf("search after restyle: %q, %d results", s.m.Query(), len(s.m.Results()))
	}
	requireShows(t, s.m.View(), "Goroutines and channels")

	b := newBrowser(t, staticNotes{sampleNotes(clock.Now())}, nil, clock, 80, 24)
	b.send(keyRune('e'))
	b.m.Restyle(&light)
	requireShows(t, b.m.View(), "Edit note", "Is allergic to peanuts.")

	mgr := newFakeModels(chatModel)
	p := newPicker(t, mgr, clock, "", "", 80, 24)
	startPull(t, p, ollama.DefaultEmbedModel)
	p.m.Restyle(&light)
	if !p.m.Pulling() {
		t.Fatal("restyle stopped the pull")
	}
	p.send(keyEsc)
	mgr.waitReturned(t)
}
