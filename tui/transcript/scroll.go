package transcript

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// The transcript scrolls virtually: it never renders the whole
// conversation, only the entries that come into view. A position is an
// entry and a row inside its block (the blank separator line before the
// entry, if any, then its rendered lines), so scrolling, jumping to a turn
// and following a stream each render just the few entries they show. This
// is what makes a conversation of thousands of messages open at once (see
// BenchmarkOpenLongConversation).

// ScrollPos is the first row shown: row of entry's block.
type ScrollPos struct{ entry, row int }

func (p ScrollPos) before(q ScrollPos) bool {
	return p.entry < q.entry || p.entry == q.entry && p.row < q.row
}

// Position is where a reader was in a conversation, to come back to.
type Position struct {
	pos    ScrollPos
	follow bool // at the bottom, following new text
}

// wheelRows is how far one mouse wheel step scrolls.
const wheelRows = 3

// sep is the number of blank rows before entry i: none between two
// compact lines (tool calls, receipts), one elsewhere.
func (t *Transcript) sep(i int) int {
	if i == 0 || compact(t.Entries[i].Kind) && compact(t.Entries[i-1].Kind) {
		return 0
	}
	return 1
}

// entryLines is entry i rendered at the current width, one string a row,
// from the cache when it can.
func (t *Transcript) entryLines(i int) []string {
	e := &t.Entries[i]
	if e.ViewWidth != t.width || e.lines == nil {
		e.view, e.ViewWidth = t.render(e, t.now), t.width
		e.lines = strings.Split(e.view, "\n")
	}
	return e.lines
}

func (t *Transcript) blockLen(i int) int { return t.sep(i) + len(t.entryLines(i)) }

func (t *Transcript) blockRow(i, r int) string {
	s := t.sep(i)
	if r < s {
		return ""
	}
	return t.entryLines(i)[r-s]
}

// bottomPos is the position whose page ends with the last row.
func (t *Transcript) bottomPos() ScrollPos {
	need := t.Height
	for i := len(t.Entries) - 1; i >= 0; i-- {
		n := t.blockLen(i)
		if n >= need {
			return ScrollPos{i, n - need}
		}
		need -= n
	}
	return ScrollPos{}
}

// clampPos keeps p inside the transcript and not below the last page.
func (t *Transcript) clampPos(p ScrollPos) (ScrollPos, bool) {
	if len(t.Entries) == 0 {
		return ScrollPos{}, true
	}
	if p.entry >= len(t.Entries) {
		p = ScrollPos{len(t.Entries) - 1, 0}
	}
	p.row = max(0, min(p.row, t.blockLen(p.entry)-1))
	if b := t.bottomPos(); !p.before(b) {
		return b, true
	}
	return p, false
}

// scrollTo moves the page to start at p (within bounds).
func (t *Transcript) scrollTo(p ScrollPos) {
	t.Pos, t.Follow = t.clampPos(p)
	t.prepare()
}

// scrollBy moves the page down (d > 0) or up (d < 0) by d rows.
func (t *Transcript) scrollBy(d int) {
	p := t.Pos
	for d < 0 {
		if p.row > 0 {
			step := min(-d, p.row)
			p.row -= step
			d += step
			continue
		}
		if p.entry == 0 {
			break
		}
		p.entry--
		p.row = t.blockLen(p.entry)
	}
	for d > 0 && p.entry < len(t.Entries) {
		n := t.blockLen(p.entry)
		if left := n - 1 - p.row; left >= d {
			p.row += d
			break
		} else if p.entry == len(t.Entries)-1 {
			p.row = n - 1
			break
		} else {
			d -= left + 1
			p.entry++
			p.row = 0
		}
	}
	t.scrollTo(p)
}

// Scrolling, by the keys and the mouse wheel.
func (t *Transcript) PageUp()   { t.scrollBy(-t.Height) }
func (t *Transcript) PageDown() { t.scrollBy(t.Height) }
func (t *Transcript) Top()      { t.scrollTo(ScrollPos{}) }
func (t *Transcript) Bottom()   { t.scrollTo(t.bottomPos()) }

func (t *Transcript) wheelUp()   { t.scrollBy(-wheelRows) }
func (t *Transcript) wheelDown() { t.scrollBy(wheelRows) }

// AtBottom reports whether the last row is on screen (new text is followed).
func (t *Transcript) AtBottom() bool { return t.Follow }

// scrollToEntry puts entry i's first line at the top of the page (or as
// near as the end of the transcript allows).
func (t *Transcript) scrollToEntry(i int) bool {
	if i < 0 || i >= len(t.Entries) {
		return false
	}
	t.scrollTo(ScrollPos{i, t.sep(i)})
	return true
}

// Position is where the reader is, for coming back to the conversation.
func (t *Transcript) Position() Position { return Position{pos: t.Pos, follow: t.Follow} }

// Restore goes back to a position from position.
func (t *Transcript) Restore(s Position) {
	if s.follow {
		t.Bottom()
		return
	}
	t.scrollTo(s.pos)
}

// prepare renders the page: the rows from the position down, cut to the
// width and padded to the size, the way a viewport draws.
func (t *Transcript) prepare() {
	if t.width <= 0 || t.Height <= 0 {
		t.page = ""
		return
	}
	rows := make([]string, 0, t.Height)
	for i := t.Pos.entry; i < len(t.Entries) && len(rows) < t.Height; i++ {
		start := 0
		if i == t.Pos.entry {
			start = t.Pos.row
		}
		for r, n := start, t.blockLen(i); r < n && len(rows) < t.Height; r++ {
			line := t.blockRow(i, r)
			w := ansi.StringWidth(line)
			if w > t.width {
				line, w = ansi.Cut(line, 0, t.width), t.width
			}
			rows = append(rows, line+strings.Repeat(" ", t.width-w))
		}
	}
	blank := strings.Repeat(" ", t.width)
	for len(rows) < t.Height {
		rows = append(rows, blank)
	}
	t.page = strings.Join(rows, "\n")
}
