package tui

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

// scrollPos is the first row shown: row of entry's block.
type scrollPos struct{ entry, row int }

func (p scrollPos) before(q scrollPos) bool {
	return p.entry < q.entry || p.entry == q.entry && p.row < q.row
}

// scrollState is where a reader was in a conversation, to come back to.
type scrollState struct {
	pos    scrollPos
	follow bool // at the bottom, following new text
}

// wheelRows is how far one mouse wheel step scrolls.
const wheelRows = 3

// sep is the number of blank rows before entry i: none between two
// compact lines (tool calls, receipts), one elsewhere.
func (t *transcript) sep(i int) int {
	if i == 0 || compact(t.entries[i].kind) && compact(t.entries[i-1].kind) {
		return 0
	}
	return 1
}

// entryLines is entry i rendered at the current width, one string a row,
// from the cache when it can.
func (t *transcript) entryLines(i int) []string {
	e := &t.entries[i]
	if e.viewWidth != t.width || e.lines == nil {
		e.view, e.viewWidth = t.render(e, t.now), t.width
		e.lines = strings.Split(e.view, "\n")
	}
	return e.lines
}

func (t *transcript) blockLen(i int) int { return t.sep(i) + len(t.entryLines(i)) }

func (t *transcript) blockRow(i, r int) string {
	s := t.sep(i)
	if r < s {
		return ""
	}
	return t.entryLines(i)[r-s]
}

// bottomPos is the position whose page ends with the last row.
func (t *transcript) bottomPos() scrollPos {
	need := t.height
	for i := len(t.entries) - 1; i >= 0; i-- {
		n := t.blockLen(i)
		if n >= need {
			return scrollPos{i, n - need}
		}
		need -= n
	}
	return scrollPos{}
}

// clampPos keeps p inside the transcript and not below the last page.
func (t *transcript) clampPos(p scrollPos) (scrollPos, bool) {
	if len(t.entries) == 0 {
		return scrollPos{}, true
	}
	if p.entry >= len(t.entries) {
		p = scrollPos{len(t.entries) - 1, 0}
	}
	p.row = max(0, min(p.row, t.blockLen(p.entry)-1))
	if b := t.bottomPos(); !p.before(b) {
		return b, true
	}
	return p, false
}

// scrollTo moves the page to start at p (within bounds).
func (t *transcript) scrollTo(p scrollPos) {
	t.pos, t.follow = t.clampPos(p)
	t.prepare()
}

// scrollBy moves the page down (d > 0) or up (d < 0) by d rows.
func (t *transcript) scrollBy(d int) {
	p := t.pos
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
	for d > 0 && p.entry < len(t.entries) {
		n := t.blockLen(p.entry)
		if left := n - 1 - p.row; left >= d {
			p.row += d
			break
		} else if p.entry == len(t.entries)-1 {
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
func (t *transcript) pageUp()   { t.scrollBy(-t.height) }
func (t *transcript) pageDown() { t.scrollBy(t.height) }
func (t *transcript) top()      { t.scrollTo(scrollPos{}) }
func (t *transcript) bottom()   { t.scrollTo(t.bottomPos()) }

func (t *transcript) wheelUp()   { t.scrollBy(-wheelRows) }
func (t *transcript) wheelDown() { t.scrollBy(wheelRows) }

// atBottom reports whether the last row is on screen (new text is followed).
func (t *transcript) atBottom() bool { return t.follow }

// scrollToEntry puts entry i's first line at the top of the page (or as
// near as the end of the transcript allows).
func (t *transcript) scrollToEntry(i int) bool {
	if i < 0 || i >= len(t.entries) {
		return false
	}
	t.scrollTo(scrollPos{i, t.sep(i)})
	return true
}

// position is where the reader is, for coming back to the conversation.
func (t *transcript) position() scrollState { return scrollState{pos: t.pos, follow: t.follow} }

// restore goes back to a position from position.
func (t *transcript) restore(s scrollState) {
	if s.follow {
		t.bottom()
		return
	}
	t.scrollTo(s.pos)
}

// prepare renders the page: the rows from the position down, cut to the
// width and padded to the size, the way a viewport draws.
func (t *transcript) prepare() {
	if t.width <= 0 || t.height <= 0 {
		t.page = ""
		return
	}
	rows := make([]string, 0, t.height)
	for i := t.pos.entry; i < len(t.entries) && len(rows) < t.height; i++ {
		start := 0
		if i == t.pos.entry {
			start = t.pos.row
		}
		for r, n := start, t.blockLen(i); r < n && len(rows) < t.height; r++ {
			line := t.blockRow(i, r)
			w := ansi.StringWidth(line)
			if w > t.width {
				line, w = ansi.Cut(line, 0, t.width), t.width
			}
			rows = append(rows, line+strings.Repeat(" ", t.width-w))
		}
	}
	blank := strings.Repeat(" ", t.width)
	for len(rows) < t.height {
		rows = append(rows, blank)
	}
	t.page = strings.Join(rows, "\n")
}
