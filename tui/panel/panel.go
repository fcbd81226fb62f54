// Package panel is what the chat's panels share with each other and with
// the root model: the messages they send the root (OpenTurnMsg,
// CloseOverlayMsg, ExternalEditMsg), their clock and instance ids, their
// one-line text boxes, and the helpers that lay out a panel in exactly its
// size.
package panel

import (
	"cmp"
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/tui/styles"
)

// The panels (tui/search, tui/notes, tui/picker) are components the root
// model opens over the transcript. Each is a value with Update, View
// and SetSize; it reports outcomes to the root with the messages below and
// never changes the root's state itself. Its I/O happens in commands whose
// messages it recognises with Owns, so that the root can route them.

// OpenTurnMsg asks the root to open a conversation scrolled to a turn and
// to Highlight the turn briefly.
type OpenTurnMsg struct {
	ConversationID string
	Turn           int
}

// CloseOverlayMsg asks the root to close the overlay that sent it.
type CloseOverlayMsg struct{}

// Close is the command a panel returns to close itself.
func Close() tea.Msg { return CloseOverlayMsg{} }

// Emit is the command that sends msg.
func Emit(msg tea.Msg) tea.Cmd { return func() tea.Msg { return msg } }

// overlayIDs numbers overlay instances, like bubbles' spinner ids, so that
// a tick or a result meant for one instance is never taken by another.
var overlayIDs atomic.Int64

// NextID numbers a new panel instance.
func NextID() int64 { return overlayIDs.Add(1) }

// DefaultDebounce is how long typing must pause before a search runs.
const DefaultDebounce = 150 * time.Millisecond

// Clock is the time and timers of an overlay, injected by tests the
// way the root model's tick and now are.
type Clock struct {
	ctx  context.Context
	now  func() time.Time
	tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
}

func NewClock(ctx context.Context, now func() time.Time, tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd) Clock {
	if ctx == nil {
		ctx = context.Background()
	}
	if now == nil {
		now = time.Now
	}
	if tick == nil {
		tick = tea.Tick
	}
	return Clock{ctx: ctx, now: now, tick: tick}
}

// Context bounds the panel's I/O.
func (c Clock) Context() context.Context { return c.ctx }

// Now is the time.
func (c Clock) Now() time.Time { return c.now() }

