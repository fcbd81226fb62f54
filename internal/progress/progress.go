// Package progress reports long work on a terminal.
package progress

import (
	"fmt"
	"io"
	"sync"

	"github.com/mneme-dev/mneme/internal/text"
)

// MinTurns is the smallest catch-up of the keyword index that is
// reported: about a second of work on a slow machine. Smaller ones (a new
// turn, a small import) pass silently.
const MinTurns = 1000

// Index reports a long catch-up of the keyword index (the rebuild
// after a crash, a big import) on stderr: on a terminal a counter updated in
// place, otherwise one line per catch-up. Commands that have no screen of
// their own use it; the chat does not.
type Index struct {
	w   io.Writer
	tty bool

	mu   sync.Mutex
	last int  // done at the last report (0: none): a smaller done starts a new catch-up
	open bool // a counter line is on the terminal without its newline
}

// New reports on w (a counter in place when w is a terminal).
func New(w io.Writer) *Index {
	return &Index{w: w, tty: isTerminal(w)}
}

// Report is index.IndexOptions.Progress.
func (p *Index) Report(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	fresh := p.last == 0 || done <= p.last
	p.last = done
	if total < MinTurns {
		return
	}
	if !p.tty {
		if fresh {
			fmt.Fprintf(p.w, "mneme: indexing %s turns for search…\n", text.Thousands(total))
		}
		return
	}
	fmt.Fprintf(p.w, "\rmneme: indexing turns for search: %s of %s", text.Thousands(done), text.Thousands(total))
	p.open = done < total
	if !p.open {
		fmt.Fprintln(p.w)
	}
}

// Say prints a notice of the command's on a line of its own.
func (p *Index) Say(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
	fmt.Fprintln(p.w, "mneme:", line)
}

// End finishes a counter line cut short (an interrupted catch-up), so that
// what is printed next starts on a line of its own.
func (p *Index) End() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
}
