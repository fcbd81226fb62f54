package tui

import (
	"context"
	"errors"
	"fmt"
	"sync"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// maxFPS caps the frames drawn per second. Bubble Tea's renderer wakes up
// this often even when nothing changed: at its default of 60 an idle chat
// used about 1.1% of a core, at 30 about half that; 30 frames a second is
// still smooth for streamed text and typing. The caller's options may
// override it.
const maxFPS = 30

// Run shows the chat until the user quits. It takes over the terminal
// (alternate screen) and restores it on return. A generation still running
// when the program ends is cancelled, and Run waits until its partial
// answer is stored. Cancelling ctx ends the program the same way. Run
// returns nil when the user quit, was interrupted or ctx was cancelled.
func Run(ctx context.Context, cfg Config, opts ...tea.ProgramOption) error {
	m := newModel(ctx, cfg)
	defer m.life.shutdown()
	// Signals are the caller's: it cancels ctx. Bubble Tea's own handler
	// would race with that: on SIGTERM it tries to send a QuitMsg to a
	// program that ctx already stopped, and its shutdown then waits on it
	// for ever.
	//
	// The colour profile is the one lipgloss found for stdout when the
	// process began: detected again, in tmux it ran `tmux info` a second
	// time before the first frame.
	p := tea.NewProgram(m, append([]tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(maxFPS), tea.WithoutSignalHandler(),
		tea.WithColorProfile(lipgloss.Writer.Profile)}, opts...)...)
	_, err := p.Run()
	switch {
	case err == nil, errors.Is(err, tea.ErrInterrupted):
		return nil
	case errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil:
		return nil
	default:
		return fmt.Errorf("chat: %w", err)
	}
}

// lifecycle is shared by every copy of a Model: the context that lives as
// long as the program and the runs in flight.
type lifecycle struct {
	ctx    context.Context
	cancel context.CancelFunc
	runs   runGroup
}

func newLifecycle(parent context.Context) *lifecycle {
	ctx, cancel := context.WithCancel(parent)
	return &lifecycle{ctx: ctx, cancel: cancel}
}

// shutdown cancels everything still running and waits for the runs to
// return, which is when their partial answers are stored.
func (l *lifecycle) shutdown() {
	l.cancel()
	l.runs.CloseAndWait()
}

// runGroup tracks run goroutines. Once closed it starts no more.
type runGroup struct {
	mu     sync.Mutex
	closed bool
	wg     sync.WaitGroup
}

// Go runs fn in a new goroutine unless the group is closed.
func (g *runGroup) Go(fn func()) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return false
	}
	g.wg.Go(fn)
	return true
}

// CloseAndWait stops new runs and waits for the running ones.
func (g *runGroup) CloseAndWait() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.wg.Wait()
}
