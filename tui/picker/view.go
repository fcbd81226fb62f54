package picker

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/internal/ollama"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/tui/panel"
)

// Layout: a title line, the models in use, a rule and the column heads
// above the list; a rule, three rows for pulling, a hint and the help
// below.
const (
	modelsTopRows    = 4
	modelsBottomRows = 6
)

func (p ModelPicker) listRows() int {
	// The rows the pull's part leaves unused are the list's (at 40×12 it
	// showed one model of two, above two empty rows).
	unused := 3 - (strings.Count(p.pullView(), "\n") + 1)
	if p.low() {
		// Too low for the hint and help lines (View leaves them out): the
		// list has their rows too.
		return max(1, p.height-modelsTopRows-modelsBottomRows+unused+2)
	}
	return max(1, p.height-modelsTopRows-modelsBottomRows+unused-(len(p.hintLines())-1))
}

// low reports whether the picker is too low for its hint and help lines
// beside two rows of models (40×12 leaves it 10 rows): they go first.
func (p ModelPicker) low() bool { return p.height < modelsTopRows+modelsBottomRows+2 }

// maxHintRows bounds the rows a long hint (an error) wraps to.
const maxHintRows = 4

// hintLines is the hint wrapped to the width, never cut at the edge: a long
// error (a registry URL) is read whole. At least one row, maybe empty.
func (p ModelPicker) hintLines() []string {
	if p.hint == "" || p.width <= 0 {
		return []string{""}
	}
	lines := strings.Split(ansi.Wrap(sanitize.Line(p.hint), p.width, " /"), "\n")
	if len(lines) > maxHintRows {
		lines = lines[:maxHintRows]
		lines[maxHintRows-1] = ansi.Truncate(lines[maxHintRows-1], p.width-1, "") + "…"
	}
	return lines
}

// Cursor is where the terminal cursor goes, relative to the picker's
// top-left corner.
func (p ModelPicker) Cursor() *tea.Cursor {
	if !p.naming {
		return nil
	}
	// Below the list and its rule, on the naming part's second line.
	return panel.OffsetCursor(p.name.Cursor(), 0, modelsTopRows+p.listRows()+2)
}

// View draws the picker in exactly its size.
func (p ModelPicker) View() string {
	if p.width <= 0 || p.height <= 0 {
		return ""
	}
	w := p.width
	status := ""
	if p.loading {
		status = p.st.Hint.Render("loading…")
	} else if p.loadErr == nil {
		status = p.st.Count.Render(fmt.Sprintf("%d installed", len(p.models)))
	}
	role := func(label, name string) string {
		if name == "" {
			return p.st.Dim.Render(label+" ") + p.st.Hint.Render("none")
		}
		return p.st.Dim.Render(label+" ") + p.st.Selected.Render(sanitize.Line(name))
	}
	embed := role("search", p.embed)
	if p.embed == "" {
		embed = p.st.Dim.Render("search ") + p.st.Hint.Render("keywords only")
	}
	nameW, capW := p.columns()
	top := []string{
		panel.TitleLine(w, p.st.Title.Render("Models"), status),
		ansi.Truncate(role("chat", p.chat)+p.st.Dim.Render("  ·  ")+embed, w, "…"),
		p.st.Rule.Render(strings.Repeat("─", w)),
		p.st.Dim.Render("  " + pad("NAME", nameW) + "  " + padLeft("SIZE", 8) + "  " + pad("CAPABILITIES", capW)),
	}
	rows := append(top, p.listView(nameW, capW))
	rows = append(rows, p.st.Rule.Render(strings.Repeat("─", w)), p.pullView())
	if p.low() {
		return panel.Block(rows, w, p.height)
	}
	hints := p.hintLines()
	out := panel.Block(rows, w, p.height-1-len(hints))
	st := p.st.Hint
	if p.hintErr {
		st = p.st.Error
	}
	for i, l := range hints {
		if l != "" {
			hints[i] = st.Render(l)
		}
	}
	hint := strings.Join(hints, "\n")
	help := []key.Binding{p.keys.Up, p.keys.Chat, p.keys.Embed, p.keys.Pull, p.keys.Refresh, p.keys.Back}
	switch {
	case p.naming:
		cancel := p.keys.Back
		cancel.SetHelp("esc", "cancel")
		help = []key.Binding{p.keys.Confirm, cancel}
	case p.pull != nil:
		cancel := p.keys.Back
		cancel.SetHelp("esc", "cancel pull")
		help = []key.Binding{cancel, p.keys.Up, p.keys.Chat, p.keys.Embed}
	}
	return out + "\n" + hint + "\n" + panel.HelpLine(p.st, w, help)
}

// columns sizes the name and capability columns to the width.
func (p ModelPicker) columns() (nameW, capW int) {
	nameW = len("NAME")
	for _, m := range p.models {
		nameW = max(nameW, lipgloss.Width(sanitize.Line(m.Name)))
	}
	// marker, size and gaps, and room for the role tag.
	rest := p.width - 2 - 2 - 8 - 2 - 10
	nameW = max(8, min(nameW, rest*3/5))
	capW = max(0, rest-nameW)
	return nameW, capW
}

