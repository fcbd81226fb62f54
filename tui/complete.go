package tui

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// Completion of slash commands: while "/na" is typed, the commands it
// begins are listed above the input with their help; Tab completes the
// chosen one, ↑/↓ choose, and Enter runs it (or, when it needs arguments,
// completes it and waits for them). Once the arguments are being typed,
// one line shows how the command is used.

// maxCompletionRows bounds the list.
const maxCompletionRows = 6

// completion is the state of the list, derived from the input's text.
type completion struct {
	text  string // the input text it was made for
	items []slashCommand
	sel   int
	usage string // "/rename TITLE — rename this conversation" while arguments are typed
}

// updateCompletion makes the list again when the input's text changed.
func (m *Model) updateCompletion() {
	text := m.input.value()
	if text != m.completion.text {
		m.completion = newCompletion(text)
	}
	m.keys.Complete.SetEnabled(len(m.completion.items) > 0 && m.focus == focusInput)
}

func newCompletion(text string) completion {
	c := completion{text: text}
	if !strings.HasPrefix(text, "/") || strings.HasPrefix(text, "//") || strings.ContainsAny(text, "\n") {
		return c
	}
	name, _, hasArgs := strings.Cut(text[1:], " ")
	name = strings.ToLower(name)
	for _, cmd := range slashCommands() {
		switch {
		case hasArgs && cmd.name == name:
			c.usage = cmd.usage() + " — " + cmd.help
		case !hasArgs && strings.HasPrefix(cmd.name, name):
			c.items = append(c.items, cmd)
		}
	}
	return c
}

// completeKey handles Tab, ↑/↓ and Enter while the list is shown.
func (m *Model) completeKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	c := &m.completion
	if len(c.items) == 0 {
		return nil, false
	}
	chosen := c.items[c.sel]
	switch {
	case key.Matches(msg, m.keys.Complete):
		m.setInput(chosen.completed())
	case msg.Code == tea.KeyUp && len(c.items) > 1:
		c.sel = (c.sel + len(c.items) - 1) % len(c.items)
	case msg.Code == tea.KeyDown && len(c.items) > 1:
		c.sel = (c.sel + 1) % len(c.items)
	case key.Matches(msg, m.keys.Send):
		typed := strings.ToLower(strings.TrimSpace(strings.TrimPrefix(m.input.value(), "/")))
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

// completed is the command as completion writes it: with a space when
// arguments may follow.
func (c slashCommand) completed() string {
	if c.args == "" {
		return "/" + c.name
	}
	return "/" + c.name + " "
}

// setInput replaces the input's text, the cursor at its end.
func (m *Model) setInput(text string) {
	m.input.reset()
	m.input.paste(text)
	m.completion = newCompletion(m.input.value())
}

// completionView draws the list, or the usage line.
func (m Model) completionView() string {
	c := m.completion
	w := m.mainWidth()
	if c.usage != "" && m.focus == focusInput {
		return m.st.CompleteHelp.Render(ansi.Truncate(oneLine(c.usage), w, "…"))
	}
	if len(c.items) == 0 || m.focus != focusInput {
		return ""
	}
	first := max(0, min(c.sel-maxCompletionRows+1, len(c.items)-maxCompletionRows))
	var rows []string
	for i := first; i < len(c.items) && len(rows) < maxCompletionRows; i++ {
		cmd := c.items[i]
		mark, name := "  ", m.st.CompleteName
		if i == c.sel {
			mark, name = "› ", m.st.CompleteChosen
		}
		line := name.Render(mark+cmd.usage()) + m.st.CompleteHelp.Render(" — "+cmd.help)
		rows = append(rows, ansi.Truncate(line, w, "…"))
	}
	return strings.Join(rows, "\n")
}

func (m Model) completionHeight() int {
	if v := m.completionView(); v != "" {
		return strings.Count(v, "\n") + 1
	}
	return 0
}
