// Package paneltest is the test harness the panel packages share
// (tui/search, tui/notes, tui/picker, tui/sidebar): it drives a panel
// alone, the way the root model would, with a settable clock, and checks
// views against the chat's golden files. Only tests import it.
package paneltest

import (
	"context"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/internal/ollama"
	"github.com/mneme-dev/mneme/memory"
)

// Component drives an overlay the way the root model would: it calls
// Update, queues the returned commands and runs them one at a time on
// request. A message the overlay owns is fed back to it; any other
// (panel.OpenTurnMsg, panel.CloseOverlayMsg, ...) is for the root and is collected.
type Component[T any] struct {
	t      *testing.T
	M      T // the panel
	update func(T, tea.Msg) (T, tea.Cmd)
	owns   func(T, tea.Msg) bool
	Queue  []tea.Cmd
	Out    []tea.Msg // messages for the root
}

func NewComponent[T any](t *testing.T, m T, update func(T, tea.Msg) (T, tea.Cmd), owns func(T, tea.Msg) bool) *Component[T] {
	return &Component[T]{t: t, M: m, update: update, owns: owns}
}

// Send delivers msg to Update and queues the command it returns.
func (c *Component[T]) Send(msg tea.Msg) {
	c.t.Helper()
	var cmd tea.Cmd
	c.M, cmd = c.update(c.M, msg)
	c.Push(cmd)
}

// sendCmd queues cmd as if Update had returned it.
func (c *Component[T]) Push(cmd tea.Cmd) {
	if cmd != nil {
		c.Queue = append(c.Queue, cmd)
	}
}

