package tui

import (
	"context"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// Panels are the full-window components the chat opens over the
// transcript: search, the memory browser and the model picker (their own
// files), and the key help (below). One is open at a time; the status and
// help lines stay below it. A panel gets every key but Ctrl+C and F1 while
// it is open; its commands' messages reach it even when it is closed (a
// model pull goes on in the background), through its Owns method.

// panelKind names the open panel.
type panelKind int

const (
	panelNone panelKind = iota
	panelSearch
	panelMemory
	panelModels
)

// focusArea is what gets the keys when no panel is open.
type focusArea int

const (
	focusInput focusArea = iota
	focusSidebar
)

// The panels are built with the root key map's bindings for them, so that
// the full help and the panels never disagree.

func newSearchPanel(ctx context.Context, st *Styles, cfg Config, km KeyMap) SearchOverlay {
	p := NewSearchOverlay(st, SearchConfig{Searcher: cfg.Search, UserID: cfg.UserID, Context: ctx})
	p.SetKeyMap(km.SearchKeys)
	return p
}

func newMemoryPanel(ctx context.Context, st *Styles, cfg Config, km KeyMap) MemoryBrowser {
	p := NewMemoryBrowser(st, MemoryConfig{Notes: cfg.Notes, Conversations: cfg.Store, UserID: cfg.UserID,
		Context: ctx, TempDir: cfg.TempDir})
	p.SetKeyMap(km.MemoryKeys)
	return p
}

func newModelsPanel(ctx context.Context, st *Styles, cfg Config, km KeyMap) ModelPicker {
	p := NewModelPicker(st, ModelsConfig{Manager: cfg.Models, Context: ctx, Log: cfg.Log})
	p.SetKeyMap(km.ModelKeys)
	return p
}

// routeOwned hands a panel's or the sidebar's own message to it; handled
// is false for any other message.
func (m *Model) routeOwned(msg tea.Msg) (cmd tea.Cmd, handled bool) {
	switch {
	case m.sidebar.owns(msg):
		m.sidebar, cmd = m.sidebar.update(msg)
	case m.search.Owns(msg):
		m.search, cmd = m.search.Update(msg)
	case m.memory.Owns(msg):
		m.memory, cmd = m.memory.Update(msg)
		if w, ok := msg.(noteWrittenMsg); ok && w.err == nil {
			cmd = tea.Batch(cmd, m.memoryStatusNow()) // a note deleted, restored or edited: count it now
		}
	case m.models.Owns(msg):
		m.models, cmd = m.models.Update(msg)
	default:
		return nil, false
	}
	return cmd, true
}

// openPanel opens a panel; arg is the query of /search QUERY.
func (m *Model) openPanel(p panelKind, arg string) tea.Cmd {
	var cmd tea.Cmd
	switch p {
	case panelSearch:
		if m.cfg.Search == nil {
			m.hint = "Search is not available here."
			return nil
		}
		m.search, cmd = m.search.Open(arg)
	case panelMemory:
		if m.cfg.Notes == nil {
			m.hint = "The memory browser is not available here."
			return nil
		}
		m.memory.SetFresh(m.fresh)
		m.memory, cmd = m.memory.Open()
	case panelModels:
		if m.cfg.Models == nil {
			m.hint = "Model management is not available here."
			return nil
		}
		m.models, cmd = m.models.Open(m.probe.Model, m.probe.EmbedModel)
		if arg != "" {
			var pull tea.Cmd
			m.models, pull = m.models.StartPull(arg)
			cmd = tea.Batch(cmd, pull)
		}
	}
	m.panel = p
	return cmd
}

// closePanel goes back to the chat.
func (m *Model) closePanel() tea.Cmd {
	was := m.panel
	m.panel = panelNone
	if was == panelMemory {
		return m.memoryStatusNow() // notes may have been edited or deleted
	}
	return nil
}

// panelKey hands a key to the open panel.
func (m *Model) panelKey(msg tea.KeyPressMsg) tea.Cmd {
	var cmd tea.Cmd
	switch m.panel {
	case panelSearch:
		m.search, cmd = m.search.Update(msg)
	case panelMemory:
		m.memory, cmd = m.memory.Update(msg)
	case panelModels:
		m.models, cmd = m.models.Update(msg)
	}
	return cmd
}

// panelUpdate hands any other message (a paste) to the open panel.
func (m *Model) panelUpdate(msg tea.Msg) tea.Cmd {
	var cmd tea.Cmd
	switch m.panel {
	case panelSearch:
		m.search, cmd = m.search.Update(msg)
	case panelMemory:
		m.memory, cmd = m.memory.Update(msg)
	case panelModels:
		m.models, cmd = m.models.Update(msg)
	}
	return cmd
}

func (m *Model) sizePanels(width, height int) {
	m.search.SetSize(width, height)
	m.memory.SetSize(width, height)
	m.models.SetSize(width, height)
	m.helpView.setSize(width, height)
}

// panelView draws the open panel and says where its cursor is.
func (m Model) panelView() (string, *tea.Cursor) {
	switch m.panel {
	case panelSearch:
		return m.search.View(), m.search.Cursor()
	case panelMemory:
		return m.memory.View(), m.memory.Cursor()
	case panelModels:
		return m.models.View(), m.models.Cursor()
	}
	return "", nil
}

// helpKeys are the bindings of the key help.
type helpKeys struct {
	Scroll key.Binding
	Close  key.Binding
}

func newHelpKeys() helpKeys {
	return helpKeys{
		Scroll: key.NewBinding(key.WithKeys("up", "down", "pgup", "pgdown", "home", "end"), key.WithHelp("↑/↓ pgup/pgdn", "scroll")),
		Close:  key.NewBinding(key.WithKeys("esc", "f1", "q"), key.WithHelp("esc", "close")),
	}
}

// helpOverlay is the full key help (F1, /help): every binding of the chat
// and of each panel, then the slash commands. It scrolls; Esc, F1 or q
// close it, and any other key closes it and goes on to the chat, so typing
// is never lost.
type helpOverlay struct {
	keys  helpKeys
	lines []string
	top   int

	width, height int
}

// open fills the help for the current bindings and width.
func (h *helpOverlay) open(st *Styles, km KeyMap, hm help.Model) {
	h.keys = newHelpKeys()
	hm.SetWidth(max(1, h.width))
	hm.ShowAll = true
	var rows []string
	for i, sec := range km.sections() {
		if i > 0 {
			rows = append(rows, "")
		}
		rows = append(rows, st.SidebarTitle.Render(sec.title))
		rows = append(rows, fullHelpRows(hm, sec.keys.FullHelp(), h.width)...)
		if i == 0 {
			for _, l := range strings.Split(ansi.Wrap(helpMouse, max(minContentWidth, h.width), ""), "\n") {
				rows = append(rows, st.CompleteHelp.Render(l))
			}
			rows = append(rows, "", st.SidebarTitle.Render("Slash commands (type / in the input; tab completes)"))
			for _, c := range slashCommands() {
				line := ansi.Wrap(c.usage()+" — "+c.help, max(minContentWidth, h.width-2), "")
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
	h.lines, h.top = rows, 0
}

// fullHelpRows renders groups of bindings as columns, as many side by side
// as fit in width, the rest below: every binding is shown, however narrow
// the window (help.Model drops the columns that do not fit).
func fullHelpRows(hm help.Model, groups [][]key.Binding, width int) []string {
	hm.SetWidth(0)
	var rows []string
	for len(groups) > 0 {
		n := len(groups)
		for n > 1 && lipgloss.Width(hm.FullHelpView(groups[:n])) > width {
			n--
		}
		rows = append(rows, strings.Split(hm.FullHelpView(groups[:n]), "\n")...)
		groups = groups[n:]
	}
	return rows
}

func (h *helpOverlay) setSize(width, height int) {
	h.width, h.height = width, height
	h.top = max(0, min(h.top, len(h.lines)-h.bodyRows()))
}

// bodyRows are the rows under the title.
func (h *helpOverlay) bodyRows() int { return max(1, h.height-1) }

// key scrolls or closes the help; handled is false for a key that closed
// it and should go on to the chat.
func (h *helpOverlay) key(msg tea.KeyPressMsg) (closed, handled bool) {
	page := h.bodyRows()
	last := max(0, len(h.lines)-page)
	switch msg.String() {
	case "up":
		h.top = max(0, h.top-1)
	case "down":
		h.top = min(last, h.top+1)
	case "pgup":
		h.top = max(0, h.top-page)
	case "pgdown":
		h.top = min(last, h.top+page)
	case "home":
		h.top = 0
	case "end":
		h.top = last
	default:
		return true, key.Matches(msg, h.keys.Close)
	}
	return false, true
}

// view draws the help in exactly its size: a title and the help (the
// chat's help line says how to scroll and close it).
func (h helpOverlay) view(st *Styles) string {
	title := st.SidebarTitle.Render("Keys and commands")
	if len(h.lines) > h.bodyRows() {
		title += st.SidebarDate.Render(ansi.Truncate("  (↑/↓ for more)", max(0, h.width-17), ""))
	}
	rows := []string{title}
	end := min(len(h.lines), h.top+h.bodyRows())
	rows = append(rows, h.lines[h.top:end]...)
	return block(rows, h.width, h.height)
}
