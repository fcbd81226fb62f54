package tui

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
	// maxInputChars bounds the input; a longer paste is cut, with a notice.
	maxInputChars = 100_000
	// maxInputRows is how tall the input grows before it scrolls.
	maxInputRows = 6
	// promptWidth is the width of the input's prompt.
	promptWidth = 2
	// tabWidth is how many spaces a pasted tab becomes.
	tabWidth = 4
)

// input is the multi-line prompt editor. It grows with its text up to
// maxRows rows, then scrolls.
//
// Rendering a textarea costs time in proportion to its whole text, so the
// view is rendered once per change and cached: a stream of agent events
// or spinner frames never re-renders a big paste.
type input struct {
	ta      textarea.Model
	width   int
	maxRows int

	rendered string
	cur      *tea.Cursor
}

func newInput(st *Styles, keys KeyMap) input {
	ta := textarea.New()
	ta.SetStyles(st.Input)
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
	ta.CharLimit = maxInputChars
	// The textarea sizes itself to all its rows, and fit caps that. Its own
	// caps (MaxHeight, MaxContentHeight) are left off: with them it
	// re-wraps every line on each key, which makes a big paste crawl.
	ta.DynamicHeight = true
	ta.MinHeight = 1
	ta.MaxHeight = 0
	ta.MaxContentHeight = 0
	ta.KeyMap.InsertNewline = keys.Newline
	// Pastes arrive as bracketed paste from the terminal; reading the
	// clipboard directly would bypass the size check in paste.
	ta.KeyMap.Paste = key.NewBinding(key.WithDisabled())
	ta.Focus()
	in := input{ta: ta, maxRows: maxInputRows}
	in.fit()
	return in
}

func (in *input) value() string { return in.ta.Value() }
func (in *input) height() int   { return in.ta.Height() }
func (in *input) view() string  { return in.rendered }

func (in *input) reset() {
	in.ta.Reset()
	in.fit()
}

// cursor is the terminal cursor position, relative to the input's
// top-left, or nil.
func (in *input) cursor() *tea.Cursor {
	if in.cur == nil {
		return nil
	}
	c := *in.cur
	return &c
}

// setSize fits the input to the width and to at most maxRows rows.
func (in *input) setSize(width, maxRows int) {
	width, maxRows = max(width, 1), max(1, min(maxInputRows, maxRows))
	if width == in.width && maxRows == in.maxRows {
		return
	}
	in.width, in.maxRows = width, maxRows
	in.ta.SetWidth(width)
	in.fit()
}

func (in *input) update(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	in.ta, cmd = in.ta.Update(msg)
	in.fit()
	return cmd
}

// fit caps the height the textarea gave itself (one row per visual line),
// which scrolls it to keep the cursor in view, and renders it.
func (in *input) fit() {
	if in.ta.Height() > in.maxRows {
		in.ta.SetHeight(in.maxRows)
	}
	in.rendered, in.cur = in.ta.View(), in.ta.Cursor()
}

// paste inserts pasted text at the cursor. It reports a notice when the
// text did not fit in full; what was typed before is never lost.
func (in *input) paste(content string) (notice string) {
	clean := cleanPaste(content)
	want := utf8.RuneCountInString(clean)
	if want == 0 {
		return ""
	}
	before := utf8.RuneCountInString(in.ta.Value())
	in.update(tea.PasteMsg{Content: clean})
	got := utf8.RuneCountInString(in.ta.Value()) - before
	if got >= want {
		return ""
	}
	if got <= 0 {
		return fmt.Sprintf("Paste ignored: the input is full (%s characters); /attach a file instead.", text.Thousands(maxInputChars))
	}
	return fmt.Sprintf("Paste truncated: kept %s of %s characters; /attach a file to use it all.", text.Thousands(got), text.Thousands(want))
}

// cleanPaste normalises pasted text the way the textarea would, so that
// the length check in paste compares like with like: line endings become
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

// recallPrompt puts an earlier prompt of the conversation in the input, as
// a shell's history does: ↑ in an empty input takes the last one, and
// again the one before; ↓ goes back towards the newest, then to an empty
// input. It reports whether the key was taken (a draft, or a recalled
// prompt since edited, keeps ↑/↓ for moving in the text).
func (m *Model) recallPrompt(older bool) bool {
	text := m.input.value()
	if text != "" && text != m.recalled {
		return false
	}
	var prompts []string
	for _, e := range m.transcript.entries {
		if e.kind == entryUser {
			prompts = append(prompts, e.text)
		}
	}
	i := m.recallAt
	if text == "" || i >= len(prompts) { // fresh, or the conversation changed meanwhile
		i = len(prompts)
	}
	switch {
	case older && i > 0:
		i--
	case !older && i < len(prompts)-1:
		i++
	case !older && text != "":
		m.input.reset()
		m.recalled = ""
		return true
	default:
		return text != "" // at the oldest, ↑ stays; in an empty input ↓ does nothing
	}
	m.input.reset()
	p := prompts[i]
	if strings.HasPrefix(p, "/") {
		p = "/" + p // sent as "//…": a message, not a command
	}
	m.input.paste(p)
	m.recalled, m.recallAt = m.input.value(), i
	return true
}
