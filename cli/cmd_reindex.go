package cli

import (
	"context"
	"fmt"

	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory/index"
)

func reindexCommand() command {
	return command{names: []string{"reindex"}, run: (*App).runReindex,
		help: "  mneme reindex                      rebuild the keyword index from the database\n"}
}

func (a *App) runReindex(ctx context.Context, args []string) error {
	var common config.Flags
	fs := a.newFlagSet("reindex", "mneme reindex", &common)
	rest, err := a.parseArgs(fs, args)
	if err != nil {
		return err
	}
	if err := noArgs("reindex", rest); err != nil {
		return err
	}
	return a.withNoteIndex(ctx, common, false, func(s *session, ix *index.Index) error {
		if err := ix.Reindex(ctx); err != nil {
			return err
		}
		n, err := s.store.CountTurns(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(a.stdout, "Rebuilt the keyword index: %s.\n", text.Count(n, "turn", "turns"))
		return nil
	})
}
