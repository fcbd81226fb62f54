package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/printer"
	"github.com/mneme-dev/mneme/internal/stdin"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/memory/syncer"
)

// Bounds on waiting for sync where the user is waiting.
const (
	exitSyncWait  = 5 * time.Second // leaving the chat
	syncIndexWait = 3 * time.Second // opening the index for `mneme sync`
)

// syncer returns the session's Syncer, or nil when sync is not configured.
func (s *session) syncer() *syncer.Syncer {
	if s.syncerMade || s.cfg.Sync.URL == "" {
		return s.syncerVal
	}
	s.syncerMade = true
	sy, err := syncer.NewSyncer(s.store, syncer.SyncConfig{
		URL: s.cfg.Sync.URL, Token: s.cfg.Sync.Token, Interval: s.cfg.Sync.Every,
		EncryptionKey: s.cfg.EncryptionKey != "", Log: s.log, OnMerge: s.onMerge,
	})
	if err != nil {
		s.log.Warn("sync is off", "err", err)
		return nil
	}
	s.syncerVal = sy
	return sy
}

// startSync runs sync beside the chat and returns the function that stops
// it at exit, after one last sync of what is pending (bounded).
func (s *session) startSync(ctx context.Context, ix *index.Index) (stop func()) {
	sy := s.syncer()
	if sy == nil {
		return func() {}
	}
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		// Attaching may bring the index up to date with a replica another
		// process pulled into: not before the chat opens.
		if ix != nil {
			if err := sy.AttachIndex(rctx, ix); err != nil {
				s.log.Warn("sync: index", "err", err)
			}
		}
		sy.Run(rctx)
	}()
	return func() {
		deadline := time.Now().Add(exitSyncWait)
		cancel()
		select {
		case <-done:
		case <-time.After(time.Until(deadline)):
		}
		fctx, fcancel := context.WithDeadline(context.WithoutCancel(ctx), deadline)
		defer fcancel()
		if err := sy.Final(fctx); err != nil {
			s.log.Info("sync at exit", "err", err)
		}
	}
}

// syncAfterChange sends a change (a turn, a note, an import) to the server
// (syncer.AfterChange: bounded, and said on stderr when the server does not
// answer). Failures are logged: the change is stored.
func (s *session) syncAfterChange(ctx context.Context, ix *index.Index) {
	sy := s.syncer()
	if sy == nil {
		return
	}
	if ix != nil {
		if err := sy.AttachIndex(context.WithoutCancel(ctx), ix); err != nil {
			s.log.Warn("sync: index", "err", err)
		}
	}
	say := func(string) {}
	if s.progress != nil { // a command's stderr; the chat owns its screen
		say = s.progress.Say
	}
	if err := sy.AfterChange(ctx, say); err != nil {
		s.log.Info("sync after a change", "err", err)
	}
}

func syncCommand() command {
	return command{names: []string{"sync"}, run: (*App).runSync,
		help: "  mneme sync [--status [--json]]     sync memory with your other devices now (Turso)\n" +
			"  mneme sync init URL                set up sync (token from stdin or MNEME_SYNC_TOKEN)\n"}
}

func (a *App) runSync(ctx context.Context, args []string) error {
	if len(args) > 0 && args[0] == "init" {
		return a.runSyncInit(ctx, args[1:])
	}
	var common config.Flags
	fs := a.newFlagSet("sync", "mneme sync [--status] [--json] | mneme sync init URL", &common)
	status := fs.Bool("status", false, "show the state of sync without syncing")
	asJSON := fs.Bool("json", false, "print JSON")
	rest, err := a.parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := noArgs("sync", rest); err != nil {
		return err
	}
	s, err := a.open(ctx, common)
	if err != nil {
		return err
	}
	defer s.Close()
	s.onMerge = func(attempt, attempts int) {
		if attempt == 1 {
			fmt.Fprintln(a.stderr, "mneme: merging this device's memory with the server's copy…")
			return
		}
		fmt.Fprintf(a.stderr, "mneme: the server changed during the merge; starting over (attempt %d of %d)…\n", attempt, attempts)
	}
	sy := s.syncer()
	if *status {
		return a.printSyncStatus(ctx, sy, *asJSON)
	}
	if sy == nil {
		return exitError{code: 2, msg: "sync is not set up: run `mneme sync init URL` (see `turso db show --url`)"}
	}
	if ix := openIndexWithin(ctx, s, syncIndexWait); ix != nil {
		defer ix.Close()
		if err := sy.AttachIndex(ctx, ix); err != nil {
			s.log.Warn("sync: index", "err", err)
		}
	} else {
		s.log.Info("sync: search index busy or unavailable; the process using it updates it")
	}
	rep, err := sy.SyncNow(ctx)
	if err != nil {
		if ctx.Err() != nil { // Ctrl+C, whatever the round was waiting on
			return exitError{code: ExitInterrupted, msg: "sync interrupted; your memory is kept here and syncs next time"}
		}
		if errors.Is(err, syncer.ErrSyncOffline) {
			return fmt.Errorf("the sync server at %s did not answer, or stopped answering; your memory is kept here and syncs when it is back", sy.URL())
		}
		return fmt.Errorf("sync with %s failed: %w", sy.URL(), err)
	}
	if *asJSON {
		return writeJSON(a.stdout, rep)
	}
	fmt.Fprintf(a.stdout, "synced with %s: %s (%s)\n", sy.URL(), rep, rep.Duration.Round(time.Millisecond))
	return nil
}

