package printer

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory/docstore"
	"github.com/mneme-dev/mneme/memory/index"
)

// DocRow is one row of `docs list`: a document, and how far search has
// its passages.
type DocRow struct {
	docstore.Document
	State   string `json:"state"`
	Pending int    `json:"pending"`
}

// Documents prints `docs list`'s table.
func Documents(w io.Writer, rows []DocRow, now time.Time) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTITLE\tTYPE\tSIZE\tPASSAGES\tSTATE\tADDED\tPATH")
	for _, r := range rows {
		title := r.Title
		if r.Collection != "" {
			title = r.Collection + "/" + title
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", text.Prefix(r.ID, 8), text.Cut(sanitize.Title(title), 40), sanitize.Line(r.Type), text.Bytes(r.Size),
			r.Chunks, r.State, text.RelativeDate(now, r.AddedAt), sanitize.Line(r.Path))
	}
	return tw.Flush()
}

// DocHits prints `docs search`'s passages, each with where it is and the
// command that shows it.
func DocHits(w io.Writer, hits []index.DocHit) {
	for i, h := range hits {
		fmt.Fprintf(w, "%2d. %.2f  %s · %s\n", i+1, h.Score, Where(h.Title, h.Page, h.Heading), h.MatchedBy)
		fmt.Fprintf(w, "    %s\n", sanitize.Line(h.Snippet))
		fmt.Fprintf(w, "    %s · mneme docs show %s --chunk %d\n", sanitize.Line(h.Path), sanitize.Line(text.Prefix(h.DocumentID, 8)), h.Chunk)
	}
}
