package printer

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
)

// Notes prints notes as `memory list` does: a row each, with who made it
// and where it was saved, its text on one line and its tags.
func Notes(w io.Writer, notes []memory.Note, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tUPDATED\tBY\tSAVED IN\tNOTE")
	for _, n := range notes {
		from := "-"
		if n.ConversationID != "" {
			from = fmt.Sprintf("%s turn %d", sanitize.Line(n.ConversationID), n.TurnNumber)
		}
		note := text.Cut(text.OneLine(sanitize.Text(n.Content)), 80)
		if len(n.Tags) > 0 {
			note += "  #" + sanitize.Line(strings.Join(n.Tags, " #"))
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", sanitize.Line(n.ID), text.RelativeDate(now, n.Updated), noteBy(n), from, note)
	}
	return tw.Flush()
}

// noteBy says who made a note, with the confidence of a learnt one.
func noteBy(n memory.Note) string {
	by := n.Source
	if n.Source == memory.SourceExtracted || n.Source == memory.SourceImported {
		by = fmt.Sprintf("%s %.0f%%", n.Source, n.Confidence*100)
	}
	if n.Status != memory.NoteActive && n.Status != "" {
		by += ", " + n.Status
	}
	return by
}
