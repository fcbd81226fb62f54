package printer

import (
	"cmp"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory/index"
)

// Found prints what `conversations --find` found: the one conversation a
// description is about, or the close matches to choose from, or none.
func Found(w io.Writer, winner *index.ConversationMatch, choices []index.ConversationMatch, description string) {
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
		title := cmp.Or(sanitize.Title(m.Title), "(untitled)")
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\t%s\n", sanitize.Line(m.ID), text.RelativeDate(now, m.Updated), m.Score, strings.Join(m.MatchedBy, "+"), title)
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
