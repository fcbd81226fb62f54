package eval

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/learn"
)

// WriteTable prints the report for a person: extraction by kind, then
// consolidation.
func (rep Report) WriteTable(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "Model %s, %d dialogues, matcher: %s\n\n", sanitize.Line(rep.Model), rep.Dialogues, rep.Matcher)
	fmt.Fprintln(tw, "EXTRACTION\tPRECISION\tRECALL\tMATCHED/EXTRACTED\tMATCHED/EXPECTED")
	row := func(name string, s Scores) {
		fmt.Fprintf(tw, "%s\t%.2f\t%.2f\t%d/%d\t%d/%d\n", name, s.Precision, s.Recall, s.Matched, s.Extracted, s.MatchedExpected, s.Expected)
	}
	row("all", rep.Extraction)
	kinds := make([]string, 0, len(rep.ByKind))
	for k := range rep.ByKind {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	for _, k := range kinds {
		row("  "+sanitize.Line(k), rep.ByKind[k])
	}
	fmt.Fprintf(tw, "\nDialogues with nothing to remember left empty: %d of %d\n", rep.Quiet, rep.QuietOf)
	fmt.Fprintf(tw, "Malformed extraction replies: %d\n", rep.Failed)
	c := rep.Consolidation
	var events []string
	for _, e := range []learn.Event{learn.EventAdd, learn.EventUpdate, learn.EventDelete, learn.EventNone} {
		events = append(events, fmt.Sprintf("%s %d", e, c.Events[e]))
	}
	fmt.Fprintf(tw, "\nConsolidation: %s; %d notes kept\n", strings.Join(events, ", "), len(c.Kept))
	fmt.Fprintf(tw, "Duplicate rate: %.2f (%d pairs of kept notes say the same)\n", c.DuplicateRate, len(c.DuplicatePairs))
	for _, p := range c.DuplicatePairs {
		fmt.Fprintf(tw, "  %q = %q\n", sanitize.Line(p[0]), sanitize.Line(p[1]))
	}
	if c.Errors > 0 {
		fmt.Fprintf(tw, "Consolidation errors: %d\n", c.Errors)
	}
	return tw.Flush()
}
