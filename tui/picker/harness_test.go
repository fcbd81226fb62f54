// This file is a copy of the panel test harness shared by tui/search,
// tui/notes, tui/picker and tui/sidebar (each drives its panel alone).
package picker

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/memory"
)

// component drives an overlay the way the root model would: it calls
// Update, queues the returned commands and runs them one at a time on
// request. A message the overlay owns is fed back to it; any other
// (panel.OpenTurnMsg, panel.CloseOverlayMsg, ...) is for the root and is collected.
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

const (
	testUser = "alice"
	// maxSteps bounds the commands a harness runs in one runUntil.
	maxSteps = 500
	// cmdTimeout is a watchdog: a command blocking this long is a bug.
	cmdTimeout = 10 * time.Second
)

// Keys as the terminal reports them.
var (
	keyEnter = tea.KeyPressMsg{Code: tea.KeyEnter}
	keyEsc   = tea.KeyPressMsg{Code: tea.KeyEscape}
	keyPgUp  = tea.KeyPressMsg{Code: tea.KeyPgUp}
)

// runCmd runs a command, failing the test if it blocks.
func runCmd(t *testing.T, cmd tea.Cmd) tea.Msg {
	t.Helper()
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	select {
	case msg := <-done:
		return msg
	case <-time.After(cmdTimeout):
		t.Fatalf("a command blocked for %v", cmdTimeout)
		return nil
	}
}

// cmdSlice unpacks the unexported message of tea.Sequence.
func cmdSlice(msg tea.Msg) ([]tea.Cmd, bool) {
	v := reflect.ValueOf(msg)
	if v.Kind() != reflect.Slice || v.Type().Elem() != reflect.TypeFor[tea.Cmd]() {
		return nil, false
	}
	out := make([]tea.Cmd, v.Len())
	for i := range out {
		out[i] = v.Index(i).Interface().(tea.Cmd)
	}
	return out, true
}

func visibleWidth(s string) int {
	w := 0
	for _, l := range strings.Split(s, "\n") {
		w = max(w, lipgloss.Width(l))
	}
	return w
}

// goldenDir is the chat's one directory of golden files.
const goldenDir = "../testdata"

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// requireGolden compares got, downsampled to a colourless terminal (bold,
// italics and the like stay, colours go), with <goldenDir>/<name>.golden.
func requireGolden(t *testing.T, name, got string) {
	t.Helper()
	var b strings.Builder
	w := colorprofile.Writer{Forward: &b, Profile: colorprofile.ASCII}
	if _, err := w.WriteString(got); err != nil {
		t.Fatal(err)
	}
	got = b.String()
	path := filepath.Join(goldenDir, name+".golden")
	if *update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
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

func keyRune(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

var (
	keyDown = tea.KeyPressMsg{Code: tea.KeyDown}
	keyUp   = tea.KeyPressMsg{Code: tea.KeyUp}
)

func openStore(t *testing.T) *memory.Store {
	t.Helper()
	s, err := memory.Open(context.Background(), filepath.Join(t.TempDir(), "mneme.db"))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}
