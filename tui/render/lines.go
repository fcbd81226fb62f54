package render

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/tui/styles"
)

// MinWidth keeps rendering sane in absurdly narrow terminals.
const MinWidth = 20

// margin is the left indent of assistant text.
const margin = styles.MarkdownMargin

// Thinking is the thinking of an answer: its last line while it streams
// (streaming, before any answer text), then its size, collapsed; with
// details, the thinking in full.
func Thinking(st *styles.Styles, thinking string, streaming bool, width int, details bool) string {
	if streaming {
		return st.Thinking.Render(ansi.Truncate("thinking… "+lastLine(sanitize.Text(thinking)), width-margin, "…"))
	}
	words := len(strings.Fields(thinking))
	if !details {
		return st.Thinking.Render(ansi.Truncate(fmt.Sprintf("▸ thought for %d words", words), width-margin, "…"))
	}
	return st.Thinking.Render(fmt.Sprintf("▾ thought for %d words:", words)) + "\n" +
		st.Thinking.Width(width).Render(sanitize.Text(strings.TrimSpace(thinking)))
}

// ToolLine is one compact line for a tool call, worded as `mneme ask`
// words it (`⚙ saved note: "…"`); with details, the call's arguments and
// its result or error follow, wrapped.
func ToolLine(st *styles.Styles, act agent.ToolActivity, done bool, width int, details bool) string {
	act.Done = done
	line := "⚙ " + sanitize.Line(act.Summary())
	style := st.Tool
	switch {
	case !done:
		line += " …"
	case act.Error != "":
		style = st.ToolError
	}
	line = style.Render(ansi.Truncate(line, width-margin, "…"))
	if !details {
		return line
	}
	rows := []string{"arguments: " + detailText(act.Args)}
	switch {
	case !done:
	case act.Error != "":
		rows = append(rows, "error: "+detailText(act.Error))
	default:
		rows = append(rows, "result: "+detailText(act.Result))
	}
	return line + "\n" + detailBlock(style, rows, width)
}

// RecallLine is the context receipt of a prompt: which saved notes (and
// document passage) were put in front of the model; with details, each in
// full with its note id or its source.
func RecallLine(st *styles.Styles, mems []agent.Memory, width int, details bool) string {
	line := st.Tool.Render(ansi.Truncate("↺ "+sanitize.Line(agent.RecallEvent{Memories: mems}.Summary()), width-margin, "…"))
	if !details {
		return line
	}
	rows := make([]string, len(mems))
	for i, m := range mems {
		if m.Passage() {
			rows[i] = fmt.Sprintf("%s [%s]", detailText(m.Text), sanitize.Line(m.Source))
			continue
		}
		rows[i] = fmt.Sprintf("%s [note %s]", detailText(m.Text), sanitize.Line(m.NoteID))
	}
	return line + "\n" + detailBlock(st.Tool, rows, width)
}

// maxDetailRunes bounds one detail row, so a huge tool result stays readable.
const maxDetailRunes = 2000

func detailText(s string) string {
	s = sanitize.Line(s)
	if r := []rune(s); len(r) > maxDetailRunes {
		s = string(r[:maxDetailRunes-1]) + "…"
	}
	return s
}

// detailBlock renders detail rows wrapped under a compact line, indented.
func detailBlock(style lipgloss.Style, rows []string, width int) string {
	const indent = 2
	w := max(width-margin-indent, MinWidth)
	var out []string
	for _, r := range rows {
		for _, l := range strings.Split(ansi.Wrap(r, w, " "), "\n") {
			out = append(out, style.Render(strings.Repeat(" ", indent)+l))
		}
	}
	return strings.Join(out, "\n")
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return strings.TrimSpace(s)
}
