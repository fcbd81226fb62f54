package docs

import (
	"charm.land/bubbles/v2/key"

	"github.com/mneme-dev/mneme/tui/list"
)

// SourcesKeyMap is the bindings of the list of an answer's sources. It
// implements help.KeyMap.
type SourcesKeyMap struct {
	list.KeyMap
	View key.Binding // open the passage
	Back key.Binding
}

// DefaultSourcesKeyMap returns the sources list's default bindings.
func DefaultSourcesKeyMap() SourcesKeyMap {
	return SourcesKeyMap{
		KeyMap: list.DefaultKeyMap(),
		View:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "read passage")),
		Back:   key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc", "close")),
	}
}

// ShortHelp is the list's help line.
func (k SourcesKeyMap) ShortHelp() []key.Binding { return []key.Binding{k.Up, k.View, k.Back} }

// FullHelp lists every binding.
func (k SourcesKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.PageUp}, {k.View, k.Back}}
}

// BrowserKeyMap is the document browser's bindings. It implements
// help.KeyMap.
type BrowserKeyMap struct {
	list.KeyMap
	Filter key.Binding // focus the search box
	View   key.Binding // read the document, or the passage found
	Delete key.Binding // remove the document (asks first)
	Yes    key.Binding // confirm the removal
	No     key.Binding
	Back   key.Binding // leave the search box, or the browser
}

// DefaultBrowserKeyMap returns the document browser's default bindings.
func DefaultBrowserKeyMap() BrowserKeyMap {
	return BrowserKeyMap{
		KeyMap: list.NewKeyMap([]string{"up", "k", "ctrl+p"}, []string{"down", "j", "ctrl+n"}, "move", true),
		Filter: key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search")),
		View:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "read")),
		Delete: key.NewBinding(key.WithKeys("d", "delete"), key.WithHelp("d", "remove")),
		Yes:    key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "remove it")),
		No:     key.NewBinding(key.WithKeys("n", "esc"), key.WithHelp("n", "keep it")),
		Back:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back")),
	}
}

// ShortHelp is the browser's help line.
func (k BrowserKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.View, k.Filter, k.Delete, k.Back}
}

// FullHelp lists every binding.
func (k BrowserKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.PageUp}, {k.Filter, k.View, k.Back}, {k.Delete, k.Yes, k.No}}
}

// ViewerKeyMap is the passage viewer's bindings (in the sources list and
// the document browser). It implements help.KeyMap.
type ViewerKeyMap struct {
	Up, Down, PageUp, PageDown, Top, Bottom key.Binding
	Back                                    key.Binding
}

// DefaultViewerKeyMap returns the viewer's default bindings.
func DefaultViewerKeyMap() ViewerKeyMap {
	return ViewerKeyMap{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓", "scroll")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "scroll down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup/pgdn", "page")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "space", "f"), key.WithHelp("pgdn", "next page")),
		Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home/end", "start/end")),
		Bottom:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end", "end")),
		Back:     key.NewBinding(key.WithKeys("esc", "q"), key.WithHelp("esc", "back")),
	}
}

// ShortHelp is the viewer's help line.
func (k ViewerKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.PageUp, k.Top, k.Back}
}

// FullHelp lists every binding.
func (k ViewerKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up}, {k.PageUp, k.Top}, {k.Back}}
}