// openIndexWithin opens the keyword index unless another process holds it
// for longer than d (the chat does, and keeps it up to date itself).
func openIndexWithin(ctx context.Context, s *session, d time.Duration) *index.Index {
	type result struct {
		ix  *index.Index
		err error
	}
	ch := make(chan result, 1)
	go func() {
		ix, err := s.openIndex(ctx, ollamaState{})
		ch <- result{ix, err}
	}()
	select {
	case r := <-ch:
		if r.err != nil {
			s.log.Warn("sync: open index", "err", r.err)
			return nil
		}
		return r.ix
	case <-time.After(d):
		go func() {
			if r := <-ch; r.ix != nil {
				r.ix.Close()
			}
		}()
		return nil
	}
}

// syncStatusJSON is `mneme sync --status --json`.
type syncStatusJSON struct {
	Configured bool `json:"configured"`
	*syncer.SyncStatus
}

func (a *App) printSyncStatus(ctx context.Context, sy *syncer.Syncer, asJSON bool) error {
	if sy == nil {
		if asJSON {
			return writeJSON(a.stdout, syncStatusJSON{})
		}
		fmt.Fprintln(a.stdout, "sync is not set up: run `mneme sync init URL`")
		return nil
	}
	st := sy.Status(ctx)
	if asJSON {
		return writeJSON(a.stdout, syncStatusJSON{Configured: true, SyncStatus: &st})
	}
	printer.SyncStatus(a.stdout, st, time.Now())
	return nil
}

// runSyncInit writes the sync settings to the config file. The token comes
// from stdin (piped, or typed without echo) or the environment, never from
// the command line, where other users and shell history could see it.
func (a *App) runSyncInit(ctx context.Context, args []string) error {
	var common config.Flags
	fs := a.newFlagSet("sync init", "mneme sync init [--interval 5m] URL   (token on stdin or in MNEME_SYNC_TOKEN / TURSO_AUTH_TOKEN)", &common)
	interval := fs.String("interval", "", "how often a running mneme syncs: a `DURATION` such as 5m (default 5m; \"off\" for never)")
	rest, err := a.parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return exitError{code: 2, msg: "sync init: give the database URL, e.g. `mneme sync init libsql://memory-you.turso.io`"}
	}
	raw := rest[0]
	if strings.Contains(raw, "?") || strings.Contains(raw, "@") {
		return exitError{code: 2, msg: "sync init: put the token on stdin or in MNEME_SYNC_TOKEN, not in the URL"}
	}
	if _, _, err := syncer.NormalizeSyncURL(raw); err != nil {
		return exitError{code: 2, msg: err.Error()}
	}
	if *interval != "" {
		if err := config.CheckSyncInterval(*interval); err != nil {
			return exitError{code: 2, msg: err.Error()}
		}
	}
	cfg, err := config.Load(common, a.getenv)
	if err != nil {
		return err
	}
	token, err := a.readToken(ctx, cfg.Sync.Token != "")
	if err == nil {
		err = ctx.Err() // Ctrl+C with the line typed after it in one burst: nothing is written
	}
	if err != nil {
		return err
	}
	if token == "" {
		token = cfg.Sync.Token // empty keeps the token set (re-run to change the URL)
	}
	if err := config.WriteSync(cfg.ConfigFile, raw, token, *interval); err != nil {
		return fmt.Errorf("sync init: %w", err)
	}
	if _, err := config.Load(common, a.getenv); err != nil {
		return fmt.Errorf("sync init: the config written does not load: %w", err)
	}
	_, display, _ := syncer.NormalizeSyncURL(raw)
	tokenNote := "with a token"
	if token == "" {
		tokenNote = "without a token (Turso needs one: `turso db tokens create DB`)"
	}
	fmt.Fprintf(a.stdout, "sync set up for %s %s in %s (readable by you only).\nRun `mneme sync` to sync now; a running mneme also syncs on its own.\n", display, tokenNote, cfg.ConfigFile)
	return nil
}

// readToken takes the token from piped stdin, the environment, or a prompt
// without echo on a terminal ("" when there is none).
func (a *App) readToken(ctx context.Context, set bool) (string, error) {
	if f, ok := a.stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		if t := config.TokenFromEnv(a.getenv); t != "" {
			return strings.TrimSpace(t), nil
		}
		fmt.Fprintf(a.stderr, "Token (from `turso db tokens create DB`; input hidden, %s): ",
			map[bool]string{false: "empty for none", true: "empty keeps the one set"}[set])
		t, err := stdin.PromptSecret(ctx, int(f.Fd()))
		fmt.Fprintln(a.stderr)
		switch {
		case errors.Is(err, stdin.ErrInterrupted):
			return "", exitError{code: ExitInterrupted, msg: "sync init: interrupted; nothing was written"}
		case err != nil:
			return "", fmt.Errorf("read token: %w", err)
		}
		return strings.TrimSpace(t), nil
	}
	if a.stdinPiped() {
		line, err := bufio.NewReader(io.LimitReader(a.stdin, 64<<10)).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return "", fmt.Errorf("read token: %w", err)
		}
		if t := strings.TrimSpace(line); t != "" {
			return t, nil
		}
	}
	return strings.TrimSpace(config.TokenFromEnv(a.getenv)), nil
}
