package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/syncer"
)

// version is set at build time with -ldflags "-X main.version=...".
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

// session is what a command needs once configuration is resolved.
type session struct {
	cfg     Config
	store   *memory.Store
	log     *slog.Logger
	logFile *os.File
	prevLog io.Writer // the standard logger's output before the session took it
	client  *api.Client
	host    string
	// syncerVal is made by syncer() (cmd_sync.go) when sync is set up.
	syncerVal  *syncer.Syncer
	syncerMade bool
	// progress reports long catch-ups of the search index on stderr; nil
	// in the chat, which owns the screen.
	progress *indexProgress
}

// open resolves configuration, opens the log file and the store, and makes
// an Ollama client. It does not talk to Ollama.
func (a *App) open(ctx context.Context, flags commonFlags) (*session, error) {
	return a.openStore(ctx, flags)
}

// openForReading is open for the commands that only read (doctor, export):
// a database written by a newer mneme opens read-only instead of failing,
// and s.store.ReadOnlyReason says why.
func (a *App) openForReading(ctx context.Context, flags commonFlags) (*session, error) {
	return a.openStore(ctx, flags, memory.ReadOnlyIfNewer())
}

func (a *App) openStore(ctx context.Context, flags commonFlags, extra ...memory.Option) (*session, error) {
	cfg, err := loadConfig(flags, a.getenv)
	if err != nil {
		return nil, err
	}
	u, err := ollamaURL(cfg.Ollama)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(cfg.DataDir, 0o700); err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	// A data dir that others can enter (made by hand, or by an older
	// mneme) would let them read the files in it: make it owner-only.
	if fi, err := os.Stat(cfg.DataDir); err == nil && fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(cfg.DataDir, 0o700); err != nil {
			return nil, fmt.Errorf("data dir %s is readable by other users and cannot be made private: %w", cfg.DataDir, err)
		}
	}
	s := &session{cfg: cfg, host: u.String(), progress: newIndexProgress(a.stderr)}
	s.logFile, err = os.OpenFile(filepath.Join(cfg.DataDir, "mneme.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		level = slog.LevelInfo
	}
	s.log = slog.New(slog.NewTextHandler(s.logFile, &slog.HandlerOptions{Level: level}))
	// Libraries that log through the standard logger (Bleve's scorch does)
	// write to the log file, never over the chat screen or a command's output.
	s.prevLog = log.Writer()
	log.SetOutput(s.logFile)
	s.store, err = memory.Open(ctx, filepath.Join(cfg.DataDir, memory.DBFileName), append(storeOptions(cfg), extra...)...)
	if err != nil {
		log.SetOutput(s.prevLog)
		s.logFile.Close()
		return nil, err
	}
	// No overall timeout: answers stream for as long as they take. Dialing
	// and the first response byte are bounded so a dead address fails fast.
	// Tool calls whose arguments are not a JSON object get an error result
	// instead of failing the turn (agent.ToleratingTransport).
	s.client = api.NewClient(u, &http.Client{Transport: agent.ToleratingTransport(&http.Transport{
		Proxy:       http.ProxyFromEnvironment,
		DialContext: (&dialer).DialContext,
		// A cold model load can be slow. Chat streams are bounded sooner,
		// with a clearer message, by first_token_timeout.
		ResponseHeaderTimeout: max(5*time.Minute, cfg.FirstTokenTimeout+time.Minute),
	})})
	s.log.Debug("session opened", "data_dir", cfg.DataDir, "user", cfg.User, "ollama", s.host)
	return s, nil
}

func (s *session) Close() {
	if s.progress != nil {
		s.progress.end()
	}
	s.store.Close()
	log.SetOutput(s.prevLog) // never into a closed file
	s.logFile.Close()
}
