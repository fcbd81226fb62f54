package tui

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/internal/ollama"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/tui/keyhelp"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/sidebar"
	"github.com/mneme-dev/mneme/tui/statusline"
)

// layout sizes the components to the window: the body (the sidebar and
// the chat column, or an open panel) above the status and help lines.
func (m *Model) layout() {
	if m.width <= 0 || m.height <= 0 {
		return
	}
	m.help.SetWidth(m.width)
	m.keys.Details.SetEnabled(m.transcript.HasDetails())
	m.keys.Sources.SetEnabled(m.transcript.LastSources() != nil)
	m.updateCompletion()
	body, w := m.bodyHeight(), m.mainWidth()
	m.sidebar.SetSize(sidebar.Width(m.width), body)
	if m.panelSize != [2]int{m.width, body} {
		m.panelSize = [2]int{m.width, body}
		m.sizePanels(m.width, body)
	}
	m.input.SetSize(w, m.height/4)
	fixed := m.input.Height() + 1 // the rule
	if rows := m.aboveInput(w); len(rows) > 0 {
		fixed += lipgloss.Height(strings.Join(rows, "\n"))
	}
	m.transcript.SetSize(w, body-fixed, m.now())
}

// statusRows are the status and help lines under the body.
const statusRows = 2

func (m Model) bodyHeight() int { return max(1, m.height-statusRows) }

// sideBySide reports whether the sidebar is shown beside the chat.
func (m Model) sideBySide() bool { return m.sideOpen && m.width >= sidebar.SideBySideMinWidth }

// sidebarFull reports whether the sidebar takes the chat's place (a
// narrow window, while it has the keys).
func (m Model) sidebarFull() bool {
	return m.sideOpen && !m.sideBySide() && m.focus == focusSidebar
}

// mainWidth is the width of the chat column.
func (m Model) mainWidth() int {
	if m.sideBySide() {
		return max(1, m.width-sidebar.Width(m.width))
	}
	return m.width
}

// View draws the body (the key help, an open panel, or the sidebar and the
// chat column), then the status line and the short key help.
func (m Model) View() tea.View {
	v := tea.View{AltScreen: true, MouseMode: tea.MouseModeCellMotion}
	if m.width <= 0 || m.height <= 0 {
		return v
	}
	body, cur := m.bodyView()
	v.SetContent(body + "\n" + m.statusView() + "\n" + m.helpLineView())
	v.Cursor = cur
	return v
}

func (m Model) bodyView() (string, *tea.Cursor) {
	switch {
	case m.helpOpen:
		return m.helpView.View(m.st), nil
	case m.top() != nil:
		return m.panelView()
	case m.sidebarFull():
		return m.sidebar.View(true), m.sidebar.Cursor()
	}
	main, cur := m.mainView()
	if !m.sideBySide() {
		return main, cur
	}
	if m.focus == focusSidebar {
		cur = m.sidebar.Cursor()
	} else if cur != nil {
		cur.X += sidebar.Width(m.width)
	}
	return lipgloss.JoinHorizontal(lipgloss.Top, m.sidebar.View(m.focus == focusSidebar), main), cur
}

// mainView draws the chat column, top to bottom: the transcript, the
// Ollama alert, a hint, the /switch choices, the slash command completion,
// a rule and the input.
func (m Model) mainView() (string, *tea.Cursor) {
	w := m.mainWidth()
	rows := []string{m.transcript.View()}
	if m.convID == "" && len(m.transcript.Entries) == 0 && !m.loading && !m.incognito() {
		rows[0] = m.welcomeView(w)
	}
	rows = append(append(rows, m.aboveInput(w)...), m.st.Rule.Render(strings.Repeat("─", w)))
	inputTop := lipgloss.Height(strings.Join(rows, "\n"))
	rows = append(rows, m.input.View())
	c := m.input.Cursor()
	if c != nil {
		c.Y += inputTop
	}
	return strings.Join(rows, "\n"), c
}

// aboveInput are the rows between the transcript and the input's rule,
// those shown: the Ollama alert, a model's question, a hint, the /switch
// choices, the slash command completion and a queued prompt.
func (m Model) aboveInput(w int) []string {
	rows := []string{m.alertView(), "", m.hintView(), m.choiceView(), m.completionView(), ""}
	if q := m.confirmLine(); q != "" {
		rows[1] = m.st.Error.Render(ansi.Truncate(sanitize.Line(q), w, "…"))
	}
	if m.queued != "" {
		rows[5] = m.st.Hint.Render(ansi.Truncate("⏵ queued: "+text.OneLine(sanitize.Line(m.queued)), w, "…"))
	}
	return slices.DeleteFunc(rows, func(r string) bool { return r == "" })
}

