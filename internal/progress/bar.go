package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/mneme-dev/mneme/internal/text"
)

// Bar is a bar with a count ("[████░░] 12/340 turns") on a terminal's
// stderr while a command works through many items; elsewhere it shows
// nothing (the command's own lines say it all). Clear takes it off the
// line before other output.
type Bar struct {
	w     io.Writer
	total int
	unit  string
	on    bool
}

// NewBar is a bar for total items, named unit.
func NewBar(w io.Writer, total int, unit string) *Bar {
	return &Bar{w: w, total: total, unit: unit, on: total > 1 && isTerminal(w)}
}

// Show draws the bar with done items done.
func (p *Bar) Show(done int) {
	if p.on && done < p.total {
		fmt.Fprintf(p.w, "\r[%s] %s/%s %s", bar(float64(done)/float64(p.total)), text.Thousands(done), text.Thousands(p.total), p.unit)
	}
}

// Clear takes the bar off its line.
func (p *Bar) Clear() {
	if p.on {
		fmt.Fprint(p.w, "\r\x1b[K")
	}
}

// bar is a progress bar 30 cells wide, done the given share (0-1).
func bar(share float64) string {
	const width = 30
	filled := min(max(int(share*width), 0), width)
	return strings.Repeat("█", filled) + strings.Repeat("░", width-filled)
}

// isTerminal reports whether w is a terminal that can redraw a line: a
// dumb one (TERM=dumb: an editor's shell, a serial console) cannot, and
// gets what a pipe gets.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd())) && os.Getenv("TERM") != "dumb"
}

// Import shows an import on stderr: on a terminal a bar of
// the conversations stored out of the export's total (counted first from a
// file; for stdin, the share of what was read instead), updated in place
// at most ten times a second; elsewhere nothing until the summary.
type Import struct {
	w   io.Writer
	tty bool

	mu   sync.Mutex
	last time.Time
	open bool
	// held is the last reading not drawn (within 100 ms of the one
	// before): End draws it, so the bar ends where the import did.
	held  bool
	conv  int
	share float64
	// Total is how many conversations the export holds (-1 or 0: unknown,
	// as for stdin; the bar then shows the share of the file read).
	Total int
}

// NewImport reports on w, when it is a terminal.
func NewImport(w io.Writer) *Import { return &Import{w: w, tty: isTerminal(w)} }

// OnTerminal tells whether the import is shown at all.
func (p *Import) OnTerminal() bool { return p.tty }

// Report shows conversations stored (-1: a file of messages, counted by
// the fraction of it read).
func (p *Import) Report(conversations int, fraction float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.tty {
		return
	}
	p.conv, p.share, p.held = conversations, fraction, true
	if time.Since(p.last) < 100*time.Millisecond {
		return
	}
	p.last = time.Now()
	p.draw()
}

// draw writes the held reading over the line.
func (p *Import) draw() {
	p.held = false
	conversations, fraction := p.conv, p.share
	switch {
	case conversations < 0: // a file of messages (mneme's JSON lines)
		fmt.Fprintf(p.w, "\r\x1b[Kmneme: import: [%s] %d%% of the file", bar(fraction), int(fraction*100))
	case p.Total > 0:
		fmt.Fprintf(p.w, "\r\x1b[Kmneme: import: [%s] %s of %s conversations", bar(float64(conversations)/float64(p.Total)),
			text.Thousands(conversations), text.Thousands(p.Total))
	case fraction >= 0:
		fmt.Fprintf(p.w, "\r\x1b[Kmneme: import: [%s] %d%% of the file · %s conversations", bar(fraction),
			int(fraction*100), text.Thousands(conversations))
	default:
		fmt.Fprintf(p.w, "\r\x1b[Kmneme: import: %s conversations", text.Thousands(conversations))
	}
	p.open = true
}

// End finishes the counter line so that what follows has a line of its own.
func (p *Import) End() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open && p.held {
		p.draw()
	}
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
}
