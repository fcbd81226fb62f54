// Package shutdown ends a command on SIGINT, SIGTERM or SIGHUP (the
// terminal was closed): the first signal cancels the command's context, so
// that it stores what it has; the process ends Grace later if the command
// has not returned, or at once on a second signal. Whatever a command waits
// for, it ends within 2 s of the signal.
package shutdown

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// Grace is how long a command may take to finish after the signal
// (storing a partial answer, closing the database) before it is ended
// anyway.
const Grace = 1500 * time.Millisecond

// Watch returns a context the first of SIGINT, SIGTERM and SIGHUP cancels
// (Signal says which); stop stops watching.
func Watch() (ctx context.Context, stop func()) {
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go watchSignals(sigs, cancel)
	return ctx, func() {
		signal.Stop(sigs)
		cancel(nil)
	}
}

// Signal is the signal that cancelled ctx (a context from Watch), if one did.
func Signal(ctx context.Context) (os.Signal, bool) {
	var sig signalError
	if errors.As(context.Cause(ctx), &sig) {
		return sig.sig, true
	}
	return nil, false
}

// watchSignals cancels the command's context on the first signal, and
// ends the process if the command has not returned Grace later, or at once
// on a second signal.
func watchSignals(sigs <-chan os.Signal, cancel context.CancelCauseFunc) {
	sig, timedOut := awaitExit(sigs, cancel, time.Now, time.After)
	if timedOut {
		fmt.Fprintf(os.Stderr, "mneme: %v: stopped before finishing; what was already stored is kept\n", sig)
	} else {
		fmt.Fprintf(os.Stderr, "mneme: %v again: stopped at once; what was already stored is kept\n", sig)
	}
	runExitHooks()
	os.Exit(ExitCode(sig))
}

// repeatWindow: the same signal again this soon after the first is one
// request delivered twice (GNU timeout signals the process, then its
// group; so do supervisors), not a second request to stop at once.
const repeatWindow = 250 * time.Millisecond

// awaitExit cancels the command on the first signal and returns what then
// ends the process: a second signal, or the first once Grace has
// passed (timedOut).
func awaitExit(sigs <-chan os.Signal, cancel context.CancelCauseFunc, now func() time.Time, after func(time.Duration) <-chan time.Time) (sig os.Signal, timedOut bool) {
	first := <-sigs
	at := now()
	cancel(signalError{first})
	grace := after(Grace)
	for {
		select {
		case <-grace:
			return first, true
		case sig := <-sigs:
			if sig == first && now().Sub(at) < repeatWindow {
				continue
			}
			return sig, false
		}
	}
}

// exitHooks run when a signal ends the process before its command
// returned (an incognito run removes its throwaway data dir).
var exitHooks struct {
	mu   sync.Mutex
	next int
	fns  map[int]func()
}

// OnExit registers fn to run if a signal ends the process before the
// command returns; the returned func unregisters it.
func OnExit(fn func()) (unregister func()) {
	exitHooks.mu.Lock()
	defer exitHooks.mu.Unlock()
	if exitHooks.fns == nil {
		exitHooks.fns = map[int]func(){}
	}
	id := exitHooks.next
	exitHooks.next++
	exitHooks.fns[id] = fn
	return func() {
		exitHooks.mu.Lock()
		delete(exitHooks.fns, id)
		exitHooks.mu.Unlock()
	}
}

func runExitHooks() {
	exitHooks.mu.Lock()
	defer exitHooks.mu.Unlock()
	for _, fn := range exitHooks.fns {
		fn()
	}
}

// signalError is why the command's context ended: a signal.
type signalError struct{ sig os.Signal }

func (e signalError) Error() string { return "received " + e.sig.String() }

// Caused reports whether err is the signal's doing: it carries the
// context's cause (an HTTP request cut by Ctrl+C says "received interrupt").
func Caused(err error) bool { return errors.As(err, new(signalError)) }

// ExitCode is the shell's convention: 128 + the signal number.
func ExitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}
