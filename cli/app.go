package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
)

// version is set at build time with -ldflags "-X github.com/mneme-dev/mneme/cli.version=...".
var version = "dev"

// App is the mneme command line. It owns nothing global: its input, output
// and environment are injected so tests can run it in-process.
type App struct {
	stdin          io.Reader
	stdout, stderr io.Writer
	getenv         func(string) string
}

func newApp(stdin io.Reader, stdout, stderr io.Writer, getenv func(string) string) *App {
	return &App{stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
}

// exitError carries a specific exit code to main.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

const usageText = `mneme: chat with a local Ollama model; every message is kept.

Usage:
  mneme [flags]                      open the chat (a new conversation)
  mneme -c | --continue              resume the latest conversation
  mneme --resume ID [--turn N]       resume a conversation (an id prefix is enough), at a turn
  mneme ask [flags] PROMPT...        ask once and print the answer (reads stdin when piped)
  mneme conversations [--json]       list conversations
  mneme search [--json] QUERY...     search past turns by meaning and by words
  mneme search --batch FILE          answer JSON-lines queries (evaluation, scripts)
  mneme memory COMMAND [--json]      notes mneme keeps about you: list, add, edit, rm, search
  mneme import FILE|-                import JSON-lines messages
  mneme export [--format jsonl|markdown] [--conversation ID]
  mneme reindex                      rebuild the keyword index from the database
  mneme sync [--status [--json]]     sync memory with your other devices now (Turso)
  mneme sync init URL                set up sync (token from stdin or MNEME_SYNC_TOKEN)
  mneme doctor                       check Ollama, models, data dir and database
  mneme version

Flags common to every command:
  --config FILE   --data-dir DIR   --user NAME   --model NAME   --ollama URL   --embed-model NAME

Run 'mneme COMMAND -h' for a command's flags.
`

// Run dispatches to a subcommand.
func (a *App) Run(ctx context.Context, args []string) error {
	cmd, args := splitCommand(args)
	switch cmd {
	case "":
		return a.runChat(ctx, args)
	case "ask":
		return a.runAsk(ctx, args)
	case "conversations", "convs":
		return a.runConversations(ctx, args)
	case "doctor":
		return a.runDoctor(ctx, args)
	case "search":
		return a.runSearch(ctx, args)
	case "memory":
		return a.runMemory(ctx, args)
	case "import":
		return a.runImport(ctx, args)
	case "export":
		return a.runExport(ctx, args)
	case "sync":
		return a.runSync(ctx, args)
	case "reindex":
		return a.runReindex(ctx, args)
	case "version":
		fmt.Fprintln(a.stdout, "mneme", version)
		return nil
	case "help":
		fmt.Fprint(a.stdout, usageText)
		return nil
	default:
		fmt.Fprint(a.stderr, usageText)
		return exitError{code: 2, msg: fmt.Sprintf("unknown command %q", cmd)}
	}
}

// splitCommand finds the command word: the first argument that is not a
// flag, which may follow flags common to every command (mneme --data-dir D
// search x); those flags are kept for the command, which parses flags
// anywhere. No command word: the chat.
func splitCommand(args []string) (string, []string) {
	// The flags that may come first: the common ones and the chat's.
	var common commonFlags
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	common.register(fs)
	common.stream.register(fs)
	registerChatFlags(fs)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return "", args
		}
		if !strings.HasPrefix(a, "-") {
			return a, moveFlags(args[:i], args[i+1:])
		}
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil {
			if bf, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !bf.IsBoolFlag() {
				i++ // the flag's value
			}
		}
	}
	return "", args
}

// moveFlags puts flags given before the command among its own arguments:
// after a subcommand word (memory add, sync init), before any "--".
func moveFlags(flags, rest []string) []string {
	out := make([]string, 0, len(flags)+len(rest))
	end := slices.Index(rest, "--")
	if end < 0 {
		end = len(rest)
	}
	out = append(out, rest[:end]...)
	out = append(out, flags...)
	return append(out, rest[end:]...)
}

// newFlagSet makes a command's FlagSet with the common flags registered.
func (a *App) newFlagSet(name, usage string, common *commonFlags) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(a.stderr)
	common.register(fs)
	fs.Usage = func() {
		fmt.Fprintf(a.stderr, "Usage: %s\n\nFlags:\n", usage)
		fs.PrintDefaults()
	}
	return fs
}

// parseArgs parses flags that may come before or after positional arguments.
// "--" ends flag parsing.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var positional []string
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, exitError{code: 0}
			}
			return nil, exitError{code: 2, msg: err.Error()}
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return positional, nil
		}
		// fs.Parse stops at "--" and drops it; if the arg before rest is "--",
		// everything after it is positional.
		if len(args) > len(rest) && args[len(args)-len(rest)-1] == "--" {
			return append(positional, rest...), nil
		}
		positional = append(positional, rest[0])
		args = rest[1:]
	}
}