// hintView is the hint, wrapped to the chat's width rather than losing its
// end (a reason, a command to run), in at most maxAlertRows rows.
func (m Model) hintView() string {
	if m.hint == "" {
		return ""
	}
	w := m.mainWidth()
	return m.st.Hint.Render(panel.CapRows(ansi.Wrap(sanitize.Line(m.hint), max(1, w), ""), maxAlertRows, w))
}

// helpLineView is the short key help for what has the keys.
func (m Model) helpLineView() string {
	switch {
	case m.helpOpen:
		return keyhelp.Fit(m.help, []key.Binding{m.helpView.Keys().Scroll, m.helpView.Keys().Close, m.keys.Quit})
	case m.top() != nil:
		return keyhelp.Fit(m.help, []key.Binding{m.keys.Help, m.keys.Quit})
	case m.focus == focusSidebar && m.sidebar.Confirming():
		return keyhelp.Fit(m.help, append(m.keys.SidebarKeys.ConfirmHelp(m.sidebar.NotesToForget()), m.keys.Quit))
	case m.focus == focusSidebar:
		return keyhelp.Fit(m.help, append(m.keys.SidebarKeys.ShortHelp(), m.keys.Help, m.keys.Quit))
	}
	return keyhelp.Fit(m.help, m.keys.ShortHelp())
}

// alertView is the Ollama problem, wrapped to at most maxAlertRows rows.
func (m Model) alertView() string {
	if m.alert == "" || m.width <= 0 {
		return ""
	}
	w := m.mainWidth()
	return panel.CapRows(m.st.Alert.Width(w).Render("✗ "+sanitize.Text(m.alert)), maxAlertRows, w)
}

// quietAfter is how long a model may say nothing before the status line
// says it is waited for, and for how long.
const quietAfter = 5 * time.Second

func (m Model) statusView() string {
	s := statusline.Info{
		Model:        m.probe.Model,
		ModelMissing: errors.Is(m.probe.Err, ollama.ErrModelNotFound),
		Version:      m.probe.Version,
		Title:        m.title,
		Spinner:      m.spin.View(),

		Incognito: m.incognito(),
	}
	if m.syncStatus != nil {
		s.Sync = m.syncStatus()
	}
	switch m.phase {
	case phaseProbing:
		s.Activity = "connecting"
	case phaseCreating, phaseRunning:
		s.Activity = "generating"
		if m.run != nil && m.run.quietFor >= quietAfter {
			// Ollama busy (another mneme's answer, a docs add's
			// embeddings) or loading the model: minutes of "generating"
			// with nothing on screen read as a hang.
			s.Activity = fmt.Sprintf("waiting for the model · %ds", int(m.run.quietFor.Seconds()))
		}
		if m.compacting {
			s.Activity = "compacting"
		}
	}
	s.Context, s.Window = m.contextPct, m.contextWindow
	s.Memory = m.memStat
	if m.models.Pulling() {
		s.Pull = fmt.Sprintf("pulling %d%%", int(m.models.PullPercent()*100))
	}
	switch {
	case m.probing && (!m.probed || m.phase == phaseProbing): // background probes stay quiet
		s.Ollama = statusline.OllamaConnecting
	case m.probe.Reachable:
		s.Ollama = statusline.OllamaReady
	default:
		s.Ollama = statusline.OllamaOffline
	}
	if m.convID != "" {
		s.Title = panel.DisplayTitle(s.Title)
	}
	if m.convID != "" && m.archived { // its turns stay out of the list and search until /archive again
		s.Title = "(archived) " + s.Title
	}
	return statusline.Render(m.st, m.width, s)
}

// welcomeView is what an empty new conversation shows, at the foot of the
// transcript's space: what mneme does and the keys that open the rest, so
// that a first run is not a blank screen.
func (m Model) welcomeView(w int) string {
	k := m.keys
	lines := []string{
		"mneme keeps every conversation, and remembers what you tell it.",
		"Ask anything below.",
		"",
		fmt.Sprintf("%s search past chats · %s what it remembers · %s conversations · %s keys",
			k.Search.Help().Key, k.Memory.Help().Key, k.Sidebar.Help().Key, k.Help.Help().Key),
	}
	body := m.st.Notice.Width(w).Render(strings.Join(lines, "\n"))
	if lipgloss.Height(body) > m.transcript.Height {
		return m.transcript.View() // a small split: the input and status lines come first
	}
	return lipgloss.PlaceVertical(m.transcript.Height, lipgloss.Bottom, body)
}
