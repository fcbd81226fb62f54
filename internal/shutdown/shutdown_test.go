package shutdown

import (
	"context"
	"errors"
	"fmt"
	"os"
	"syscall"
	"testing"
	"time"
)

// signalClock is awaitExit's clock in a test: each reading is the next of
// times, and is reported on read.
type signalClock struct {
	times []time.Time
	read  chan int
	grace chan time.Time
}

func newSignalClock(offsets ...time.Duration) *signalClock {
	c := &signalClock{read: make(chan int, len(offsets)), grace: make(chan time.Time)}
	t0 := time.Date(2026, 11, 24, 9, 0, 0, 0, time.UTC)
	for _, d := range offsets {
		c.times = append(c.times, t0.Add(d))
	}
	return c
}

func (c *signalClock) now() time.Time {
	t := c.times[0]
	c.times = c.times[1:]
	c.read <- len(c.times)
	return t
}

func (c *signalClock) after(time.Duration) <-chan time.Time { return c.grace }

type exitResult struct {
	sig      os.Signal
	timedOut bool
}

func awaitExitAsync(sigs chan os.Signal, c *signalClock) (<-chan exitResult, context.Context) {
	ctx, cancel := context.WithCancelCause(context.Background())
	done := make(chan exitResult, 1)
	go func() {
		sig, timedOut := awaitExit(sigs, cancel, c.now, c.after)
		done <- exitResult{sig, timedOut}
	}()
	return done, ctx
}

// GNU timeout signals mneme, then its process group: the same signal twice
// at once is one request to stop, which gets the whole grace period to
// store what it has.
func TestSignalDeliveredTwiceAtOnceIsOneRequest(t *testing.T) {
	c := newSignalClock(0, time.Millisecond)
	sigs := make(chan os.Signal, 2)
	sigs <- syscall.SIGINT
	sigs <- syscall.SIGINT
	done, ctx := awaitExitAsync(sigs, c)
	<-c.read // the first signal
	select {
	case <-c.read: // the same one again, read
	case got := <-done:
		t.Fatalf("a repeated delivery ended the process at once: %+v", got)
	}
	var sig signalError
	if !errors.As(context.Cause(ctx), &sig) || sig.sig != syscall.SIGINT {
		t.Fatalf("the command was not stopped by the signal: %v", context.Cause(ctx))
	}
	// A request the signal cut (as net/http reports it) is the signal's doing.
	if cut := fmt.Errorf("Get \"http://127.0.0.1:11434/api/version\": %w", context.Cause(ctx)); !Caused(cut) || Caused(errors.New("connection refused")) {
		t.Fatalf("Caused(%v) is wrong", cut)
	}
	c.grace <- time.Time{}
	if got := <-done; !got.timedOut || got.sig != syscall.SIGINT {
		t.Fatalf("a repeated delivery ended the process before the grace period: %+v", got)
	}
}

// A second Ctrl+C the user presses later ends the process at once.
func TestSecondSignalEndsAtOnce(t *testing.T) {
	for _, second := range []os.Signal{syscall.SIGINT, syscall.SIGTERM} {
		c := newSignalClock(0, 400*time.Millisecond)
		sigs := make(chan os.Signal, 2)
		sigs <- syscall.SIGINT
		sigs <- second
		done, _ := awaitExitAsync(sigs, c)
		if got := <-done; got.timedOut || got.sig != second {
			t.Fatalf("a second %v did not end the process at once: %+v", second, got)
		}
	}
}
