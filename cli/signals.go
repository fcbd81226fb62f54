package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/mneme-dev/mneme/internal/sanitize"
)

// shutdownGrace is how long a command may take to finish after SIGINT,
// SIGTERM or SIGHUP (storing a partial answer, closing the database) before it is
// ended anyway: whatever it waits for, it ends within 2 s of the signal.
const shutdownGrace = 1500 * time.Millisecond

// Main runs the mneme command line with args (without the program name)
// and returns the process's exit code. It owns the process: the umask,
// SIGPIPE, and the signals that end a command.
func Main(args []string) int {
	// Owner-only files: the database, its WAL, the index, logs and backups
	// hold the user's conversations.
	syscall.Umask(0o077)
	// A closed stdout (mneme ask … | head) makes writes fail with EPIPE
	// instead of killing mneme, so that the answer is still stored.
	signal.Ignore(syscall.SIGPIPE)
	// SIGHUP (the terminal was closed) ends a run like Ctrl+C: the partial
	// answer is stored, marked interrupted.
	ctx, cancel := context.WithCancelCause(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	go watchSignals(sigs, cancel)
	err := newApp(os.Stdin, os.Stdout, os.Stderr, os.Getenv).Run(ctx, args)
	signal.Stop(sigs)
	var sig signalError
	var ex exitError
	if errors.As(context.Cause(ctx), &sig) {
		switch {
		case errors.As(err, &ex) && ex.code == ExitInterrupted:
			// The command said how far it got; the code is the signal's.
			err = exitError{code: signalExitCode(sig.sig), msg: ex.msg}
		case err == nil || errors.Is(err, context.Canceled):
			// Stopped while waiting (for the index, the database, Ollama)
			// or in the chat: say so, not "context canceled", and exit as
			// a shell expects.
			err = exitError{code: signalExitCode(sig.sig), msg: "interrupted"}
		}
	}
	cancel(nil)
	if err != nil {
		var ex exitError
		if errors.As(err, &ex) {
			if ex.msg != "" {
				fmt.Fprintln(os.Stderr, "mneme:", sanitize.Text(ex.msg))
			}
			return ex.code
		}
		if errors.Is(err, syscall.EPIPE) {
			// The reader went away (mneme docs list | head): nothing to
			// say; exit as a process killed by SIGPIPE would.
			return ExitOutputClosed
		}
		// Errors may quote Ollama, a model or a file: no escapes reach the terminal.
		fmt.Fprintln(os.Stderr, "mneme:", sanitize.Text(err.Error()))
		return 1
	}
	return 0
}

// watchSignals cancels the command's context on the first signal, and
// ends the process if the command has not returned shutdownGrace later,
// or at once on a second signal.
func watchSignals(sigs <-chan os.Signal, cancel context.CancelCauseFunc) {
	sig, timedOut := awaitExit(sigs, cancel, time.Now, time.After)
	if timedOut {
		fmt.Fprintf(os.Stderr, "mneme: %v: stopped before finishing; what was already stored is kept\n", sig)
	}
	runExitHooks()
	os.Exit(signalExitCode(sig))
}

// repeatWindow: the same signal again this soon after the first is one
// request delivered twice (GNU timeout signals the process, then its
// group; so do supervisors), not a second request to stop at once.
const repeatWindow = 250 * time.Millisecond

// awaitExit cancels the command on the first signal and returns what then
// ends the process: a second signal, or the first once shutdownGrace has
// passed (timedOut).
func awaitExit(sigs <-chan os.Signal, cancel context.CancelCauseFunc, now func() time.Time, after func(time.Duration) <-chan time.Time) (sig os.Signal, timedOut bool) {
	first := <-sigs
	at := now()
	cancel(signalError{first})
	grace := after(shutdownGrace)
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

// onSignalExit registers fn to run if a signal ends the process before
// the command returns; the returned func unregisters it.
func onSignalExit(fn func()) (unregister func()) {
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

// signalExitCode is the shell's convention: 128 + the signal number.
func signalExitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}
