package printer

import (
	"fmt"
	"io"
	"time"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/memory/syncer"
)

// SyncStatus prints `mneme sync --status`: one row a line, times with how
// long ago (from now) they were.
func SyncStatus(w io.Writer, st syncer.SyncStatus, now time.Time) {
	when := func(t *time.Time) string {
		if t == nil {
			return "never"
		}
		return fmt.Sprintf("%s (%s ago)", t.Local().Format("2006-01-02 15:04:05"), now.Sub(*t).Round(time.Second))
	}
	// One line per row: an error from the server or the driver may span
	// several lines ("…\n\nCaused by: …").
	row := func(k, v string) {
		fmt.Fprintf(w, "%-14s %s\n", k+":", sanitize.Line(v))
	}
	row("server", st.URL)
	row("state", st.Label())
	row("last success", when(st.LastSuccess))
	row("pending", fmt.Sprintf("%d local changes not on the server yet", st.Pending))
	if st.LastError != "" {
		row("last error", st.LastError)
	}
	if st.LastConflict != nil {
		row("last conflict", when(st.LastConflict))
	}
	if st.Message != "" {
		row("note", st.Message)
	}
}