func pad(s string, w int) string {
	s = ansi.Truncate(s, w, "…")
	return s + strings.Repeat(" ", max(0, w-lipgloss.Width(s)))
}

func padLeft(s string, w int) string {
	return strings.Repeat(" ", max(0, w-lipgloss.Width(s))) + s
}

func (p ModelPicker) listView(nameW, capW int) string {
	h := p.listRows()
	msg := func(st lipgloss.Style, text string) string {
		return panel.Block([]string{st.Width(p.width).Render(text)}, p.width, h)
	}
	switch {
	case p.loadErr != nil:
		return msg(p.st.Error, "Cannot list models: "+sanitize.Line(p.loadErr.Error()))
	case len(p.models) == 0 && p.loading:
		return msg(p.st.Dim, "Listing models…")
	case len(p.models) == 0:
		return msg(p.st.Dim, "No models installed in Ollama yet.")
	}
	rows := p.list.Rows(len(p.models), h, func(i int, selected bool) string {
		return p.modelRow(p.models[i], selected, nameW, capW)
	})
	return panel.Block(rows, p.width, h)
}

func (p ModelPicker) modelRow(m ollama.ModelInfo, selected bool, nameW, capW int) string {
	marker, name := p.st.List.Prefix(selected)
	var caps []string
	for _, c := range m.Capabilities {
		if c != ollama.CapCompletion {
			caps = append(caps, c)
		}
	}
	var tags []string
	if p.chat != "" && ollama.SameModel(m.Name, p.chat) {
		tags = append(tags, "✓ chat")
	}
	if p.embed != "" && ollama.SameModel(m.Name, p.embed) {
		tags = append(tags, "✓ search")
	}
	row := marker + name.Render(pad(sanitize.Line(m.Name), nameW)) + "  " +
		p.st.Dim.Render(padLeft(text.Bytes(m.Size), 8)) + "  " +
		p.st.Text.Render(pad(strings.Join(caps, ", "), capW))
	return panel.TitleLine(p.width, row, p.st.Ok.Render(strings.Join(tags, " ")))
}

// pullView is three rows: the pull's progress, the name box, or an offer
// to pull what is missing.
func (p ModelPicker) pullView() string {
	w := p.width
	switch {
	case p.pull != nil:
		pl := p.pull
		head := p.st.Title.Render("Pulling "+sanitize.Line(pl.name)) + p.st.Dim.Render(" · "+sanitize.Line(pl.status))
		total, done := pl.bytes()
		bar := p.bar.ViewAs(pl.percent())
		stats := p.st.Dim.Render("waiting for the download to start…")
		if total > 0 {
			s := fmt.Sprintf("%s / %s · %.0f%%", text.Bytes(done), text.Bytes(total), pl.percent()*100)
			if elapsed := pl.lastAt.Sub(pl.firstAt); elapsed > 0 && done > pl.firstDone && done < total {
				rate := float64(done-pl.firstDone) / elapsed.Seconds()
				s += fmt.Sprintf(" · %s/s · ETA %s", text.Bytes(int64(rate)),
					panel.FormatDuration(time.Duration(float64(total-done)/rate*float64(time.Second))))
			}
			stats = p.st.Text.Render(s)
		}
		return panel.Block([]string{head, "  " + bar, "  " + stats}, w, 3)
	case p.naming:
		return panel.Block([]string{
			p.st.Dim.Render("Pull a model from the Ollama library (ollama.com/library):"),
			p.name.View(),
			"",
		}, w, 3)
	}
	var lines []string
	if p.done != nil {
		total, _ := p.done.bytes()
		lines = append(lines, p.st.Ok.Render(fmt.Sprintf("✓ Pulled %s (%s).", sanitize.Line(p.done.name), text.Bytes(total))))
	}
	if len(p.models) > 0 || !p.loading {
		hasChat, hasEmbed := false, false
		for _, m := range p.models {
			hasChat = hasChat || m.CanChat()
			hasEmbed = hasEmbed || m.CanEmbed()
		}
		if !hasChat && p.loadErr == nil {
			lines = append(lines, p.st.Hint.Render(fmt.Sprintf("No chat model installed: press p to pull %s.", ollama.DefaultChatModel)))
		}
		switch {
		case hasEmbed || p.loadErr != nil:
		case p.pullFailed:
			lines = append(lines, p.st.Hint.Render(fmt.Sprintf(
				"Search uses keywords until an embedding model is installed: run `ollama pull %s`.", ollama.DefaultEmbedModel)))
		default:
			lines = append(lines, p.st.Hint.Render(fmt.Sprintf("No embedding model: press p to pull %s.", ollama.DefaultEmbedModel)))
		}
	}
	if len(lines) == 0 {
		lines = append(lines, p.st.Dim.Render("p pulls another model from the Ollama library."))
	}
	n := 0
	for i := range lines {
		lines[i] = ansi.Wrap(lines[i], w, " ") // read whole, not cut at the edge
		n += strings.Count(lines[i], "\n") + 1
	}
	// As many rows as it says (at most 3): the rows it leaves are the list's.
	return panel.Block(lines, w, min(n, 3))
}
