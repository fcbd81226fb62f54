package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/tui/paths"
)

// Completion of slash commands: while "/na" is typed, the commands it
// begins are listed above the input with their help; Tab completes the
// chosen one, ↑/↓ choose, and Enter runs it (or, when it needs arguments,
// completes it and waits for them). Once the arguments are being typed,
// one line shows how the command is used. /attach's argument completes
// as a path does in a shell (tui/paths): the names it may go on with are
// listed, Tab writes what they share and then the chosen one, ↑/↓ choose,
// and Enter attaches what is typed, or the chosen file (completePathKey).
// Esc closes the list (or the usage line) until the text changes.

// maxCompletionRows bounds the list; maxPaths, the paths listed.
const (
	maxCompletionRows = 6
	maxPaths          = 200
)

// completion is the state of the list, derived from the input's text.
type completion struct {
	text  string // the input text it was made for
	items []slashCommand
	sel   int
	usage string // "/rename TITLE — rename this conversation" while arguments are typed
	// path is /attach's argument while it can be completed (wantPaths);
	// paths come back from a listing asked for once per text.
	path                     string
	wantPaths, asked, listed bool
	paths                    []paths.Candidate
	exists                   bool   // the typed path names a file or folder
	common                   string // what every completing name shares
	tabPending               bool   // a Tab waits for the listing
	moved                    bool   // ↑/↓ chose a row
	quote                    string // the quote the path was opened with
}

// listPaths asks for the paths that complete /attach's argument, once for
// each text; the listing reads the file system, so it is a command.
func (m *Model) listPaths() tea.Cmd {
	c := &m.completion
	if !c.wantPaths || c.asked {
		return nil
	}
	c.asked = true
	return paths.List(c.text, c.path, maxPaths)
}

// handlePaths shows a listing still meant for the input's text.
func (m *Model) handlePaths(msg paths.Msg) {
	c := &m.completion
	if msg.Text != c.text {
		return
	}
	chosen := ""
	if c.sel < len(c.paths) {
		chosen = c.paths[c.sel].Path
	}
	c.paths, c.sel, c.listed, c.exists, c.common = msg.Paths, 0, true, msg.Exists, msg.Common
	for i, p := range c.paths {
		if p.Path == chosen { // the choice made in the list before stays
			c.sel = i
		}
	}
	if c.tabPending {
		c.tabPending = false
		m.tabPath()
	}
}

// updateCompletion makes the list again when the input's text changed.
func (m *Model) updateCompletion() {
	text := m.input.Value()
	if text != m.completion.text {
		prev := m.completion.paths
		m.completion = newCompletion(text)
		if m.cfg.Attach == nil || m.incognito() { // /attach cannot run: no files to offer
			m.completion.wantPaths = false
		}
		if m.completion.wantPaths { // until the listing comes
			m.completion.paths = paths.Narrow(prev, m.completion.path)
		}
	}
	m.keys.Complete.SetEnabled(m.completion.rows() > 0 && m.focus == focusInput)
}

func newCompletion(text string) completion {
	c := completion{text: text}
	if !strings.HasPrefix(text, "/") || strings.HasPrefix(text, "//") || strings.ContainsAny(text, "\n") {
		return c
	}
	name, arg, hasArgs := strings.Cut(text[1:], " ")
	name = strings.ToLower(name)
	for _, cmd := range slashCommands() {
		switch {
		case hasArgs && cmd.name == name:
			c.usage = cmd.usage() + " — " + cmd.help
			// A quoted argument is a glob: it is left as typed.
			// A glob is left as typed; a path in an opened quote completes.
			c.path = strings.TrimLeft(arg, " ")
			if q := strings.IndexAny(c.path, "\"'"); q == 0 && !strings.ContainsRune(c.path[1:], rune(c.path[0])) {
				c.quote, c.path = c.path[:1], c.path[1:]
			}
			c.wantPaths = cmd.name == "attach" && !strings.ContainsAny(c.path, "\"'*?[")
		case !hasArgs && strings.HasPrefix(cmd.name, name):
			c.items = append(c.items, cmd)
		}
	}
	return c
}

