package notes

import (
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/memory"
)

// startEdit opens the inline editor (e) on n, as the browser shows it.
func (b *MemoryBrowser) startEdit(n memory.Note) tea.Cmd {
	ta := textarea.New()
	ta.SetStyles(b.area)
	ta.SetVirtualCursor(false)
	ta.ShowLineNumbers = false
	ta.Prompt = "│ "
	ta.CharLimit = memory.MaxNoteRunes
	ta.KeyMap.Paste = key.NewBinding(key.WithDisabled())
	ta.SetWidth(max(1, b.width))
	ta.SetHeight(b.editRows())
	b.editFrom = shown(n.Content)
	ta.SetValue(b.editFrom)
	b.editor, b.editID, b.mode, b.discardArmed = ta, n.ID, memEdit, false
	return b.editor.Focus()
}

// editKey is a key for the inline editor: ctrl+s saves, esc cancels (an
// edited text on a second esc: one keystroke threw a paragraph away).
func (b MemoryBrowser) editKey(msg tea.KeyPressMsg) (MemoryBrowser, tea.Cmd) {
	armed := b.discardArmed
	b.discardArmed = false
	switch {
	case key.Matches(msg, b.keys.Back):
		if !armed && strings.TrimSpace(b.editor.Value()) != strings.TrimSpace(b.editFrom) {
			b.discardArmed = true
			b.setHint("Esc again throws your edit away; ctrl+s saves it.", false)
			return b, nil
		}
		b.editor.Blur()
		b.mode, b.editID = memView, ""
		b.setHint("Edit cancelled.", false)
		return b, nil
	case key.Matches(msg, b.keys.Save):
		if b.busy {
			return b, nil
		}
		n, ok := b.find(b.editID)
		if !ok { // deleted in another mneme while it was edited here: the text is kept
			return b, b.write(opSaveNew, memory.Note{Content: b.editor.Value()})
		}
		if strings.TrimSpace(b.editor.Value()) == strings.TrimSpace(b.editFrom) {
			b.editor.Blur()
			b.mode, b.editID = memView, ""
			b.setHint("No change.", false)
			return b, nil
		}
		return b, b.write(opUpdate, memory.Note{ID: n.ID, Content: b.editor.Value()})
	}
	var cmd tea.Cmd
	b.editor, cmd = b.editor.Update(msg)
	return b, cmd
}
