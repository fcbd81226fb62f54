package tui

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/memory"
)

const (
	testUser  = "alice"
	testModel = "fake-chat"
	testHost  = "http://127.0.0.1:11434"
	// maxSteps bounds the commands a harness runs in one runUntil.
	maxSteps = 500
	// cmdTimeout is a watchdog: a command blocking this long is a bug.
	cmdTimeout = 10 * time.Second
)

// Keys as the terminal reports them.
var (
	keyEnter    = tea.KeyPressMsg{Code: tea.KeyEnter}
	keyAltEnter = tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt}
	keyCtrlJ    = tea.KeyPressMsg{Code: 'j', Mod: tea.ModCtrl}
	keyEsc      = tea.KeyPressMsg{Code: tea.KeyEscape}
	keyCtrlC    = tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}
	keyPgUp     = tea.KeyPressMsg{Code: tea.KeyPgUp}
)

// harness drives a Model the way a tea.Program would, synchronously: it
// calls Update, queues the returned commands, and runs them one at a time
// on request, feeding their messages back. A command that waits for
// something (the next agent event) is only run when the test asks for it.
type harness struct {
	t     *testing.T
	m     Model
	queue []tea.Cmd
	quit  bool
}

// newHarness starts a model at 80x24 and queues its Init commands.
func newHarness(t *testing.T, cfg Config) *harness {
	t.Helper()
	m := New(cfg)
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil } // no animation
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	m.now = func() time.Time { clock = clock.Add(time.Second); return clock }
	t.Cleanup(m.life.shutdown)
	h := &harness{t: t, m: m}
	h.queue = append(h.queue, m.Init())
	h.send(tea.WindowSizeMsg{Width: 80, Height: 24})
	return h
}

// send delivers msg to Update and queues the command it returns.
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	next, cmd := h.m.Update(msg)
	h.m = next.(Model)
	if cmd != nil {
		h.queue = append(h.queue, cmd)
	}
}

