package notes

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/render"
)

// Layout: a title line, the search box and a rule above; a hint line and
// the help line below. The list also shows a preview of the selected note
// when there is room.
const (
	memChromeRows  = 5
	previewRows    = 4 // a rule, two lines of text, the provenance
	minPreviewRows = 16
)

func (b MemoryBrowser) hasPreview() bool { return b.height >= minPreviewRows }

// listRows is how many notes the list shows.
func (b MemoryBrowser) listRows() int {
	rows := b.height - memChromeRows
	if b.hasPreview() {
		rows -= previewRows
	}
	return max(1, rows)
}

// textRows is how many rows of a note memView shows: all but a title,
// two rules, the provenance, the hint and the help (and, for a pending
// note that would replace a kept one, the line that says so).
func (b MemoryBrowser) textRows() int {
	fixed := 6
	if n, ok := b.selected(); ok && n.Status == memory.NotePending {
		if _, ok := b.replaced(n); ok {
			fixed++
		}
	}
	return max(1, b.height-fixed)
}

// editRows is the height of the inline editor: all but a title, a rule,
// the hint and the help.
func (b MemoryBrowser) editRows() int { return max(1, b.height-4) }

func (b MemoryBrowser) viewLines() int {
	n, ok := b.selected()
	if !ok {
		return 0
	}
	return len(b.wrapNote(n))
}

func (b MemoryBrowser) wrapNote(n memory.Note) []string {
	return strings.Split(ansi.Wrap(shown(n.Content), max(1, b.width-2), ""), "\n")
}

// shown is a note's text as the browser shows it and edits it: sanitised,
// tabs expanded.
func shown(content string) string {
	return text.ExpandTabs(sanitize.Text(content), render.TabWidth)
}

// Cursor is where the terminal cursor goes, relative to the browser's
// top-left corner.
func (b MemoryBrowser) Cursor() *tea.Cursor {
	switch {
	case b.mode == memEdit:
		return panel.OffsetCursor(b.editor.Cursor(), 0, 2)
	case b.mode == memList && b.filtering:
		return panel.OffsetCursor(b.filter.Cursor(), 0, 1)
	}
	return nil
}

// View draws the browser in exactly its size.
func (b MemoryBrowser) View() string {
	if b.width <= 0 || b.height <= 0 {
		return ""
	}
	var rows []string
	var help []key.Binding
	switch b.mode {
	case memEdit:
		rows, help = b.editView()
	case memView:
		rows, help = b.noteView()
	case memHistory:
		rows, help = b.historyView()
	default:
		rows, help = b.listView()
	}
	if b.height < memChromeRows {
		return panel.Block(rows, b.width, b.height)
	}
	out := panel.Block(rows, b.width, b.height-2)
	hint := ""
	if b.hint != "" {
		st := b.st.Hint
		if b.hintErr {
			st = b.st.Error
		}
		hint = st.Render(ansi.Truncate(sanitize.Line(b.hint), b.width, "…"))
	}
	return out + "\n" + hint + "\n" + panel.HelpLine(b.st, b.width, help)
}

func (b MemoryBrowser) rule() string { return b.st.Rule.Render(strings.Repeat("─", b.width)) }

func (b MemoryBrowser) listView() ([]string, []key.Binding) {
	w := b.width
	count := fmt.Sprintf(" · %d notes", b.total)
	if b.total == 1 {
		count = " · 1 note"
	}
	var status string
	switch {
	case b.loading:
		status = b.st.Hint.Render("loading…")
	case b.query != "":
		status = b.st.Count.Render(fmt.Sprintf("%d found", len(b.items)))
	}
	if n := b.freshCount(); n > 0 {
		status = strings.TrimSpace(b.st.Fresh.Render(fmt.Sprintf("● %d new", n)) + "  " + status)
	}
	rows := []string{
		panel.TitleLine(w, b.st.Title.Render("Memory")+b.st.Dim.Render(count), status),
		b.filter.View(),
		b.rule(),
	}
	listH := b.listRows()
	keys := b.keys
	closeKey := keys.Back
	closeKey.SetHelp("esc", "close")
	if b.filter.Value() != "" {
		closeKey.SetHelp("esc", "clear search")
	}
	var help []key.Binding
	if n, ok := b.selected(); ok && n.Status == memory.NotePending {
		help = append(help, keys.Approve, keys.Reject)
	}
	if len(b.items) > 0 {
		help = append(help, keys.Up, keys.View, keys.Filter, keys.Edit, keys.Delete)
	} else {
		help = append(help, keys.Filter)
	}
	if len(b.items) > 0 || len(b.deleted) > 0 {
		help = append(help, keys.Undo)
	}
	if len(b.items) > 0 {
		help = append(help, keys.History, keys.OpenTurn, keys.Editor)
	}
	help = append(help, closeKey)
	if b.filtering {
		help = []key.Binding{
			key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "done")),
			key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "clear search")),
			key.NewBinding(key.WithKeys("up"), key.WithHelp("↑/↓", "move")),
		}
	}
	msg := func(st lipgloss.Style, text string) []string {
		return append(rows, panel.Block([]string{st.Width(w).Render(text)}, w, listH))
	}
	switch {
	case b.loadErr != nil:
		return msg(b.st.Error, "Cannot load notes: "+sanitize.Line(b.loadErr.Error())), help
	case len(b.items) == 0 && b.loading:
		return msg(b.st.Dim, "Loading notes…"), help
	case len(b.items) == 0 && b.query != "":
		return msg(b.st.Dim, fmt.Sprintf("No notes match “%s”.", sanitize.Line(b.query))), help
	case len(b.items) == 0:
		return msg(b.st.Dim, "No notes yet. Ask the assistant to remember something, or add one with `mneme memory add`."), help
	}
	now := b.clock.Now()
	notes := b.list.Rows(len(b.items), listH, func(i int, selected bool) string {
		return b.noteRow(b.items[i], selected, now)
	})
	rows = append(rows, panel.Block(notes, w, listH))
	if b.hasPreview() {
		rows = append(rows, b.preview())
	}
	return rows, help
}

