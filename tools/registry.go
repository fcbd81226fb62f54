// Package tools holds the tools the model may call: a registry, typed
// arguments with validation (New), and the memory tools.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
)

// Tier says whether a tool only reads or also changes state.
type Tier int

// Safety tiers. Read-only tools run freely; side-effecting ones add to
// what the user has (memory_save); changing ones change or delete it
// (memory_update, memory_delete) and go through the registry's Gate.
const (
	ReadOnly Tier = iota
	SideEffecting
	Changing
)

func (t Tier) String() string {
	switch t {
	case SideEffecting:
		return "side-effecting"
	case Changing:
		return "changing"
	}
	return "read-only"
}

// Gate decides whether a call of a Changing tool may run. It may block
// (asking the user) until ctx, the run's context, ends; the tool's timeout
// starts after it. A non-nil error is the call's result for the model and
// the tool does not run.
type Gate func(ctx context.Context, s Session, c Call) error

// Session identifies who is calling. It comes from the running session,
// never from model input.
type Session struct {
	UserID         string
	ConversationID string
	// TurnNumber is the turn being answered, numbered as memory.BuildTurns
	// numbers them; notes saved now record it as their provenance.
	TurnNumber int
}

// Call is one tool call as the model made it.
type Call struct {
	ID   string
	Name string
	Args json.RawMessage
}

// Tool is one callable tool.
type Tool interface {
	Definition() api.Tool
	Tier() Tier
	Timeout() time.Duration
	Run(ctx context.Context, s Session, args json.RawMessage) (Result, error)
}

// DefaultTimeout applies to a tool that reports none.
const DefaultTimeout = 10 * time.Second

// Registry maps tool names to tools.
type Registry struct {
	tools map[string]Tool
	log   *slog.Logger
	gate  Gate
}

// WithGate sets the gate Changing tools go through (nil: they run freely)
// and returns r.
func (r *Registry) WithGate(g Gate) *Registry {
	r.gate = g
	return r
}

// NewRegistry returns a registry holding the given tools.
func NewRegistry(log *slog.Logger, tools ...Tool) *Registry {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Registry{tools: make(map[string]Tool, len(tools)), log: log}
	for _, t := range tools {
		r.tools[t.Definition().Function.Name] = t
	}
	return r
}

// Definitions returns the tool definitions to send to the model, by name.
func (r *Registry) Definitions() api.Tools {
	if r == nil {
		return nil
	}
	defs := make(api.Tools, 0, len(r.tools))
	for _, t := range r.tools {
		defs = append(defs, t.Definition())
	}
	sort.Slice(defs, func(i, j int) bool { return defs[i].Function.Name < defs[j].Function.Name })
	return defs
}

// Execute runs one call. It never panics: an unknown tool, bad arguments,
// a timeout or a panic inside the tool come back as an error, which the
// caller sends to the model as an error result.
func (r *Registry) Execute(ctx context.Context, s Session, c Call) (Result, error) {
	var t Tool
	if r != nil {
		t = r.tools[c.Name]
	}
	if t == nil {
		if names := r.names(); names != "" {
			return Result{}, fmt.Errorf("%w %q; the tools are %s", ErrUnknownTool, c.Name, names)
		}
		return Result{}, fmt.Errorf("%w %q", ErrUnknownTool, c.Name)
	}
	if t.Tier() == Changing && r.gate != nil {
		if err := r.gate(ctx, s, c); err != nil {
			return Result{}, err
		}
	}
	timeout := t.Timeout()
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	run := ctx // the run's: Ctrl+C ends every wait below at once
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	type outcome struct {
		res Result
		err error
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if p := recover(); p != nil {
				r.log.Error("tool panicked", "tool", c.Name, "panic", p, "stack", string(debug.Stack()))
				done <- outcome{err: fmt.Errorf("tool %s failed internally", c.Name)}
			}
		}()
		o, e := t.Run(ctx, s, c.Args)
		done <- outcome{o, e}
	}()
	select {
	case o := <-done:
		if errors.Is(o.err, context.DeadlineExceeded) && ctx.Err() != nil {
			return Result{}, fmt.Errorf("%s: %w after %s", c.Name, ErrTimeout, timeout)
		}
		return o.res, o.err
	case <-ctx.Done():
		if run.Err() != nil {
			return Result{}, run.Err() // stopped: at once
		}
		// A write past its timeout may still commit (a database busy with
		// another mneme): its outcome is awaited a little longer, so that
		// the answer does not say a note failed that was then saved, out of
		// ctrl+z's reach.
		if t.Tier() != ReadOnly {
			select {
			case o := <-done:
				if o.err == nil {
					return o.res, nil
				}
			case <-time.After(writeGrace):
			case <-run.Done():
				return Result{}, run.Err()
			}
		}
		return Result{}, fmt.Errorf("%s: %w after %s", c.Name, ErrTimeout, timeout)
	}
}

// writeGrace is how long a writing tool's outcome is awaited past its
// timeout: longer than the store's busy timeout (10 s).
const writeGrace = 12 * time.Second

// names lists the registered tools, by name.
func (r *Registry) names() string {
	var names []string
	for _, d := range r.Definitions() {
		names = append(names, d.Function.Name)
	}
	return strings.Join(names, ", ")
}
