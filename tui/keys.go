package tui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
)

// KeyMap is every key binding of the chat screen. It implements
// help.KeyMap, so the help line is generated from it.
type KeyMap struct {
	Send     key.Binding
	Newline  key.Binding
	Cancel   key.Binding // enabled only while an answer is being generated
	Quit     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding
	Details  key.Binding // enabled once the transcript has tool calls or recalls
}

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap {
	k := KeyMap{
		Send: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		// Shift+Enter only arrives from terminals with keyboard enhancements;
		// Ctrl+J works everywhere.
		Newline: key.NewBinding(key.WithKeys("alt+enter", "ctrl+j", "shift+enter"), key.WithHelp("alt+enter", "newline")),
		Cancel:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop")),
		Quit:    key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		PageUp:  key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup/pgdn", "scroll")),
		// PageDown's help is folded into PageUp's in the short help.
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "scroll down")),
		Top:      key.NewBinding(key.WithKeys("ctrl+home"), key.WithHelp("ctrl+home", "top")),
		Bottom:   key.NewBinding(key.WithKeys("ctrl+end"), key.WithHelp("ctrl+end", "bottom")),
		Details:  key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "details")),
	}
	k.Cancel.SetEnabled(false)
	k.Details.SetEnabled(false)
	return k
}

// ShortHelp is the one-line help under the status line.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Send, k.Newline, k.Cancel, k.Quit, k.PageUp, k.Details}
}

// shortHelpView renders the short help in at most the help's width,
// dropping bindings from the end until it fits (help.Model overflows when
// not even its ellipsis fits).
func shortHelpView(h help.Model, k KeyMap) string {
	var bindings []key.Binding
	for _, b := range k.ShortHelp() {
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

// FullHelp lists every binding, grouped in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Send, k.Newline},
		{k.Cancel, k.Quit},
		{k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Details},
	}
}
