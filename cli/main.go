package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/shutdown"
)

// signalled is what a command that a signal stopped (waiting for the
// index, the database or Ollama, in the chat, or while printing) ends
// with: the signal's exit code, as a shell expects, with what the command
// said of how far it got, else "interrupted" (not "context canceled").
func signalled(sig os.Signal, err error) error {
	var ex exitError
	switch {
	case errors.As(err, &ex) && ex.code == ExitInterrupted:
		return exitError{code: shutdown.ExitCode(sig), msg: ex.msg}
	case err == nil:
		// The command ended as it would have: what a follow-up (the sync
		// after memory add) was cut short of waits for next time. Plain
		// "interrupted" after "Saved note …" read as if it had failed.
		return exitError{code: shutdown.ExitCode(sig), msg: "interrupted; what was done is kept"}
	case errors.Is(err, context.Canceled) || shutdown.Caused(err) || errors.As(err, new(outputError)):
		return exitError{code: shutdown.ExitCode(sig), msg: "interrupted"}
	}
	return err
}

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
	ctx, stop := shutdown.Watch()
	err := newApp(os.Stdin, os.Stdout, os.Stderr, os.Getenv).Run(ctx, args)
	if sig, ok := shutdown.Signal(ctx); ok {
		err = signalled(sig, err)
	}
	stop()
	if err != nil {
		var ex exitError
		if errors.As(err, &ex) {
			if ex.msg != "" {
				fmt.Fprintln(os.Stderr, "mneme:", sanitize.Text(ex.msg))
			}
			return ex.code
		}
		if errors.Is(err, config.ErrConfigValue) || errors.Is(err, config.ErrConfigFile) {
			// A bad setting, from a flag, the environment or the file, is
			// a usage error wherever it was written (as --num-ctx abc is).
			fmt.Fprintln(os.Stderr, "mneme:", sanitize.Text(err.Error()))
			return 2
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
