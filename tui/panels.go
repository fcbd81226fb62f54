package tui

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/tui/keyhelp"
	"github.com/mneme-dev/mneme/tui/keymap"
	"github.com/mneme-dev/mneme/tui/notes"
	"github.com/mneme-dev/mneme/tui/picker"
	"github.com/mneme-dev/mneme/tui/render"
	"github.com/mneme-dev/mneme/tui/search"
)

// Panels are the full-window components the chat opens over the
// transcript: search, the memory browser and the model picker (tui/search,
// tui/notes, tui/picker), and the key help (below). The open ones are a
// stack, the top one drawn and given every key but Ctrl+C and F1; the
// status and help lines stay below it. A panel closes itself with
// CloseOverlayMsg. Its commands' messages reach it even when it is closed
// (a model pull goes on in the background), through its Owns method.

// Panel is what the root model needs of a panel.
type Panel interface {
	// Owns reports whether msg is one of the panel's own messages, which
	// the root hands to it whether it is open or not.
	Owns(msg tea.Msg) bool
	Update(msg tea.Msg) (Panel, tea.Cmd)
	// View draws the panel in exactly its size.
	View() string
	// Cursor is where the terminal cursor goes, relative to the panel's
	// top-left corner (nil: hidden).
	Cursor() *tea.Cursor
	SetSize(width, height int)
}

// notesPanel is a panel that changes notes: the status line counts them
// again when one of its writes succeeds and when it closes.
type notesPanel interface {
	Panel
	WroteNote(msg tea.Msg) (changed string, ok bool)
}

// focusArea is what gets the keys when no panel is open.
type focusArea int

const (
	focusInput focusArea = iota
	focusSidebar
)

// The panels are values with typed Update methods (their tests drive them
// so); these adapters give the root one Panel of each, shared by the stack.
type (
	searchPanel struct{ search.SearchOverlay }
	memoryPanel struct{ notes.MemoryBrowser }
	modelsPanel struct{ picker.ModelPicker }
)

// updatePanel hands msg to the panel value *v, whose Update returns its next
// value, and keeps that.
func updatePanel[T interface{ Update(tea.Msg) (T, tea.Cmd) }](v *T, msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	*v, cmd = (*v).Update(msg)
	return cmd
}

func (p *searchPanel) Update(msg tea.Msg) (Panel, tea.Cmd) {
	return p, updatePanel(&p.SearchOverlay, msg)
}

func (p *memoryPanel) Update(msg tea.Msg) (Panel, tea.Cmd) {
	return p, updatePanel(&p.MemoryBrowser, msg)
}

// WroteNote reports whether msg is a write of the browser's that succeeded.
func (p *memoryPanel) WroteNote(msg tea.Msg) (changed string, ok bool) {
	if !p.Owns(msg) {
		return "", false
	}
	return notes.Wrote(msg)
}

func (p *modelsPanel) Update(msg tea.Msg) (Panel, tea.Cmd) {
	return p, updatePanel(&p.ModelPicker, msg)
}

// The panels are built with the root key map's bindings for them, so that
// the full help and the panels never disagree.

func newSearchPanel(ctx context.Context, st *Styles, cfg Config, km KeyMap) *searchPanel {
	p := search.NewSearchOverlay(st, search.SearchConfig{Searcher: cfg.Search, UserID: cfg.UserID, Context: ctx})
	p.SetKeyMap(km.SearchKeys)
	return &searchPanel{p}
}

func newMemoryPanel(ctx context.Context, st *Styles, cfg Config, km KeyMap) *memoryPanel {
	p := notes.NewMemoryBrowser(st, notes.MemoryConfig{Notes: cfg.Notes, Conversations: cfg.Store, UserID: cfg.UserID,
		Context: ctx, TempDir: cfg.TempDir})
	p.SetKeyMap(km.MemoryKeys)
	return &memoryPanel{p}
}

func newModelsPanel(ctx context.Context, st *Styles, cfg Config, km KeyMap) *modelsPanel {
	p := picker.NewModelPicker(st, picker.ModelsConfig{Manager: cfg.Models, Context: ctx, Log: cfg.Log})
	p.SetKeyMap(km.ModelKeys)
	return &modelsPanel{p}
}

// panels are every panel the chat has, open or not.
func (m *Model) panels() []Panel { return []Panel{m.search, m.memory, m.models, m.docs, m.sources} }

// top is the open panel on top of the stack (nil: none is open).
func (m Model) top() Panel {
	if len(m.stack) == 0 {
		return nil
	}
	return m.stack[len(m.stack)-1]
}

// isOpen reports whether p is open.
func (m Model) isOpen(p Panel) bool {
	for _, q := range m.stack {
		if q == p {
			return true
		}
	}
	return false
}

// push opens p over the chat and what is open.
func (m *Model) push(p Panel) { m.stack = append(m.stack, p) }

