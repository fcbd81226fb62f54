package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/flagtext"
	"github.com/mneme-dev/mneme/internal/printer"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/memory"
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

// stdoutFile is the file behind the command's stdout, if it is one.
func (a *App) stdoutFile() (*os.File, bool) {
	w := a.stdout
	if c, ok := w.(*printer.Checked); ok {
		w = c.W
	}
	f, ok := w.(*os.File)
	return f, ok
}

// exitError carries a specific exit code to main.
type exitError struct {
	code int
	msg  string
}

func (e exitError) Error() string { return e.msg }

// command is one of mneme's commands: its names (the first is the one
// listed), its lines in the command list, and how it runs. Each lives in
// its own cmd_*.go file.
type command struct {
	names []string
	help  string
	run   func(a *App, ctx context.Context, args []string) error
}

// commands are mneme's commands in the order `mneme help` lists them.
// The chat's name is "": it runs when no command is given.
func commands() []command {
	return []command{chatCommand(), askCommand(), conversationsCommand(), searchCommand(), memoryCommand(),
		docsCommand(), importCommand(), exportCommand(), reindexCommand(), syncCommand(), doctorCommand(), evalCommand(), versionCommand()}
}

func versionCommand() command {
	return command{
		names: []string{"version"},
		help:  "  mneme version\n",
		run: func(a *App, _ context.Context, args []string) error {
			if flagtext.HelpAsked(args) {
				fmt.Fprint(a.stdout, "Usage: mneme version\n\nPrints the version of mneme.\n")
				return nil
			}
			if err := noArgs("version", args); err != nil {
				return err
			}
			fmt.Fprintln(a.stdout, "mneme", version)
			return nil
		},
	}
}

// usage is the command list `mneme help` prints.
func usage() string {
	var b strings.Builder
	b.WriteString("mneme: chat with a local Ollama model; every message is kept.\n\nUsage:\n")
	for _, c := range commands() {
		b.WriteString(c.help)
	}
	b.WriteString(`
Flags common to every command:
  --config FILE   --data-dir DIR   --user NAME   --model NAME   --ollama URL   --embed-model NAME
  --num-ctx N   --num-ctx-max N

Run 'mneme COMMAND -h' for a command's flags.
`)
	return b.String()
}

// Run dispatches to a subcommand.
func (a *App) Run(ctx context.Context, args []string) error {
	out := &printer.Checked{W: a.stdout}
	orig := a.stdout
	a.stdout = out
	defer func() { a.stdout = orig }()
	err := a.runCommand(ctx, args)
	var ex exitError
	if out.Err != nil && (err == nil || errors.As(err, &ex) && ex.code == 0) {
		// Output lost (a full disk, a closed pipe) is not success, a
		// help asked for (-h, which ends with exit code 0) included.
		err = outputError{out.Err}
	}
	return err
}

// outputError is a command's output lost after it did its work.
type outputError struct{ err error }

func (e outputError) Error() string { return "write output: " + e.err.Error() }
func (e outputError) Unwrap() error { return e.err }

// runCommand runs the command args name.
func (a *App) runCommand(ctx context.Context, args []string) error {
	if len(args) == 1 && args[0] == "--version" {
		args = []string{"version"} // as most tools take it
	}
	name, args := splitCommand(args)
	if name == "help" {
		// `mneme help COMMAND` is the command's own help.
		// Its words too: `mneme help docs add` is docs add's.
		if len(args) > 0 && !strings.HasPrefix(args[0], "-") && args[0] != "help" {
			return a.runCommand(ctx, append(slices.Clone(args), "--help"))
		}
		fmt.Fprint(a.stdout, usage())
		return nil
	}
	for _, c := range commands() {
		if slices.Contains(c.names, name) {
			return c.run(a, ctx, args)
		}
	}
	fmt.Fprint(a.stderr, usage())
	return exitError{code: 2, msg: fmt.Sprintf("unknown command %q", name)}
}

