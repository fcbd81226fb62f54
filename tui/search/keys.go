package search

import (
	"charm.land/bubbles/v2/key"

	"github.com/mneme-dev/mneme/tui/list"
)

// SearchKeyMap is the search overlay's bindings. It implements help.KeyMap.
type SearchKeyMap struct {
	list.KeyMap
	Open  key.Binding
	Close key.Binding
}

// DefaultSearchKeyMap returns the search overlay's default bindings. The
// letters are left to the query, so moving uses the arrows and ctrl+p/n.
func DefaultSearchKeyMap() SearchKeyMap {
	return SearchKeyMap{
		KeyMap: list.NewKeyMap([]string{"up", "ctrl+p"}, []string{"down", "ctrl+n"}, "move", true),
		Open:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open turn")),
		Close:  key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close")),
	}
}

// ShortHelp is the overlay's help line.
func (k SearchKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Open, k.Close, k.PageUp}
}

// FullHelp lists every binding.
func (k SearchKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.PageUp}, {k.Open, k.Close}} // Up's help says ↑/↓, PageUp's pgup/pgdn
}
