package printer

import (
	"fmt"
	"io"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory/history"
)

// History prints a note's changes, newest first (`memory history`), each
// id as short names it alone (history.ShortID).
func History(w io.Writer, changes []history.Change, shortID func(id string) string) {
	fmt.Fprintf(w, "Note %s, newest change first:\n", sanitize.Line(changes[0].NoteID))
	for _, c := range changes {
		fmt.Fprintf(w, "%s  %s  %-7s by %s", shortID(c.ID), c.At.Local().Format("2006-01-02 15:04"), c.Op, c.By)
		if c.Undoes != "" {
			fmt.Fprintf(w, " (undo of %s)", shortID(c.Undoes))
		}
		if c.UndoneBy != "" {
			fmt.Fprintf(w, " (undone by %s)", shortID(c.UndoneBy))
		}
		fmt.Fprintln(w)
		fmt.Fprint(w, describeChange(c))
	}
}

// describeChange is a change's text and status, before → after, indented.
func describeChange(c history.Change) string {
	line := func(s string) string { return text.Cut(text.OneLine(sanitize.Text(s)), 100) }
	out := ""
	switch {
	case c.BeforeText != "" && c.AfterText != "" && c.BeforeText != c.AfterText:
		out += "    before: " + line(c.BeforeText) + "\n    after:  " + line(c.AfterText) + "\n"
	case c.AfterText != "":
		out += "    " + line(c.AfterText) + "\n"
	case c.BeforeText != "":
		out += "    was: " + line(c.BeforeText) + "\n"
	}
	if c.BeforeStatus != c.AfterStatus && c.BeforeStatus != "" && c.AfterStatus != "" {
		out += fmt.Sprintf("    status: %s → %s\n", sanitize.Line(c.BeforeStatus), sanitize.Line(c.AfterStatus))
	}
	return out
}
