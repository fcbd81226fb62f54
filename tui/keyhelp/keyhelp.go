// Package keyhelp is the chat's full key help (F1, /help): rows the root
// fills with every binding and command, scrolled in a window of its own.
package keyhelp

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/styles"
)

// Keys are the bindings of the key help.
type Keys struct {
	Scroll key.Binding
	Close  key.Binding
}

// NewKeys returns the key help's bindings.
func NewKeys() Keys {
	return Keys{
		Scroll: key.NewBinding(key.WithKeys("up", "down", "pgup", "pgdown", "home", "end"), key.WithHelp("↑/↓ pgup/pgdn", "scroll")),
		Close:  key.NewBinding(key.WithKeys("esc", "f1", "q"), key.WithHelp("esc", "close")),
	}
}

// Overlay is the full key help. It scrolls; Esc, F1 or q close it, and any
// other key closes it and goes on to the chat, so typing is never lost.
type Overlay struct {
	keys  Keys
	lines []string
	top   int

	width, height int
}

// Keys are the overlay's bindings, for the chat's help line.
func (h Overlay) Keys() Keys { return h.keys }

// Width is the width the overlay draws in.
func (h Overlay) Width() int { return h.width }

// Open shows rows from the top.
func (h *Overlay) Open(rows []string) {
	h.keys = NewKeys()
	h.lines, h.top = rows, 0
}

// KeyRows renders groups of bindings as columns, as many side by side as
// fit in width, the rest below: every binding is shown, however narrow the
// window (help.Model drops the columns that do not fit).
func KeyRows(hm help.Model, groups [][]key.Binding, width int) []string {
	hm.SetWidth(0)
	var rows []string
	for len(groups) > 0 {
		n := len(groups)
		for n > 1 && lipgloss.Width(hm.FullHelpView(groups[:n])) > width {
			n--
		}
		rows = append(rows, strings.Split(hm.FullHelpView(groups[:n]), "\n")...)
		groups = groups[n:]
	}
	return rows
}

// SetSize sets the size the overlay draws in.
func (h *Overlay) SetSize(width, height int) {
	h.width, h.height = width, height
	h.top = max(0, min(h.top, len(h.lines)-h.bodyRows()))
}

// bodyRows are the rows under the title.
func (h *Overlay) bodyRows() int { return max(1, h.height-1) }

// Key scrolls or closes the help; handled is false for a key that closed
// it and should go on to the chat.
func (h *Overlay) Key(msg tea.KeyPressMsg) (closed, handled bool) {
	page := h.bodyRows()
	last := max(0, len(h.lines)-page)
	switch msg.String() {
	case "up":
		h.top = max(0, h.top-1)
	case "down":
		h.top = min(last, h.top+1)
	case "pgup":
		h.top = max(0, h.top-page)
	case "pgdown":
		h.top = min(last, h.top+page)
	case "home":
		h.top = 0
	case "end":
		h.top = last
	default:
		return true, key.Matches(msg, h.keys.Close)
	}
	return false, true
}

// View draws the help in exactly its size: a title and the help (the
// chat's help line says how to scroll and close it).
func (h Overlay) View(st *styles.Styles) string {
	title := st.SidebarTitle.Render("Keys and commands")
	if len(h.lines) > h.bodyRows() {
		title += st.SidebarDate.Render(ansi.Truncate("  (↑/↓ for more)", max(0, h.width-17), ""))
	}
	rows := []string{title}
	end := min(len(h.lines), h.top+h.bodyRows())
	rows = append(rows, h.lines[h.top:end]...)
	return panel.Block(rows, h.width, h.height)
}

// Fit renders the enabled bindings as a short help of at most the help's
// width, dropping bindings from the end until it fits (help.Model
// overflows when not even its ellipsis fits).
func Fit(h help.Model, all []key.Binding) string {
	var bindings []key.Binding
	for _, b := range all {
		if b.Enabled() {
			bindings = append(bindings, b)
		}
	}
	for n := len(bindings); n > 0; n-- {
		if s := h.ShortHelpView(bindings[:n]); h.Width() <= 0 || lipgloss.Width(s) <= h.Width() {
			return s
		}
	}
	return ""
}