// completeKey handles Tab, ↑/↓ and Enter while the list is shown.
func (m *Model) completeKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	c := &m.completion
	if c.wantPaths {
		if cmd, ok := m.completePathKey(msg); ok {
			return cmd, true
		}
	}
	n := c.rows()
	switch {
	case msg.Code == tea.KeyEscape && (n > 0 || c.usage != ""):
		*c = completion{text: c.text} // closed until the text changes
		m.keys.Complete.SetEnabled(false)
	case n == 0:
		return nil, false
	case msg.Code == tea.KeyUp && n > 1:
		c.sel, c.moved = (c.sel+n-1)%n, true
	case msg.Code == tea.KeyDown && n > 1:
		c.sel, c.moved = (c.sel+1)%n, true
	case len(c.paths) > 0:
		return nil, false // Tab and Enter: completePathKey
	case key.Matches(msg, m.keys.Complete):
		m.setInput(c.items[c.sel].completed())
	case key.Matches(msg, m.keys.Send):
		chosen := c.items[c.sel]
		typed := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(m.input.Value(), "/")))
		if typed == chosen.name && !chosen.needsArgs {
			return nil, false // exactly a command: it runs as typed
		}
		if chosen.needsArgs {
			m.setInput(chosen.completed())
			return nil, true
		}
		m.setInput("/" + chosen.name)
		return m.submit(), true
	default:
		return nil, false
	}
	return nil, true
}

// completePathKey handles Tab and Enter while /attach's path completes:
// Tab writes what the listed names share, else the chosen one (a Tab
// typed before the listing came waits for it); Enter attaches a file
// chosen with ↑/↓ (or goes into a chosen folder), or the one name there
// is when what is typed names nothing, else what is typed.
func (m *Model) completePathKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	c := &m.completion
	switch {
	case msg.Code == tea.KeyTab && !c.listed:
		c.tabPending = true
	case len(c.paths) == 0:
		return nil, false
	case msg.Code == tea.KeyTab:
		m.tabPath()
	case key.Matches(msg, m.keys.Send) && c.listed && c.path != "" && (c.moved || !c.exists && len(c.paths) == 1):
		chosen := c.paths[c.sel] // a row chosen with ↑/↓, or the one name there is for a path that is none
		m.setInput("/attach " + c.quote + chosen.Path)
		if !chosen.Dir {
			return m.submit(), true
		}
	default:
		return nil, false
	}
	return nil, true
}

// tabPath completes the path as Tab does.
func (m *Model) tabPath() {
	c := &m.completion
	if len(c.paths) == 0 {
		return
	}
	to, common := c.paths[c.sel].Path, c.common
	if !c.listed {
		common = paths.CommonPrefix(c.paths)
	}
	if len(common) > len(c.path) {
		to = common // first what they all share, as a shell does
	}
	m.setInput("/attach " + c.quote + to)
}

// rows counts the list's rows: paths, or commands.
func (c completion) rows() int { return len(c.items) + len(c.paths) }

// completed is the command as completion writes it: with a space when
// arguments may follow.
func (c slashCommand) completed() string {
	if c.args == "" {
		return "/" + c.name
	}
	return "/" + c.name + " "
}

// retype puts a command that failed back in the input, to be corrected,
// unless something was typed meanwhile.
func (m *Model) retype(cmd string) {
	if m.input.Value() == "" {
		m.setInput(cmd)
	}
}

// setInput replaces the input's text, the cursor at its end.
func (m *Model) setInput(text string) {
	m.input.Reset()
	m.input.Paste(text)
	m.updateCompletion()
}

// completionView draws the list, or the usage line.
func (m Model) completionView() string {
	c := m.completion
	w := m.mainWidth()
	if c.usage != "" && len(c.paths) == 0 && m.focus == focusInput {
		return m.st.CompleteHelp.Render(ansi.Truncate(sanitize.Line(c.usage), w, "…"))
	}
	n := c.rows()
	if n == 0 || m.focus != focusInput {
		return ""
	}
	first := max(0, min(c.sel-maxCompletionRows+1, n-maxCompletionRows))
	var rows []string
	for i := first; i < n && len(rows) < maxCompletionRows; i++ {
		mark, name := "  ", m.st.CompleteName
		if i == c.sel && (len(c.paths) == 0 || c.moved || len(c.paths) == 1) { // a path is chosen only by ↑/↓
			mark, name = "› ", m.st.CompleteChosen
		}
		var line string
		if len(c.paths) > 0 {
			line = name.Render(mark + c.paths[i].Name) // names a terminal cannot show are never listed
		} else {
			line = name.Render(mark+c.items[i].usage()) + m.st.CompleteHelp.Render(" — "+c.items[i].help)
		}
		rows = append(rows, ansi.Truncate(line, w, "…"))
	}
	return strings.Join(rows, "\n")
}
