package sidebar

import (
	"charm.land/bubbles/v2/key"

	"github.com/mneme-dev/mneme/tui/list"
)

// SidebarKeyMap is the bindings of the conversation list while it has the
// keys. Letters are left to the filter, so actions are on control keys.
type SidebarKeyMap struct {
	list.KeyMap
	Open         key.Binding
	New          key.Binding
	Rename       key.Binding
	Archive      key.Binding // archive or unarchive
	Delete       key.Binding // asks first
	ShowArchived key.Binding
	Back         key.Binding // clear the filter, or give the keys back to the input
	Confirm      key.Binding // yes, delete (keeping its notes)
	Forget       key.Binding // delete, and forget the notes learnt from it
	Deny         key.Binding // no, keep it
}

// DefaultSidebarKeyMap returns the sidebar's default bindings.
func DefaultSidebarKeyMap() SidebarKeyMap {
	return SidebarKeyMap{
		KeyMap:       list.NewKeyMap([]string{"up", "ctrl+p"}, []string{"down"}, "choose", true), // a long list pages
		Open:         key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		New:          key.NewBinding(key.WithKeys("ctrl+n"), key.WithHelp("ctrl+n", "new")),
		Rename:       key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "rename")),
		Archive:      key.NewBinding(key.WithKeys("ctrl+a"), key.WithHelp("ctrl+a", "archive/unarchive")),
		Delete:       key.NewBinding(key.WithKeys("ctrl+d", "delete"), key.WithHelp("ctrl+d", "delete")),
		ShowArchived: key.NewBinding(key.WithKeys("ctrl+v"), key.WithHelp("ctrl+v", "view archived")),
		Back:         key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back to chat")),
		Confirm:      key.NewBinding(key.WithKeys("y", "Y"), key.WithHelp("y", "delete, keep notes")),
		Forget:       key.NewBinding(key.WithKeys("f", "F"), key.WithHelp("f", "delete, forget notes")),
		Deny:         key.NewBinding(key.WithKeys("n", "N", "esc"), key.WithHelp("n", "keep")),
	}
}

// ShortHelp is the help line while the sidebar has the keys.
func (k SidebarKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Open, k.Back, k.New, k.Rename, k.Archive, k.Delete, k.ShowArchived}
}

// ConfirmHelp is the help line while the delete question is asked; f is
// offered only when notes came from the conversation (forget).
func (k SidebarKeyMap) ConfirmHelp(forget bool) []key.Binding {
	if !forget {
		del := k.Confirm
		del.SetHelp(k.Confirm.Help().Key, "delete")
		return []key.Binding{del, k.Deny}
	}
	return []key.Binding{k.Confirm, k.Forget, k.Deny}
}

// FullHelp lists every binding.
func (k SidebarKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.PageUp, k.Open, k.Back},
		{k.New, k.Rename, k.Archive, k.ShowArchived},
		{k.Delete, k.Confirm, k.Forget, k.Deny},
	}
}
