package notes

import (
	"charm.land/bubbles/v2/key"

	"github.com/mneme-dev/mneme/tui/list"
)

// MemoryKeyMap is the memory browser's bindings. It implements help.KeyMap.
type MemoryKeyMap struct {
	list.KeyMap
	Filter   key.Binding // focus the search box
	View     key.Binding // show the whole note and its provenance
	OpenTurn key.Binding // jump to the turn the note was saved in
	Edit     key.Binding // edit inline
	Editor   key.Binding // edit in $EDITOR
	Delete   key.Binding
	Undo     key.Binding // undo the last change of the note (or the note just deleted)
	History  key.Binding // the note's changes: who made each, when, before and after
	Approve  key.Binding // keep a pending note
	Reject   key.Binding // delete a pending note
	Save     key.Binding // save the inline edit
	Back     key.Binding // leave the edit, the note, the search box, or the browser
}

// DefaultMemoryKeyMap returns the memory browser's default bindings.
func DefaultMemoryKeyMap() MemoryKeyMap {
	return MemoryKeyMap{
		KeyMap:   list.DefaultKeyMap(),
		Filter:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search")),
		View:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "view")),
		OpenTurn: key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open turn")),
		Edit:     key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "edit")),
		Editor:   key.NewBinding(key.WithKeys("E", "ctrl+e"), key.WithHelp("E", "$EDITOR")),
		Delete:   key.NewBinding(key.WithKeys("d", "delete"), key.WithHelp("d", "delete")),
		Undo:     key.NewBinding(key.WithKeys("u", "ctrl+z"), key.WithHelp("u", "undo")),
		History:  key.NewBinding(key.WithKeys("h"), key.WithHelp("h", "history")),
		Approve:  key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "approve")),
		Reject:   key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "reject")),
		Save:     key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "save")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}
}

// ShortHelp is the list's help line.
func (k MemoryKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.View, k.Filter, k.Edit, k.Delete, k.Undo, k.History, k.OpenTurn, k.Editor, k.Back}
}

// FullHelp lists every binding.
func (k MemoryKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.PageUp}, // their help says ↑/↓ and pgup/pgdn
		{k.Filter, k.View, k.OpenTurn},
		{k.Edit, k.Editor, k.Save},
		{k.Delete, k.Undo, k.History},
		{k.Approve, k.Reject, k.Back}, // a pending note (memory_review = "inbox")
	}
}