// splitCommand finds the command word: the first argument that is not a
// flag, which may follow flags common to every command (mneme --data-dir D
// search x); those flags are kept for the command, which parses flags
// anywhere. No command word: the chat.
func splitCommand(args []string) (string, []string) {
	// The flags that may come first: the common ones and the chat's.
	var common config.Flags
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	common.Register(fs)
	common.Stream.Register(fs)
	registerChatFlags(fs)
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return "", args
		}
		if !strings.HasPrefix(a, "-") {
			return a, flagtext.Move(args[:i], args[i+1:])
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

// newFlagSet makes a command's FlagSet with the common flags registered.
func (a *App) newFlagSet(name, usage string, common *config.Flags) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// The flag package's own error line is dropped: the usage below goes to
	// stderr, and the error once, last, as "mneme: …".
	fs.SetOutput(io.Discard)
	common.Register(fs)
	var shared []string
	fs.VisitAll(func(f *flag.Flag) { shared = append(shared, f.Name) })
	fs.Usage = func() {
		// The command's own flags in full; the ones every command takes
		// (the data dir, the user, Ollama, the models) named on one line.
		flagtext.Usage(a.usageOut(fs), fs, usage, shared)
	}
	return fs
}

// parseArgs parses flags that may come before or after positional arguments.
// "--" ends flag parsing.
// helpOut marks the output of a flag set whose usage was asked for.
type helpOut struct{ io.Writer }

// usageOut is where fs's usage goes: stdout when asked for (-h, --help,
// as `git … -h | less` expects), else stderr, after a bad flag.
func (a *App) usageOut(fs *flag.FlagSet) io.Writer {
	if h, ok := fs.Output().(helpOut); ok {
		return h.Writer
	}
	return a.stderr
}

func (a *App) parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	if flagtext.HelpAsked(args) {
		fs.SetOutput(helpOut{a.stdout}) // asked for, the usage goes to stdout (a.usageOut)
	}
	var positional []string
	usage := fs.Usage
	fs.Usage = func() {} // said below: the whole usage for a flag unknown, not for a bad value
	defer func() { fs.Usage = usage }()
	for {
		// In a command's text, once begun, a word with one dash is text
		// ("what does tar -c do" lost -c to --continue); flags after the
		// text take two dashes.
		if len(positional) > 0 && takesText(fs.Name()) && len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && args[0][1] != '-' {
			if fs.Lookup(strings.TrimPrefix(args[0], "-")) != nil {
				fmt.Fprintf(a.stderr, "mneme: %s after the text is part of it; as a flag, it goes before the text\n", sanitize.Line(args[0]))
			}
			positional, args = append(positional, args[0]), args[1:]
			continue
		}
		if msg := flagtext.Empty(fs, args); msg != "" && !flagtext.HelpAsked(args) { // said as a bad value is: one line
			return nil, exitError{code: 2, msg: msg}
		}
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				usage()
				return nil, exitError{code: 0}
			}
			// A bad value is said as a bad setting is said from the
			// environment or the file: "--num-ctx abc: invalid value: …".
			if msg, ok := config.BadFlagValue(fs, err); ok {
				return nil, exitError{code: 2, msg: msg}
			}
			usage()
			return nil, exitError{code: 2, msg: flagtext.Error(err)}
		}
		if msg := flagtext.Swallowed(fs); msg != "" {
			usage()
			return nil, exitError{code: 2, msg: msg}
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

// takesText reports whether the command's words are text: a prompt, a
// query, a note.
func takesText(command string) bool {
	switch command {
	case "ask", "search", "memory add", "memory edit", "memory search", "docs search":
		return true
	}
	return false
}

// shortPrefix is arg when it is too short an id prefix to delete by
// (memory.MinChangePrefix), else "": a full id that short still counts.
func shortPrefix(arg string) string {
	if arg = strings.TrimSpace(arg); len(arg) < memory.MinChangePrefix {
		return arg
	}
	return ""
}

// noArgs is the usage error of a command that takes no arguments but was
// given some.
func noArgs(cmd string, rest []string) error {
	if len(rest) == 0 {
		return nil
	}
	return exitError{code: 2, msg: fmt.Sprintf("%s: unexpected argument %q", cmd, rest[0])}
}
