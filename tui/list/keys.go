package list

import "charm.land/bubbles/v2/key"

// KeyMap is the bindings that move a list's cursor. A binding left zero
// never matches (a list without paging). Panels embed it in their own key
// maps.
type KeyMap struct {
	Up       key.Binding
	Down     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
}

// DefaultKeyMap returns the arrows, k and j, and the page keys.
func DefaultKeyMap() KeyMap {
	return NewKeyMap([]string{"up", "k"}, []string{"down", "j"}, "move", true)
}

// NewKeyMap returns bindings that move up and down with the given keys,
// helped as "↑/↓ verb", and page with pgup and pgdown when paging is set.
func NewKeyMap(up, down []string, verb string, paging bool) KeyMap {
	k := KeyMap{
		Up:   key.NewBinding(key.WithKeys(up...), key.WithHelp("↑/↓", verb)),
		Down: key.NewBinding(key.WithKeys(down...), key.WithHelp("↓", "next")),
	}
	if paging {
		k.PageUp = key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup/pgdn", "page"))
		k.PageDown = key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "next page"))
	}
	return k
}