// routeOwned hands a panel's or the sidebar's own message to it; handled
// is false for any other message.
func (m *Model) routeOwned(msg tea.Msg) (cmd tea.Cmd, handled bool) {
	if m.sidebar.Owns(msg) {
		m.sidebar, cmd = m.sidebar.Update(msg)
		return cmd, true
	}
	for _, p := range m.panels() {
		if !p.Owns(msg) {
			continue
		}
		_, cmd = p.Update(msg)
		if n, ok := p.(notesPanel); ok {
			if changed, wrote := n.WroteNote(msg); wrote {
				// A note deleted, restored or edited: count it now, and
				// ctrl+z takes the change back.
				cmd = tea.Batch(cmd, m.memoryStatusNow(), m.touchNotes("", "", changed))
			}
		}
		return cmd, true
	}
	return nil, false
}

// openSearch opens search with the query of /search QUERY.
func (m *Model) openSearch(query string) tea.Cmd {
	if m.cfg.Search == nil {
		m.hint = "Search is not available here."
		return nil
	}
	var cmd tea.Cmd
	m.search.SearchOverlay, cmd = m.search.Open(query)
	m.push(m.search)
	return cmd
}

// openMemory opens the memory browser.
func (m *Model) openMemory() tea.Cmd {
	if m.cfg.Notes == nil {
		m.sayUnavailable("The memory browser")
		return nil
	}
	m.memory.SetFresh(m.fresh)
	var cmd tea.Cmd
	m.memory.MemoryBrowser, cmd = m.memory.Open()
	m.push(m.memory)
	return cmd
}

// refreshNotes lists the notes again in the open memory browser, so that
// what another mneme wrote or deleted shows at once.
func (m *Model) refreshNotes() tea.Cmd {
	if !m.isOpen(m.memory) {
		return nil
	}
	var cmd tea.Cmd
	m.memory.MemoryBrowser, cmd = m.memory.Refresh()
	return cmd
}

// openModels opens the model picker, pulling pull when it is not "".
func (m *Model) openModels(pull string) tea.Cmd {
	if m.cfg.Models == nil {
		m.hint = "Model management is not available here."
		return nil
	}
	var cmd tea.Cmd
	m.models.ModelPicker, cmd = m.models.Open(m.probe.Model, m.probe.EmbedModel)
	if pull != "" {
		var pc tea.Cmd
		m.models.ModelPicker, pc = m.models.StartPull(pull)
		cmd = tea.Batch(cmd, pc)
	}
	m.push(m.models)
	return cmd
}

// closePanel closes the panel on top and goes back to what is below it.
func (m *Model) closePanel() tea.Cmd {
	p := m.top()
	if p == nil {
		return nil
	}
	m.stack = m.stack[:len(m.stack)-1]
	if _, ok := p.(notesPanel); ok {
		return m.memoryStatusNow() // notes may have been edited or deleted
	}
	return nil
}

// panelUpdate hands a key or any other message (a paste) to the panel on
// top.
func (m *Model) panelUpdate(msg tea.Msg) tea.Cmd {
	p := m.top()
	if p == nil {
		return nil
	}
	_, cmd := p.Update(msg)
	return cmd
}

func (m *Model) sizePanels(width, height int) {
	for _, p := range m.panels() {
		p.SetSize(width, height)
	}
	m.helpView.SetSize(width, height)
}

// panelView draws the panel on top and says where its cursor is.
func (m Model) panelView() (string, *tea.Cursor) {
	if p := m.top(); p != nil {
		return p.View(), p.Cursor()
	}
	return "", nil
}

// helpRows are the full key help (F1, /help): every binding of the chat
// and of each panel, then the slash commands.
func helpRows(st *Styles, km KeyMap, hm help.Model, width int) []string {
	hm.SetWidth(max(1, width))
	hm.ShowAll = true
	var rows []string
	for i, sec := range km.Sections() {
		if i > 0 {
			rows = append(rows, "")
		}
		rows = append(rows, st.SidebarTitle.Render(sec.Title))
		rows = append(rows, keyhelp.KeyRows(hm, sec.Keys.FullHelp(), width)...)
		if i == 0 {
			for _, l := range strings.Split(ansi.Wrap(keymap.HelpMouse, max(render.MinWidth, width), ""), "\n") {
				rows = append(rows, st.CompleteHelp.Render(l))
			}
			rows = append(rows, "", st.SidebarTitle.Render("Slash commands (type / in the input; tab completes)"))
			for _, c := range slashCommands() {
				line := ansi.Wrap(c.usage()+" — "+c.help, max(render.MinWidth, width-2), "")
				for i, l := range strings.Split(line, "\n") {
					if i > 0 {
						l = "  " + l
					}
					rows = append(rows, st.CompleteHelp.Render(l))
				}
			}
			rows = append(rows, st.CompleteHelp.Render("Start a message with // to send it with a leading /."))
		}
	}
	return rows
}
