// Command mneme is a terminal chat assistant with long-term memory.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// A closed stdout (mneme ask … | head) makes writes fail with EPIPE
	// instead of killing mneme, so that the answer is still stored.
	signal.Ignore(syscall.SIGPIPE)
	// SIGHUP (the terminal was closed) ends a run like Ctrl+C: the partial
	// answer is stored, marked interrupted.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	err := run(ctx, os.Args[1:])
	stop()
	if err != nil {
		var ex exitError
		if errors.As(err, &ex) {
			if ex.msg != "" {
				fmt.Fprintln(os.Stderr, "mneme:", ex.msg)
			}
			os.Exit(ex.code)
		}
		fmt.Fprintln(os.Stderr, "mneme:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string) error {
	return newApp(os.Stdin, os.Stdout, os.Stderr, os.Getenv).Run(ctx, args)
}