// Tick is tea.Tick, or the test's timer.
func (c Clock) Tick(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd { return c.tick(d, fn) }

// With returns the clock with now and tick replaced where not nil.
func (c Clock) With(now func() time.Time, tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd) Clock {
	if now != nil {
		c.now = now
	}
	if tick != nil {
		c.tick = tick
	}
	return c
}

// NewInput is a one-line text input drawn with the terminal's
// cursor (no blink ticks); the overlay's Cursor places it.
func NewInput(st styles.Panel, prompt, placeholder string) textinput.Model {
	in := textinput.New()
	in.SetStyles(st.Input)
	in.SetVirtualCursor(false)
	in.Prompt = prompt
	in.Placeholder = placeholder
	in.CharLimit = 500
	in.KeyMap.Paste = key.NewBinding(key.WithDisabled()) // pastes arrive as tea.PasteMsg
	return in
}

// FitInput sizes a text input to the width: its prompt, its text and the
// cursor cell.
func FitInput(in *textinput.Model, width int) {
	in.SetWidth(max(1, width-lipgloss.Width(in.Prompt)-1))
}

// HelpLine renders bindings as a short help line of at most width cells,
// dropping bindings from the end until it fits.
func HelpLine(st styles.Panel, width int, bindings []key.Binding) string {
	h := help.New()
	h.Styles = st.Help
	var on []key.Binding
	for _, b := range bindings {
		if b.Enabled() {
			on = append(on, b)
		}
	}
	for n := len(on); n > 0; n-- {
		if s := h.ShortHelpView(on[:n]); lipgloss.Width(s) <= width {
			return s
		}
	}
	return ""
}

// TitleLine puts left and right on one line of width cells, the right part
// flush right; left is cut when both do not fit.
func TitleLine(width int, left, right string) string {
	lw, rw := lipgloss.Width(left), lipgloss.Width(right)
	if rw >= width {
		return ansi.Truncate(right, width, "…")
	}
	if lw+rw+1 > width {
		left = ansi.Truncate(left, width-rw-1, "…")
		lw = lipgloss.Width(left)
	}
	return left + strings.Repeat(" ", max(1, width-lw-rw)) + right
}

// Block pads or cuts rows to exactly height rows of at most width cells.
func Block(rows []string, width, height int) string {
	out := make([]string, 0, height)
	for _, r := range rows {
		for _, l := range strings.Split(r, "\n") {
			if len(out) == height {
				break
			}
			if lipgloss.Width(l) > width {
				l = ansi.Truncate(l, width, "…")
			}
			out = append(out, l)
		}
	}
	for len(out) < height {
		out = append(out, "")
	}
	return strings.Join(out, "\n")
}

// QueryWords are the distinct words of a query, lower-cased, for
// highlighting: runs of letters and digits.
func QueryWords(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(q), notWordRune) {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

func notWordRune(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }

// minPrefixMatch is the shortest query word that also marks the words it
// begins ("goroutine" in "goroutines"); shorter ones must match whole.
const minPrefixMatch = 3

// wordMatches reports whether a lower-cased word of the text matches one
// of the query's words: the same word, or one it begins.
func wordMatches(word string, words []string) bool {
	for _, w := range words {
		if word == w || (utf8.RuneCountInString(w) >= minPrefixMatch && strings.HasPrefix(word, w)) {
			return true
		}
	}
	return false
}

// Highlight styles the words of text that match words with match, the rest
// with base. text must be plain (sanitised, no escape sequences).
func Highlight(text string, words []string, base, match lipgloss.Style) string {
	if len(words) == 0 || text == "" {
		return base.Render(text)
	}
	var out, plain strings.Builder
	flush := func() {
		if plain.Len() > 0 {
			out.WriteString(base.Render(plain.String()))
			plain.Reset()
		}
	}
	for _, seg := range splitWords(text) {
		if seg.word && wordMatches(strings.ToLower(seg.text), words) {
			flush()
			out.WriteString(match.Render(seg.text))
			continue
		}
		plain.WriteString(seg.text)
	}
	flush()
	return out.String()
}

type segment struct {
	text string
	word bool
}

// splitWords cuts text into runs of word and non-word runes.
func splitWords(text string) []segment {
	var out []segment
	start, inWord := 0, false
	for i, r := range text {
		w := !notWordRune(r)
		if i == 0 {
			inWord = w
			continue
		}
		if w != inWord {
			out = append(out, segment{text[start:i], inWord})
			start, inWord = i, w
		}
	}
	if start < len(text) {
		out = append(out, segment{text[start:], inWord})
	}
	return out
}

// FocusSnippet cuts the start of a one-line text so that its first word
// matching words shows within width cells, with "…" marking the cut, and
// then truncates it to width.
func FocusSnippet(text string, words []string, width int) string {
	if width <= 1 {
		return ""
	}
	if ansi.StringWidth(text) > width {
		segs := splitWordsOffsets(text)
		at, end := -1, -1
		for _, s := range segs {
			if s.word && wordMatches(strings.ToLower(s.text), words) {
				at, end = s.start, s.start+len(s.text)
				break
			}
		}
		// When the match does not show whole, cut the start, keeping about
		// a third of the width of context before the match, from a word on.
		if lead := width / 3; at >= 0 && ansi.StringWidth(text[:end]) > width-1 && ansi.StringWidth(text[:at]) > lead {
			cut := at
			for i := len(segs) - 1; i >= 0; i-- {
				s := segs[i]
				if s.start >= at || !s.word {
					continue
				}
				if ansi.StringWidth(text[s.start:at]) > lead {
					break
				}
				cut = s.start
			}
			text = "…" + text[cut:]
		}
	}
	return ansi.Truncate(text, width, "…")
}

type offsetSegment struct {
	segment
	start int
}

func splitWordsOffsets(text string) []offsetSegment {
	var out []offsetSegment
	pos := 0
	for _, s := range splitWords(text) {
		out = append(out, offsetSegment{s, pos})
		pos += len(s.text)
	}
	return out
}

// FormatDuration renders an ETA briefly: "45s", "3m20s", "1h05m".
func FormatDuration(d time.Duration) string {
	d = d.Round(time.Second)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
	return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
}

// OffsetCursor moves a cursor of a component drawn at (x, y) of the overlay.
func OffsetCursor(c *tea.Cursor, x, y int) *tea.Cursor {
	if c == nil {
		return nil
	}
	c.X += x
	c.Y += y
	return c
}

// To addresses a message to one panel: a panel's messages embed it with
// the panel's id (NextID), and Owns asks Addressed.
type To struct{ ID int64 }

// PanelID is the id of the panel the message is for.
func (t To) PanelID() int64 { return t.ID }

// Addressed reports whether msg is addressed (To) to the panel with id.
func Addressed(msg tea.Msg, id int64) bool {
	a, ok := msg.(interface{ PanelID() int64 })
	return ok && a.PanelID() == id
}

// DisplayTitle is a conversation's title as shown (sanitize.Line):
// "untitled" when nothing of it shows.
func DisplayTitle(t string) string {
	return cmp.Or(sanitize.Line(t), "untitled")
}

// CapRows keeps the first rows of text, the last of them marked "…" when
// some were left out.
func CapRows(text string, rows, w int) string {
	lines := strings.Split(text, "\n")
	if len(lines) > rows {
		lines = lines[:rows]
		lines[rows-1] = ansi.Truncate(lines[rows-1], w-1, "") + "…"
	}
	return strings.Join(lines, "\n")
}

// Edit passes a key or a paste to a search or filter box and reports
// whether its text changed (what a panel then searches or narrows).
func Edit(in *textinput.Model, msg tea.Msg) (tea.Cmd, bool) {
	before := in.Value()
	var cmd tea.Cmd
	*in, cmd = in.Update(msg)
	return cmd, in.Value() != before
}
