package picker

import (
	"charm.land/bubbles/v2/key"

	"github.com/mneme-dev/mneme/tui/list"
)

// ModelsKeyMap is the model picker's bindings. It implements help.KeyMap.
type ModelsKeyMap struct {
	list.KeyMap
	Chat    key.Binding // use the selected model for chat
	Embed   key.Binding // use the selected model for search embeddings
	Pull    key.Binding // pull a model by name (the suggested default prefilled)
	Refresh key.Binding
	Confirm key.Binding // start the pull of the name typed
	Back    key.Binding // cancel the pull, leave the name box, or close
}

// DefaultModelsKeyMap returns the picker's default bindings.
func DefaultModelsKeyMap() ModelsKeyMap {
	return ModelsKeyMap{
		KeyMap:  list.NewKeyMap([]string{"up", "k"}, []string{"down", "j"}, "move", false),
		Chat:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "use for chat")),
		Embed:   key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "use for search")),
		Pull:    key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pull")),
		Refresh: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "refresh")),
		Confirm: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "pull")),
		Back:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close")),
	}
}

// ShortHelp is the picker's help line.
func (k ModelsKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Chat, k.Embed, k.Pull, k.Refresh, k.Back}
}

// FullHelp lists every binding.
func (k ModelsKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up}, {k.Chat, k.Embed}, {k.Pull, k.Confirm, k.Refresh}, {k.Back}}
}
