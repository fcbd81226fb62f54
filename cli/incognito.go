package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/flock"
	"github.com/mneme-dev/mneme/internal/shutdown"
)

// Incognito: `mneme --incognito` and `mneme ask --incognito` chat against
// a throwaway data dir (a private temporary directory, removed at exit,
// also when a signal ends the process), so that nothing of the chat
// reaches the user's data dir: no conversation, message, turn, keyword
// entry, vector, summary, title, note or log line. There is no search
// index, so no memory tools and no recall of the user's notes (as in
// ChatGPT's temporary chat), no learning and no sync.

// openIncognito opens a session on a new throwaway data dir. done closes
// the session and removes the directory.
func (a *App) openIncognito(ctx context.Context, flags config.Flags) (s *session, done func(), err error) {
	cfg, err := config.Load(flags, a.getenv)
	if err != nil {
		return nil, nil, err
	}
	sweepIncognito()
	dir, err := os.MkdirTemp("", incognitoPrefix) // mode 0700
	if err != nil {
		return nil, nil, fmt.Errorf("incognito: temporary directory: %w", err)
	}
	// The lock says the directory is in use; a process killed outright
	// (SIGKILL, a crash) drops it, and the next incognito run removes what
	// it left (sweepIncognito).
	// The lock is taken before the file has its name: a sweep that sees the
	// name sees it locked (one that ran first finds no lock file, and
	// leaves the dir alone).
	live, err := os.OpenFile(filepath.Join(dir, incognitoLive+".new"), os.O_CREATE|os.O_RDWR, 0o600)
	if err == nil && !flock.Try(live, flock.Exclusive) {
		live.Close()
		err = errors.New("cannot lock it")
	}
	if err == nil {
		if err = os.Rename(live.Name(), filepath.Join(dir, incognitoLive)); err != nil {
			live.Close()
		}
	}
	if err != nil {
		os.RemoveAll(dir)
		return nil, nil, fmt.Errorf("incognito: temporary directory: %w", err)
	}
	remove := func() { live.Close(); os.RemoveAll(dir) }
	unregister := shutdown.OnExit(remove)
	s, err = a.openConfig(ctx, incognitoConfig(cfg, dir))
	if err != nil {
		unregister()
		remove()
		return nil, nil, err
	}
	return s, func() {
		s.Close()
		unregister()
		remove()
	}, nil
}

const (
	incognitoPrefix = "mneme-incognito-"
	incognitoLive   = "live.lock"
)

// sweepIncognito removes the throwaway data dirs of incognito runs that
// were killed before they could (their lock is free): what was said in
// them must not stay on disk. Other users' dirs are not readable, and are
// left alone.
func sweepIncognito() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), incognitoPrefix+"*"))
	for _, dir := range dirs {
		f, err := os.OpenFile(filepath.Join(dir, incognitoLive), os.O_RDWR, 0)
		if err != nil {
			continue // another user's, or one still being made
		}
		if flock.Try(f, flock.Exclusive) {
			os.RemoveAll(dir)
		}
		f.Close()
	}
}

// incognitoConfig is cfg for a chat that keeps nothing: the data dir is
// dir, and sync, learning and recall are off. The encryption key stays:
// the throwaway database is encrypted at rest like the real one.
func incognitoConfig(cfg config.Config, dir string) config.Config {
	cfg.DataDir = dir
	cfg.Sync = config.SyncSettings{}
	cfg.MemoryReview = config.ReviewOff
	off := false
	cfg.Recall = &off
	return cfg
}

// incognitoError words an ask's error for an incognito run, where nothing
// was kept.
func incognitoError(err error) error {
	ex, ok := err.(exitError)
	if !ok {
		return err
	}
	switch ex.code {
	case ExitInterrupted:
		ex.msg = "interrupted; incognito: nothing was kept"
	case ExitOutputClosed:
		ex.msg = "stdout was closed before the answer was printed in full; incognito: nothing was kept"
	}
	return ex
}