func (c *Component[T]) TypeText(s string) {
	c.t.Helper()
	for _, r := range s {
		c.Send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// Take removes and returns the oldest queued command.
func (c *Component[T]) Take() tea.Cmd {
	c.t.Helper()
	if len(c.Queue) == 0 {
		c.t.Fatal("no command queued")
	}
	cmd := c.Queue[0]
	c.Queue = c.Queue[1:]
	return cmd
}

// Step runs the oldest queued command and handles its message.
func (c *Component[T]) Step() {
	c.t.Helper()
	c.Handle(RunCmd(c.t, c.Take()))
}

func (c *Component[T]) Handle(msg tea.Msg) {
	c.t.Helper()
	switch msg := msg.(type) {
	case nil:
	case tea.BatchMsg:
		for _, cmd := range msg {
			c.Push(cmd)
		}
	default:
		if cmds, ok := CmdSlice(msg); ok {
			for _, cmd := range cmds {
				c.Push(cmd)
			}
			return
		}
		if c.owns(c.M, msg) {
			c.Send(msg)
			return
		}
		c.Out = append(c.Out, msg)
	}
}

// RunAll runs queued commands until none is left.
func (c *Component[T]) RunAll() {
	c.t.Helper()
	for range MaxSteps {
		if len(c.Queue) == 0 {
			return
		}
		c.Step()
	}
	c.t.Fatalf("still %d commands queued after %d steps", len(c.Queue), MaxSteps)
}

// RunUntil runs queued commands until cond holds.
func (c *Component[T]) RunUntil(what string, cond func() bool) {
	c.t.Helper()
	for range MaxSteps {
		if cond() {
			return
		}
		if len(c.Queue) == 0 {
			c.t.Fatalf("waiting for %s: no commands left", what)
		}
		c.Step()
	}
	c.t.Fatalf("waiting for %s: still false after %d commands", what, MaxSteps)
}

// Sent returns the messages for the root of type M.
func Sent[M any, T any](c *Component[T]) []M {
	var out []M
	for _, m := range c.Out {
		if m, ok := m.(M); ok {
			out = append(out, m)
		}
	}
	return out
}

// Clock is a settable clock whose ticks fire as soon as their command
// runs, recording the Delays asked for.
type Clock struct {
	mu     sync.Mutex
	now    time.Time
	Delays []time.Duration
}

func NewClock() *Clock {
	return &Clock{now: time.Date(2026, 3, 14, 15, 0, 0, 0, time.UTC)}
}

func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *Clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func (c *Clock) Tick(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
	c.mu.Lock()
	c.Delays = append(c.Delays, d)
	c.mu.Unlock()
	return func() tea.Msg { return fn(c.Now()) }
}

// Plain is a view as a person reads it.
func Plain(view string) string { return ansi.Strip(view) }

// RequireSize checks that a view is exactly width×height cells at most.
func RequireSize(t *testing.T, view string, width, height int) {
	t.Helper()
	lines := strings.Split(view, "\n")
	if len(lines) != height {
		t.Errorf("view has %d rows, want %d:\n%s", len(lines), height, Plain(view))
	}
	if w := VisibleWidth(view); w > width {
		t.Errorf("view is %d wide, more than %d:\n%s", w, width, Plain(view))
	}
}

func RequireShows(t *testing.T, view string, texts ...string) {
	t.Helper()
	s := Plain(view)
	for _, x := range texts {
		if !strings.Contains(s, x) {
			t.Fatalf("%q not on screen:\n%s", x, s)
		}
	}
}

func Must[T any](t *testing.T) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

const (
	TestUser = "alice"
	// MaxSteps bounds the commands a harness runs in one RunUntil.
	MaxSteps = 500
	// CmdTimeout is a watchdog: a command blocking this long is a bug.
	CmdTimeout = 10 * time.Second
)

// Keys as the terminal reports them.
var (
	KeyEnter = tea.KeyPressMsg{Code: tea.KeyEnter}
	KeyEsc   = tea.KeyPressMsg{Code: tea.KeyEscape}
	KeyPgUp  = tea.KeyPressMsg{Code: tea.KeyPgUp}
)

// RunCmd runs a command, failing the test if it blocks.
func RunCmd(t *testing.T, cmd tea.Cmd) tea.Msg {
	t.Helper()
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	select {
	case msg := <-done:
		return msg
	case <-time.After(CmdTimeout):
		t.Fatalf("a command blocked for %v", CmdTimeout)
		return nil
	}
}

// CmdSlice unpacks the unexported message of tea.Sequence.
func CmdSlice(msg tea.Msg) ([]tea.Cmd, bool) {
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

func VisibleWidth(s string) int {
	w := 0
	for _, l := range strings.Split(s, "\n") {
		w = max(w, lipgloss.Width(l))
	}
	return w
}

// GoldenDir is the chat's one directory of golden files.
const GoldenDir = "../testdata"

// Update is the -update flag of every test binary that uses this package:
// it rewrites the golden files in testdata.
var Update = flag.Bool("update", false, "rewrite the golden files in testdata")

// RequireGolden compares got, downsampled to a colourless terminal (bold,
// italics and the like stay, colours go), with <GoldenDir>/<name>.golden.
func RequireGolden(t *testing.T, name, got string) {
	t.Helper()
	var b strings.Builder
	w := colorprofile.Writer{Forward: &b, Profile: colorprofile.ASCII}
	if _, err := w.WriteString(got); err != nil {
		t.Fatal(err)
	}
	got = b.String()
	path := filepath.Join(GoldenDir, name+".golden")
	if *Update {
		if err := os.MkdirAll(GoldenDir, 0o755); err != nil {
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

func KeyRune(r rune) tea.KeyPressMsg { return tea.KeyPressMsg{Code: r, Text: string(r)} }

var (
	KeyDown = tea.KeyPressMsg{Code: tea.KeyDown}
	KeyUp   = tea.KeyPressMsg{Code: tea.KeyUp}
)

func OpenStore(t *testing.T) *memory.Store {
	t.Helper()
	s, err := memory.Open(context.Background(), filepath.Join(t.TempDir(), "mneme.db"))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// FakeModels is a ModelManager whose pulls are driven by the test: each
// value sent on feed is reported as progress; a value on finish ends the
// pull with that error (nil installs the model). A pull that is cancelled
// reports its context's error on returned.
type FakeModels struct {
	mu        sync.Mutex
	installed []ollama.ModelInfo
	registry  map[string]ollama.ModelInfo
	pulls     []string

	feed     chan ollama.PullProgress
	finish   chan error
	returned chan error
}

func NewFakeModels(installed ...ollama.ModelInfo) *FakeModels {
	return &FakeModels{
		installed: installed,
		registry: map[string]ollama.ModelInfo{
			"llama3.2":         {Name: "llama3.2:latest", Size: 2_019_393_189, Capabilities: []string{"completion", "tools"}},
			"nomic-embed-text": {Name: "nomic-embed-text:latest", Size: 274_302_450, Capabilities: []string{"embedding"}},
		},
		feed:     make(chan ollama.PullProgress),
		finish:   make(chan error),
		returned: make(chan error, 4),
	}
}

func (f *FakeModels) List(context.Context) ([]ollama.ModelInfo, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.installed), nil
}

func (f *FakeModels) Pull(ctx context.Context, name string, progress func(ollama.PullProgress)) error {
	f.mu.Lock()
	f.pulls = append(f.pulls, name)
	f.mu.Unlock()
	for {
		select {
		case p := <-f.feed:
			progress(p)
		case err := <-f.finish:
			if err == nil {
				f.mu.Lock()
				f.installed = append(f.installed, f.registry[name])
				f.mu.Unlock()
			}
			f.returned <- err
			return err
		case <-ctx.Done():
			f.returned <- ctx.Err()
			return ctx.Err()
		}
	}
}

// send hands the running pull one progress report.
func (f *FakeModels) Send(t *testing.T, p ollama.PullProgress) {
	t.Helper()
	select {
	case f.feed <- p:
	case <-time.After(CmdTimeout):
		t.Fatal("no pull is reading progress")
	}
}

func (f *FakeModels) End(t *testing.T, err error) {
	t.Helper()
	select {
	case f.finish <- err:
	case <-time.After(CmdTimeout):
		t.Fatal("no pull to end")
	}
}

func (f *FakeModels) WaitReturned(t *testing.T) error {
	t.Helper()
	select {
	case err := <-f.returned:
		return err
	case <-time.After(CmdTimeout):
		t.Fatal("the pull did not return")
		return nil
	}
}