func (h *harness) typeText(s string) {
	for _, r := range s {
		h.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// step runs the oldest queued command and handles its message.
func (h *harness) step() {
	h.t.Helper()
	cmd := h.queue[0]
	h.queue = h.queue[1:]
	h.handle(runCmd(h.t, cmd))
}

func (h *harness) handle(msg tea.Msg) {
	h.t.Helper()
	switch msg := msg.(type) {
	case nil:
	case tea.QuitMsg:
		h.quit = true
	case tea.BatchMsg:
		for _, c := range msg {
			if c != nil {
				h.queue = append(h.queue, c)
			}
		}
	default:
		if cmds, ok := cmdSlice(msg); ok { // tea.Sequence
			for _, c := range cmds {
				if c != nil {
					h.queue = append(h.queue, c)
				}
			}
			return
		}
		h.send(msg)
	}
}

// runUntil runs queued commands until cond holds.
func (h *harness) runUntil(what string, cond func() bool) {
	h.t.Helper()
	for range maxSteps {
		if cond() {
			return
		}
		if len(h.queue) == 0 {
			h.t.Fatalf("waiting for %s: no commands left; screen:\n%s", what, h.screen())
		}
		h.step()
	}
	h.t.Fatalf("waiting for %s: still false after %d commands; screen:\n%s", what, maxSteps, h.screen())
}

// runUntilShown runs commands until the screen shows all of texts.
func (h *harness) runUntilShown(texts ...string) {
	h.t.Helper()
	h.runUntil(fmt.Sprintf("%q on screen", texts), func() bool { return h.shows(texts...) })
}

// runUntilIdle runs commands until no prompt is being sent or answered.
func (h *harness) runUntilIdle() {
	h.t.Helper()
	h.runUntil("idle", func() bool { return h.m.phase == phaseIdle && h.m.run == nil })
}

// screen is the whole view as plain text, as a person reads it.
func (h *harness) screen() string { return ansi.Strip(h.m.View().Content) }

// shows reports whether the screen contains all of texts.
func (h *harness) shows(texts ...string) bool {
	s := h.screen()
	for _, x := range texts {
		if !strings.Contains(s, x) {
			return false
		}
	}
	return true
}

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

// quits reports whether running cmd (and any batch in it) ends the program.
func quits(t *testing.T, cmd tea.Cmd) bool {
	t.Helper()
	if cmd == nil {
		return false
	}
	switch msg := runCmd(t, cmd).(type) {
	case tea.QuitMsg:
		return true
	case tea.BatchMsg:
		for _, c := range msg {
			if quits(t, c) {
				return true
			}
		}
	}
	return false
}

// openStore opens a real store in a temporary directory.
func openStore(t *testing.T) *memory.Store {
	t.Helper()
	s, err := memory.Open(context.Background(), filepath.Join(t.TempDir(), "mneme.db"))
	if err != nil {
		t.Fatalf("open store: %v", err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return s
}

// readyProbe reports a running Ollama with the test model.
func readyProbe(context.Context) Probe {
	return Probe{Host: testHost, Reachable: true, Version: "0.6.5", Model: testModel}
}

// offlineProbe reports Ollama as unreachable, as main would.
func offlineProbe(context.Context) Probe {
	return Probe{Host: testHost, Err: fmt.Errorf("%w at %s: is it running? Start it with `ollama serve`",
		agent.ErrOllamaUnreachable, testHost)}
}

// switchableProbe is offline until setReady is called; it counts probes.
type switchableProbe struct {
	ready atomic.Bool
	calls atomic.Int32
}

func (p *switchableProbe) probe(ctx context.Context) Probe {
	p.calls.Add(1)
	if p.ready.Load() {
		return readyProbe(ctx)
	}
	return offlineProbe(ctx)
}

// fakeRunner is a scripted stand-in for *agent.Agent. Like the agent it
// stores the prompt and the answer (a partial one marked interrupted) in
// the real store and ends with exactly one DoneEvent or ErrorEvent.
type fakeRunner struct {
	store    *memory.Store
	thinking []string
	deltas   []string
	tools    []agent.ToolActivity // run after the first answer, then deltas2
	deltas2  []string
	// gate, when set, must yield a value before each delta is emitted.
	gate chan struct{}
	// hold keeps the run open after its deltas until ctx is cancelled.
	hold bool
	// fail ends the run with this error after the deltas.
	fail error
	// recalled is what the run recalls into its prompt (a RecallEvent first).
	recalled []agent.Memory
	// notice is said once the answer is stored (as the agent says a cut).
	notice string

	mu       sync.Mutex
	prompts  []string
	attached [][]string    // each run's Request.Attached
	docs     [][]string    // and its Request.AttachedDocs
	started  chan struct{} // receives a value once a run has stored the prompt and sent its deltas
}

func newFakeRunner(store *memory.Store, deltas ...string) *fakeRunner {
	return &fakeRunner{store: store, deltas: deltas, started: make(chan struct{}, 16)}
}

func (r *fakeRunner) runs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.prompts...)
}

func (r *fakeRunner) Run(ctx context.Context, req agent.Request, emit func(agent.Event)) (agent.Result, error) {
	r.mu.Lock()
	r.prompts = append(r.prompts, req.Prompt)
	r.attached = append(r.attached, req.Attached)
	r.docs = append(r.docs, req.AttachedDocs)
	r.mu.Unlock()
	res := agent.Result{ConversationID: req.ConversationID, Model: testModel}
	store := func(content, thinking string, status memory.Status) error {
		_, err := r.store.AppendMessage(context.WithoutCancel(ctx), req.UserID, memory.Message{
			ConversationID: req.ConversationID, Role: memory.RoleAssistant,
			Content: content, Thinking: thinking, Status: status,
		})
		return err
	}
	if _, err := r.store.AppendMessage(ctx, req.UserID, memory.Message{
		ConversationID: req.ConversationID, Role: memory.RoleUser, Content: req.Prompt,
	}); err != nil {
		if errors.Is(err, memory.ErrNotFound) { // as the agent says it
			err = fmt.Errorf("%w: %w", agent.ErrConversationGone, err)
		}
		emit(agent.ErrorEvent{Err: err, Result: res})
		return res, err
	}
	if len(r.recalled) > 0 {
		res.MemoriesUsed = r.recalled
		emit(agent.RecallEvent{Memories: r.recalled})
	}
	var thinking, content strings.Builder
	interrupt := func() (agent.Result, error) {
		if err := store(content.String(), thinking.String(), memory.StatusInterrupted); err != nil {
			return res, err
		}
		res.Interrupted, res.Answer = true, content.String()
		emit(agent.DoneEvent{Result: res})
		return res, nil
	}
	stream := func(deltas []string) bool {
		for _, d := range deltas {
			if r.gate != nil {
				select {
				case <-r.gate:
				case <-ctx.Done():
					return false
				}
			}
			content.WriteString(d)
			emit(agent.ContentDelta{Text: d})
		}
		return ctx.Err() == nil
	}
	for _, t := range r.thinking {
		thinking.WriteString(t)
		emit(agent.ThinkingDelta{Text: t})
	}
	ok := stream(r.deltas)
	r.started <- struct{}{}
	if !ok {
		return interrupt()
	}
	if len(r.tools) > 0 {
		if err := store(content.String(), thinking.String(), memory.StatusComplete); err != nil {
			return res, err
		}
		content.Reset()
		thinking.Reset()
		for _, act := range r.tools {
			pending := act
			pending.Result, pending.Error = "", ""
			emit(agent.ToolCallEvent{Call: pending})
			emit(agent.ToolResultEvent{Call: act})
		}
		if !stream(r.deltas2) {
			return interrupt()
		}
	}
	if r.hold {
		<-ctx.Done()
		return interrupt()
	}
	if r.fail != nil {
		if err := store(content.String(), thinking.String(), memory.StatusInterrupted); err != nil {
			return res, err
		}
		emit(agent.ErrorEvent{Err: r.fail, Result: res})
		return res, r.fail
	}
	if err := store(content.String(), thinking.String(), memory.StatusComplete); err != nil {
		return res, err
	}
	if r.notice != "" {
		emit(agent.NoticeEvent{Text: r.notice})
	}
	res.Answer = content.String()
	emit(agent.DoneEvent{Result: res})
	return res, nil
}

// waitStarted waits until a run has stored its prompt and sent its first
// deltas.
func (r *fakeRunner) waitStarted(t *testing.T) {
	t.Helper()
	select {
	case <-r.started:
	case <-time.After(cmdTimeout):
		t.Fatal("the run did not start")
	}
}

// config returns a Config for store and runner with the given probe.
func config(store *memory.Store, r *fakeRunner, probe func(context.Context) Probe) Config {
	return Config{
		Store:     store,
		UserID:    testUser,
		Probe:     probe,
		NewRunner: func(string) Runner { return r },
	}
}

// storedMessages returns the messages of the only conversation of testUser.
func storedMessages(t *testing.T, s *memory.Store) (memory.Conversation, []memory.Message) {
	t.Helper()
	ctx := context.Background()
	convs, err := s.ListConversations(ctx, testUser, memory.ListOptions{})
	if err != nil && !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("list conversations: %v", err)
	}
	if len(convs) != 1 {
		t.Fatalf("stored conversations = %d, want 1", len(convs))
	}
	msgs, err := s.Messages(ctx, testUser, convs[0].ID)
	if err != nil {
		t.Fatalf("messages: %v", err)
	}
	return convs[0], msgs
}
