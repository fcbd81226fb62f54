package tui

import (
	"context"
	"io"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/memory"
)

// runProgram runs Run with a scripted keyboard and no terminal output.
func runProgram(t *testing.T, ctx context.Context, cfg Config) (keys *io.PipeWriter, done <-chan error) {
	t.Helper()
	in, keys := io.Pipe()
	t.Cleanup(func() { _ = keys.Close() })
	errc := make(chan error, 1)
	go func() {
		errc <- Run(ctx, cfg, tea.WithInput(in), tea.WithOutput(io.Discard), tea.WithWindowSize(80, 24))
	}()
	return keys, errc
}

func waitRun(t *testing.T, done <-chan error) {
	t.Helper()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(cmdTimeout):
		t.Fatal("Run did not return")
	}
}

func TestRunQuitDuringGenerationStoresPartialAnswer(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "Partial ", "answer")
	r.hold = true
	keys, done := runProgram(t, context.Background(), config(store, r, readyProbe))

	if _, err := io.WriteString(keys, "hello\r"); err != nil {
		t.Fatal(err)
	}
	r.waitStarted(t)
	if _, err := io.WriteString(keys, "\x03\x03"); err != nil { // Ctrl+C twice
		t.Fatal(err)
	}
	waitRun(t, done)

	// Run returned only after the run stored its partial answer.
	_, msgs := storedMessages(t, store)
	if len(msgs) != 2 {
		t.Fatalf("stored %d messages, want the prompt and the partial answer", len(msgs))
	}
	if m := msgs[1]; m.Status != memory.StatusInterrupted || m.Content != "Partial answer" {
		t.Errorf("partial answer stored as %+v", m)
	}
}

func TestRunEndsWhenContextIsCancelled(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, "Partial")
	r.hold = true
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	keys, done := runProgram(t, ctx, config(store, r, readyProbe))
	if _, err := io.WriteString(keys, "hello\r"); err != nil {
		t.Fatal(err)
	}
	r.waitStarted(t)
	cancel()
	waitRun(t, done)
	_, msgs := storedMessages(t, store)
	if m := msgs[len(msgs)-1]; m.Status != memory.StatusInterrupted || m.Content != "Partial" {
		t.Errorf("last stored message = %+v, want the interrupted partial answer", m)
	}
}
