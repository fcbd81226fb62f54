package panel

import (
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/internal/sanitize"
)

// CleanInput passes typed text and pastes through the one sanitiser before
// any input field sees them: a key or a paste can carry escape sequences
// or bidi controls (a terminal's compose key, a paste without bracketed
// paste), which the fields would otherwise draw as they are. ok is false
// for a key whose text was nothing else.
func CleanInput(msg tea.Msg) (_ tea.Msg, ok bool) {
	switch m := msg.(type) {
	case tea.KeyPressMsg:
		if m.Text != "" {
			if clean := sanitize.Text(m.Text); clean != m.Text {
				if clean == "" {
					return msg, false
				}
				m.Text = clean
				return m, true
			}
		}
	case tea.PasteMsg:
		// Line endings first: the sanitiser drops a carriage return,
		// which alone ends a line in some pastes.
		m.Content = sanitize.Text(strings.NewReplacer("\r\n", "\n", "\r", "\n").Replace(m.Content))
		return m, true
	}
	return msg, true
}
