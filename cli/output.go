package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
)

// writeJSON prints v as indented JSON, as every --json output does, with
// the characters a terminal acts on escaped (sanitize.JSON).
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(sanitize.JSON(b), '\n'))
	return err
}

// writeJSONLine prints v as one line of JSON, escaped like writeJSON.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(sanitize.JSON(b), '\n'))
	return err
}

// progressBar is a bar with a count ("[████░░] 12/340 turns") on a
// terminal's stderr while a command works through many items; elsewhere
// it shows nothing (the command's own lines say it all). clear takes it
// off the line before other output.
type progressBar struct {
	w     io.Writer
	total int
	unit  string
	on    bool
}

func newProgressBar(w io.Writer, total int, unit string) *progressBar {
	f, ok := w.(*os.File)
	return &progressBar{w: w, total: total, unit: unit, on: ok && total > 1 && term.IsTerminal(int(f.Fd()))}
}

func (p *progressBar) show(done int) {
	if p.on && done < p.total {
		fmt.Fprintf(p.w, "\r[%s] %s/%s %s", bar(float64(done)/float64(p.total)), text.Thousands(done), text.Thousands(p.total), p.unit)
	}
}

// bar is a progress bar 30 cells wide, done the given share (0-1).
func bar(share float64) string {
	const width = 30
	filled := min(max(int(share*width), 0), width)
	return strings.Repeat("█", filled) + strings.Repeat("░", width-filled)
}

func (p *progressBar) clear() {
	if p.on {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}