func (b MemoryBrowser) freshCount() int {
	n := 0
	for _, it := range b.items {
		if b.fresh[it.ID] {
			n++
		}
	}
	return n
}

// noteRow draws one note: "▸ The note's text…      ● new · 2d ago".
func (b MemoryBrowser) noteRow(n memory.Note, selected bool, now time.Time) string {
	marker, style := b.st.List.Prefix(selected)
	meta := b.st.Dim.Render(text.RelativeDate(now, n.Updated))
	if n.Status == memory.NotePending {
		meta = b.st.Hint.Render("pending") + b.st.Dim.Render(" · ") + meta
	}
	if b.fresh[n.ID] {
		style = b.st.Fresh
		meta = b.st.Fresh.Render("● new") + b.st.Dim.Render(" · ") + meta
	}
	room := b.width - 2 - lipgloss.Width(meta) - 2
	if room < 12 {
		meta, room = "", b.width-2
	}
	words := panel.QueryWords(b.query)
	body := ansi.Truncate(sanitize.Line(n.Content), max(1, room), "…")
	return panel.TitleLine(b.width, marker+panel.Highlight(body, words, style, b.st.Match), meta)
}

// provenance says where a note was saved.
func (b MemoryBrowser) provenance(n memory.Note) string {
	tags := ""
	if len(n.Tags) > 0 { // as `memory list` shows them
		tags = b.st.Dim.Render(" · #" + sanitize.Line(strings.Join(n.Tags, " #")))
	}
	if n.ConversationID == "" {
		return b.st.Dim.Render("Added outside a conversation") + tags
	}
	title, ok := b.titles[n.ConversationID]
	if !ok || title == "" {
		title = "untitled"
	}
	return b.st.Dim.Render("From ") + b.st.Text.Render("“"+sanitize.Line(title)+"”") +
		b.st.Dim.Render(fmt.Sprintf(", turn %d", n.TurnNumber)) + tags
}

func (b MemoryBrowser) preview() string {
	n, ok := b.selected()
	if !ok {
		return b.rule()
	}
	lines := b.wrapNote(n)
	text := lines[:min(2, len(lines))]
	if len(lines) > 2 {
		text[1] = ansi.Truncate(text[1], b.width-3, "") + "…"
	}
	rows := []string{b.rule()}
	for _, l := range text {
		rows = append(rows, b.st.Dim.Render("  "+l))
	}
	for len(rows) < previewRows-1 {
		rows = append(rows, "")
	}
	prov := b.provenance(n)
	if n.ConversationID != "" {
		prov += b.st.Dim.Render(" · o opens it")
	}
	return strings.Join(append(rows, "  "+prov), "\n")
}

// savedBy says who made a note, by its source.
var savedBy = map[string]string{
	memory.SourceUser: "saved ", memory.SourceModel: "saved by the model ",
	memory.SourceExtracted: "learnt ", memory.SourceImported: "imported ",
}

