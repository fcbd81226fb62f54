package cli

import (
	"context"
	"fmt"

	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/private"
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
	dir, remove, err := private.Throwaway("mneme-incognito-")
	if err != nil {
		return nil, nil, fmt.Errorf("incognito: temporary directory: %w", err)
	}
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
