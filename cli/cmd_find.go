package cli

import (
	"context"
	"strings"

	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/printer"
	"github.com/mneme-dev/mneme/memory/index"
)

// findResult is what `conversations --find --json` prints: the conversation
// to open when one clearly matches, else the close matches to choose from.
type findResult struct {
	Query   string                    `json:"query"`
	Winner  *index.ConversationMatch  `json:"winner"`
	Matches []index.ConversationMatch `json:"matches"`
}

// runFind ranks conversations by a description. One clear winner is
// printed alone; several close ones are listed; none exits 1.
func (a *App) runFind(ctx context.Context, common config.Flags, description string, archived, asJSON bool) error {
	description = strings.TrimSpace(description)
	if description == "" {
		return exitError{code: 2, msg: "conversations: --find needs a description"}
	}
	return a.withIndex(ctx, common, func(s *session, ix *index.Index) error {
		found, err := ix.FindConversations(ctx, index.FindQuery{UserID: s.cfg.User, Text: description, IncludeArchived: archived})
		if err != nil {
			return err
		}
		winner, choices := index.Decide(found)
		if asJSON {
			if choices == nil {
				choices = []index.ConversationMatch{}
			}
			if err := writeJSON(a.stdout, findResult{Query: description, Winner: winner, Matches: choices}); err != nil {
				return err
			}
		} else {
			printer.Found(a.stdout, winner, choices, description)
		}
		if len(choices) == 0 {
			return exitError{code: 1}
		}
		return nil
	})
}