func (b MemoryBrowser) noteView() ([]string, []key.Binding) {
	n, ok := b.selected()
	if !ok {
		return nil, []key.Binding{b.keys.Back}
	}
	now := b.clock.Now()
	when := savedBy[n.Source] + text.RelativeDate(now, n.Created)
	if savedBy[n.Source] == "" {
		when = "saved " + text.RelativeDate(now, n.Created)
	}
	if n.Updated.Sub(n.Created) > time.Minute {
		when += " · edited " + text.RelativeDate(now, n.Updated)
	}
	right := b.st.Dim.Render(when)
	if b.fresh[n.ID] {
		right = b.st.Fresh.Render("● new") + b.st.Dim.Render(" · ") + right
	}
	short := sanitize.Line(text.Prefix(n.ID, 13))
	rows := []string{
		panel.TitleLine(b.width, b.st.Title.Render("Note")+b.st.Dim.Render(" "+short), right),
		b.rule(),
	}
	lines := b.wrapNote(n)
	textH := b.textRows()
	start := min(b.viewTop, max(0, len(lines)-1))
	var text []string
	for i := start; i < len(lines) && len(text) < textH; i++ {
		text = append(text, b.st.Text.Render("  "+lines[i]))
	}
	rows = append(rows, panel.Block(text, b.width, max(0, textH)), b.rule(), "  "+b.provenance(n))
	if old, ok := b.replaced(n); ok && n.Status == memory.NotePending {
		rows = append(rows, "  "+b.st.Hint.Render("Approving it replaces ")+
			b.st.Text.Render("“"+ansi.Truncate(sanitize.Line(old.Content), max(1, b.width-30), "…")+"”"))
	}
	keys := b.keys
	var help []key.Binding
	if n.Status == memory.NotePending {
		help = append(help, keys.Approve, keys.Reject)
	}
	if n.ConversationID != "" {
		help = append(help, keys.OpenTurn)
	}
	help = append(help, keys.Edit, keys.Delete, keys.Undo, keys.History, keys.Editor)
	scroll := keys.Up
	scroll.SetHelp("↑/↓", "scroll")
	return rows, append(help, scroll, keys.Back)
}

func (b MemoryBrowser) editView() ([]string, []key.Binding) {
	status := ""
	if b.busy {
		status = b.st.Hint.Render("saving…")
	}
	rows := []string{
		panel.TitleLine(b.width, b.st.Title.Render("Edit note"), status),
		b.rule(),
		b.editor.View(),
	}
	cancel := b.keys.Back
	cancel.SetHelp("esc", "cancel")
	return rows, []key.Binding{b.keys.Save, cancel}
}

// historyLines are the history of the note shown, one change a few lines:
// when, what and who, then the text before and after.
func (b MemoryBrowser) historyLines() []string {
	now := b.clock.Now()
	w := max(1, b.width-6)
	var out []string
	for _, c := range b.history {
		head := text.RelativeDate(now, c.At) + " · " + c.Op + " by " + c.By
		switch {
		case c.Undoes != "":
			head += " (an undo)"
		case c.UndoneBy != "":
			head += " (undone)"
		}
		out = append(out, b.st.Text.Render("  "+sanitize.Line(head)))
		if c.BeforeText != "" && c.BeforeText != c.AfterText {
			out = append(out, b.st.Dim.Render("    − "+ansi.Truncate(sanitize.Line(c.BeforeText), w, "…")))
		}
		if c.AfterText != "" && c.BeforeText != c.AfterText {
			out = append(out, b.st.Dim.Render("    + "+ansi.Truncate(sanitize.Line(c.AfterText), w, "…")))
		}
		if c.BeforeStatus != c.AfterStatus && c.BeforeStatus != "" && c.AfterStatus != "" {
			out = append(out, b.st.Dim.Render("    "+sanitize.Line(c.BeforeStatus+" → "+c.AfterStatus)))
		}
	}
	return out
}

func (b MemoryBrowser) historyView() ([]string, []key.Binding) {
	short := sanitize.Line(text.Prefix(b.histNote, 13))
	status := ""
	if b.histLoading {
		status = b.st.Hint.Render("loading…")
	}
	rows := []string{
		panel.TitleLine(b.width, b.st.Title.Render("History")+b.st.Dim.Render(" of note "+short+", newest first"), status),
		b.rule(),
	}
	lines := b.historyLines()
	switch {
	case b.histErr != nil:
		lines = []string{b.st.Error.Render("Cannot load the history: " + sanitize.Line(b.histErr.Error()))}
	case len(lines) == 0 && !b.histLoading:
		lines = []string{b.st.Dim.Render("No recorded change.")}
	}
	start := min(b.viewTop, max(0, len(lines)-1))
	rows = append(rows, panel.Block(lines[start:], b.width, max(0, b.height-4)))
	scroll := b.keys.Up
	scroll.SetHelp("↑/↓", "scroll")
	return rows, []key.Binding{b.keys.Undo, scroll, b.keys.Back}
}
