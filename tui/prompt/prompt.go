// Package prompt is the chat's prompt editor: a multi-line textarea that
// grows with its text up to MaxRows, renders once per change, and takes
// pastes only after checking their size (a longer one is cut, and said so).
package prompt

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
)

const (
	// MaxChars bounds the input; a longer paste is cut, with a notice.
	MaxChars = 100_000
	// MaxRows is how tall the input grows before it scrolls.
	MaxRows = 6
	// promptWidth is the width of the input's prompt.
	promptWidth = 2
	// tabWidth is how many spaces a pasted tab becomes.
	tabWidth = 4
)

// Editor is the multi-line prompt editor. It grows with its text up to
// maxRows rows, then scrolls.
//
// Rendering a textarea costs time in proportion to its whole text, so the
// view is rendered once per change and cached: a stream of agent events
// or spinner frames never re-renders a big paste.
type Editor struct {
	ta      textarea.Model
	width   int
	maxRows int

	rendered string
	cur      *tea.Cursor
}

// New returns an empty editor drawn with st, where newline inserts a new
// line (Enter sends).
func New(st textarea.Styles, newline key.Binding) Editor {
	ta := textarea.New()
	ta.SetStyles(st)
	ta.SetVirtualCursor(false) // the terminal's cursor: no blink ticks
	// "›" marks the first line only.
	ta.SetPromptFunc(promptWidth, func(pi textarea.PromptInfo) string {
		if pi.LineNumber == 0 {
			return "› "
		}
		return "  "
	})
	ta.Placeholder = "Ask anything…"
	ta.ShowLineNumbers = false
	ta.CharLimit = MaxChars
	// The textarea sizes itself to all its rows, and fit caps that. Its own
	// caps (MaxHeight, MaxContentHeight) are left off: with them it
	// re-wraps every line on each key, which makes a big paste crawl.
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = 0
	ta.MaxContentHeight = 0
	ta.KeyMap.InsertNewline = newline
	// Pastes arrive as bracketed paste from the terminal; reading the
	// clipboard directly would bypass the size check in paste.
	ta.KeyMap.Paste = key.NewBinding(key.WithDisabled())
	ta.Focus()
	in := Editor{ta: ta, maxRows: MaxRows}
	in.fit()
	return in
}

// Value is the text being written.
func (in *Editor) Value() string { return in.ta.Value() }

// Height is the rows the editor takes.
func (in *Editor) Height() int { return in.ta.Height() }

// View is the editor drawn.
func (in *Editor) View() string { return in.rendered }

// Reset empties the editor.
func (in *Editor) Reset() {
	in.ta.Reset()
	in.fit()
}

// Cursor is the terminal cursor position, relative to the input's
// top-left, or nil.
func (in *Editor) Cursor() *tea.Cursor {
	if in.cur == nil {
		return nil
	}
	c := *in.cur
	return &c
}

// SetSize fits the input to the width and to at most maxRows rows.
func (in *Editor) SetSize(width, maxRows int) {
	width, maxRows = max(width, 1), max(1, min(MaxRows, maxRows))
	if width == in.width && maxRows == in.maxRows {
		return
	}
	in.width, in.maxRows = width, maxRows
	in.ta.SetWidth(width)
	in.fit()
}

// Update passes msg (keys, pastes that were checked) to the textarea.
func (in *Editor) Update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(msg)
	in.fit()
	return cmd
}

// fit caps the height the textarea gave itself (one row per visual line),
// which scrolls it to keep the cursor in view, and renders it.
func (in *Editor) fit() {
	if in.ta.Height() > in.maxRows {
		in.ta.SetHeight(in.maxRows)
	}
	in.rendered, in.cur = in.ta.View(), in.ta.Cursor()
}

// Paste inserts pasted text at the cursor. It reports a notice when the
// text did not fit in full; what was typed before is never lost.
func (in *Editor) Paste(content string) (notice string) {
	clean := cleanPaste(content)
	want := utf8.RuneCountInString(clean)
	if want == 0 {
		return ""
	}
	before := utf8.RuneCountInString(in.ta.Value())
	in.Update(tea.PasteMsg{Content: clean})
	got := utf8.RuneCountInString(in.ta.Value()) - before
	if got >= want {
		return ""
	}
	if got <= 0 {
		return fmt.Sprintf("Paste ignored: the input is full (%s characters); /attach a file instead.", text.Thousands(MaxChars))
	}
	return fmt.Sprintf("Paste truncated: kept %s of %s characters; /attach a file to use it all.", text.Thousands(got), text.Thousands(want))
}

// cleanPaste normalises pasted text the way the textarea would, so that
// the length check in Paste compares like with like: line endings become
// "\n", tabs become spaces, invalid UTF-8 and other control characters go.
func cleanPaste(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.ReplaceAll(s, "\r", "\n")
	s = text.ExpandTabs(s, tabWidth)
	return strings.Map(func(r rune) rune {
		if r == utf8.RuneError || (r != '\n' && unicode.IsControl(r)) {
			return -1
		}
		return r
	}, sanitize.Text(s))
}

// Restyle draws the editor with st (the terminal's theme changed).
func (in *Editor) Restyle(st textarea.Styles) {
	in.ta.SetStyles(st)
	in.fit()
}

// Len is how many characters the editor holds.
func (in *Editor) Len() int { return in.ta.Length() }
