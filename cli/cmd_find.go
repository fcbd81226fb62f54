package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
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
			printFound(a.stdout, winner, choices, description)
		}
		if len(choices) == 0 {
			return exitError{code: 1}
		}
		return nil
	})
}

func printFound(w io.Writer, winner *index.ConversationMatch, choices []index.ConversationMatch, description string) {
	switch {
	case len(choices) == 0:
		fmt.Fprintf(w, "No conversation matches %q.\n", description)
		return
	case winner != nil:
		fmt.Fprintln(w, "Found:")
	default:
		fmt.Fprintf(w, "%d conversations match %q about as well; pick one:\n", len(choices), description)
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tSCORE\tMATCHED BY\tTITLE")
	now := time.Now()
	for _, m := range choices {
		title := m.Title
		if title == "" {
			title = "(untitled)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\t%s\n", sanitize.Line(m.ID), text.RelativeDate(now, m.Updated), m.Score, strings.Join(m.MatchedBy, "+"), sanitize.Title(title))
	}
	tw.Flush()
	for _, m := range choices {
		if m.Snippet != "" && m.Snippet != m.Title { // the title is in the table
			fmt.Fprintf(w, "  %s: %s\n", sanitize.Line(m.ID), text.Cut(text.OneLine(sanitize.Text(m.Snippet)), 100))
		}
	}
	if winner != nil {
		fmt.Fprintf(w, "Open it with: mneme --resume %s\n", sanitize.Line(winner.ID))
	} else {
		fmt.Fprintln(w, "Open one with: mneme --resume ID")
	}
}
