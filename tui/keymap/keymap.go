// Package keymap is every key binding of the chat screen and of the panels
// it opens: one KeyMap, from which the help line and the full help (F1,
// /help) are generated.
package keymap

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"

	"github.com/mneme-dev/mneme/tui/docs"
	"github.com/mneme-dev/mneme/tui/notes"
	"github.com/mneme-dev/mneme/tui/picker"
	"github.com/mneme-dev/mneme/tui/search"
	"github.com/mneme-dev/mneme/tui/sidebar"
)

// KeyMap is every key binding of the chat screen, and, in its Sidebar,
// Search, Memory and Models fields, those of the panels it opens. It
// implements help.KeyMap, so the help line is generated from it, and the
// full help (F1, /help) lists all of it.
type KeyMap struct {
	Send     key.Binding
	Newline  key.Binding
	Complete key.Binding // complete a slash command or /attach's path; enabled while a list is shown
	Cancel   key.Binding // enabled only while an answer is being generated
	Quit     key.Binding
	PageUp   key.Binding
	PageDown key.Binding
	Top      key.Binding
	Bottom   key.Binding
	Details  key.Binding // expand thinking, tool calls and receipts; enabled once there are some
	Search   key.Binding
	Memory   key.Binding
	Sources  key.Binding // list the last answer's sources; enabled once there are some
	Sidebar  key.Binding // show the conversation list and give it the keys, or hide it
	Editor   key.Binding // compose the message in $EDITOR
	Undo     key.Binding // undo the last change to the notes (as /undo)
	Help     key.Binding

	SidebarKeys sidebar.SidebarKeyMap
	SearchKeys  search.SearchKeyMap
	MemoryKeys  notes.MemoryKeyMap
	ModelKeys   picker.ModelsKeyMap
	SourcesKeys docs.SourcesKeyMap
	DocsKeys    docs.BrowserKeyMap
	PassageKeys docs.ViewerKeyMap
}

// Default returns the default bindings.
func Default() KeyMap {
	k := KeyMap{
		Send: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "send")),
		// Shift+Enter only arrives from terminals with keyboard enhancements;
		// Ctrl+J works everywhere.
		Newline:  key.NewBinding(key.WithKeys("alt+enter", "ctrl+j", "shift+enter"), key.WithHelp("alt+enter", "newline")),
		Complete: key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab", "complete")),
		Cancel:   key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "stop")),
		Quit:     key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup/pgdn", "scroll")),
		// PageDown's help is folded into PageUp's: it is listed nowhere.
		PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "scroll down")),
		Top:      key.NewBinding(key.WithKeys("ctrl+home", "alt+<"), key.WithHelp("ctrl+home", "top")),
		Bottom:   key.NewBinding(key.WithKeys("ctrl+end", "alt+>"), key.WithHelp("ctrl+end", "bottom")),
		Details:  key.NewBinding(key.WithKeys("ctrl+t"), key.WithHelp("ctrl+t", "details")),
		Search:   key.NewBinding(key.WithKeys("ctrl+f"), key.WithHelp("ctrl+f", "search")),
		Memory:   key.NewBinding(key.WithKeys("ctrl+o"), key.WithHelp("ctrl+o", "memory")),
		Sources:  key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "sources")),
		// Ctrl+L ("list") is the binding people find; Ctrl+S, the first
		// one, still works.
		Sidebar: key.NewBinding(key.WithKeys("ctrl+l", "ctrl+s"), key.WithHelp("ctrl+l", "chats")),
		Editor:  key.NewBinding(key.WithKeys("ctrl+e"), key.WithHelp("ctrl+e", "$EDITOR")),
		Help:    key.NewBinding(key.WithKeys("f1"), key.WithHelp("f1", "help")),
		Undo:    key.NewBinding(key.WithKeys("ctrl+z"), key.WithHelp("ctrl+z", "undo note")),

		SidebarKeys: sidebar.DefaultSidebarKeyMap(),
		SearchKeys:  search.DefaultSearchKeyMap(),
		MemoryKeys:  notes.DefaultMemoryKeyMap(),
		ModelKeys:   picker.DefaultModelsKeyMap(),
		SourcesKeys: docs.DefaultSourcesKeyMap(),
		DocsKeys:    docs.DefaultBrowserKeyMap(),
		PassageKeys: docs.DefaultViewerKeyMap(),
	}
	k.Sources.SetEnabled(false)
	k.Complete.SetEnabled(false)
	k.Cancel.SetEnabled(false)
	k.Details.SetEnabled(false)
	return k
}

// ShortHelp is the one-line help under the status line, most useful first:
// it is cut from the end when the window is narrow.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Send, k.Complete, k.Cancel, k.Help, k.Quit, k.Sources, k.Details, k.Search, k.Memory, k.Sidebar,
		k.Newline, k.PageUp, k.Editor}
}

// FullHelp lists the chat screen's bindings, grouped in columns.
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Send, k.Newline, k.Complete, k.Editor},
		{k.Cancel, k.Quit, k.Help},
		{k.PageUp, k.Top, k.Bottom},
		{k.Search, k.Memory, k.Sidebar, k.Details, k.Undo, k.Sources},
	}
}

// HelpMouse is said under the chat's keys in the full help: the mouse
// reporting that makes the wheel scroll takes plain drags from the terminal.
const HelpMouse = "The mouse wheel scrolls; select text with Shift+drag."

// Section is one titled part of the full help.
type Section struct {
	Title string
	Keys  help.KeyMap
}

// Sections are the parts of the full help: the chat screen and each panel.
func (k KeyMap) Sections() []Section {
	chat := k
	// The full help lists every binding, whatever the moment allows.
	for _, b := range []*key.Binding{&chat.Complete, &chat.Cancel, &chat.Details, &chat.Sources} {
		b.SetEnabled(true)
	}
	chat.Sidebar.SetHelp("ctrl+l/ctrl+s", "chats") // both work
	return []Section{
		{"Chat", chat},
		{"Conversations (ctrl+l or ctrl+s)", k.SidebarKeys},
		{"Search (ctrl+f, /search)", k.SearchKeys},
		{"Memory (ctrl+o, /memory)", k.MemoryKeys},
		{"Sources (ctrl+r, /sources)", k.SourcesKeys},
		{"Documents (/docs)", k.DocsKeys},
		{"A passage (from the sources or /docs)", k.PassageKeys},
		{"Models (/model)", k.ModelKeys},
	}
}
