// Package styles holds the one Styles value the chat screen draws with,
// and the panels' styles derived from it. Nothing reads styles from package
// state: the root builds one value and hands it down.
package styles

import (
	"image/color"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"
	gansi "charm.land/glamour/v2/ansi"
	gstyles "charm.land/glamour/v2/styles"
	"charm.land/lipgloss/v2"
)

// Styles holds every style the TUI draws with. Build one with New and
// pass it to the components; nothing reads styles from package state.
type Styles struct {
	Dark bool

	// Transcript.
	User          lipgloss.Style // a user message block
	UserHighlight lipgloss.Style // the user message of a turn just jumped to
	Assistant     lipgloss.Style // plain assistant text (fallback, streaming tail)
	Thinking      lipgloss.Style // collapsed thinking line
	Interrupted   lipgloss.Style // the "(interrupted)" mark
	Tool          lipgloss.Style // a tool call line
	ToolError     lipgloss.Style // a failed tool call line
	Notice        lipgloss.Style // something the user should know
	Error         lipgloss.Style // a failed run

	// Around the input.
	Alert lipgloss.Style // Ollama problems, shown above the input until fixed
	Hint  lipgloss.Style // one-line transient notice above the input
	Rule  lipgloss.Style // the line between the transcript and the input

	// Status line.
	StatusModel      lipgloss.Style
	StatusReady      lipgloss.Style
	StatusOffline    lipgloss.Style
	StatusConnecting lipgloss.Style
	StatusTitle      lipgloss.Style
	StatusSeparator  lipgloss.Style
	Spinner          lipgloss.Style

	// Sidebar (the conversation list).
	SidebarTitle   lipgloss.Style
	SidebarItem    lipgloss.Style // a conversation's title
	SidebarChosen  lipgloss.Style // the row the cursor is on
	SidebarCurrent lipgloss.Style // the open conversation
	SidebarDate    lipgloss.Style // dates, counts and placeholders

	// Completion of slash commands, above the input.
	CompleteName   lipgloss.Style
	CompleteChosen lipgloss.Style
	CompleteHelp   lipgloss.Style

	Help     help.Styles
	Input    textarea.Styles
	Markdown gansi.StyleConfig // glamour style for assistant answers
}

// New returns the styles for a dark or a light terminal background.
func New(dark bool) Styles {
	ld := lipgloss.LightDark(dark)
	var (
		accent  = ld(lipgloss.Color("#5A56E0"), lipgloss.Color("#7D79F6"))
		dim     = ld(lipgloss.Color("#8A8A8A"), lipgloss.Color("#7A7A7A"))
		text    = ld(lipgloss.Color("#1A1A1A"), lipgloss.Color("#E4E4E4"))
		red     = ld(lipgloss.Color("#C0362C"), lipgloss.Color("#FF6B6B"))
		green   = ld(lipgloss.Color("#2E7D32"), lipgloss.Color("#7BD88F"))
		yellow  = ld(lipgloss.Color("#9A6700"), lipgloss.Color("#E5C07B"))
		toolClr = ld(lipgloss.Color("#5F6B7A"), lipgloss.Color("#9AA5B1"))
	)

	s := Styles{
		Dark: dark,
		User: lipgloss.NewStyle().Foreground(text).
			Border(lipgloss.ThickBorder(), false, false, false, true).BorderForeground(accent).
			PaddingLeft(1),
		UserHighlight: lipgloss.NewStyle().Foreground(text).Bold(true).
			Border(lipgloss.ThickBorder(), false, false, false, true).BorderForeground(yellow).
			PaddingLeft(1),
		Assistant:   lipgloss.NewStyle().Foreground(text).PaddingLeft(MarkdownMargin),
		Thinking:    lipgloss.NewStyle().Foreground(dim).Italic(true).PaddingLeft(MarkdownMargin),
		Interrupted: lipgloss.NewStyle().Foreground(yellow).Italic(true).PaddingLeft(MarkdownMargin),
		Tool:        lipgloss.NewStyle().Foreground(toolClr).PaddingLeft(MarkdownMargin),
		ToolError:   lipgloss.NewStyle().Foreground(red).PaddingLeft(MarkdownMargin),
		Notice:      lipgloss.NewStyle().Foreground(dim).PaddingLeft(MarkdownMargin),
		Error:       lipgloss.NewStyle().Foreground(red).PaddingLeft(MarkdownMargin),

		Alert: lipgloss.NewStyle().Foreground(red).Bold(true),
		Hint:  lipgloss.NewStyle().Foreground(yellow),
		Rule:  lipgloss.NewStyle().Foreground(dim),

		StatusModel:      lipgloss.NewStyle().Foreground(accent).Bold(true),
		StatusReady:      lipgloss.NewStyle().Foreground(green),
		StatusOffline:    lipgloss.NewStyle().Foreground(red).Bold(true),
		StatusConnecting: lipgloss.NewStyle().Foreground(yellow),
		StatusTitle:      lipgloss.NewStyle().Foreground(text),
		StatusSeparator:  lipgloss.NewStyle().Foreground(dim),
		Spinner:          lipgloss.NewStyle().Foreground(accent),

		SidebarTitle:   lipgloss.NewStyle().Foreground(accent).Bold(true),
		SidebarItem:    lipgloss.NewStyle().Foreground(text),
		SidebarChosen:  lipgloss.NewStyle().Foreground(accent).Bold(true),
		SidebarCurrent: lipgloss.NewStyle().Foreground(text).Bold(true),
		SidebarDate:    lipgloss.NewStyle().Foreground(dim),

		CompleteName:   lipgloss.NewStyle().Foreground(text),
		CompleteChosen: lipgloss.NewStyle().Foreground(accent).Bold(true),
		CompleteHelp:   lipgloss.NewStyle().Foreground(dim),

		Help:  help.DefaultStyles(dark),
		Input: inputStyles(dark, accent, dim),
	}
	if dark {
		s.Markdown = markdownStyle(gstyles.DarkStyleConfig)
	} else {
		s.Markdown = markdownStyle(gstyles.LightStyleConfig)
	}
	return s
}

func inputStyles(dark bool, accent, dim color.Color) textarea.Styles {
	st := textarea.DefaultStyles(dark)
	for _, state := range []*textarea.StyleState{&st.Focused, &st.Blurred} {
		state.CursorLine = lipgloss.NewStyle()
		state.EndOfBuffer = lipgloss.NewStyle()
		state.Placeholder = lipgloss.NewStyle().Foreground(dim)
		state.Prompt = lipgloss.NewStyle().Foreground(accent)
	}
	st.Cursor.Shape = tea.CursorBar
	st.Cursor.Blink = true
	return st
}

// MarkdownMargin is the left indent of assistant text, shared by glamour
// and the plain-text styles so that streamed and rendered text line up.
const MarkdownMargin = 2

// markdownStyle adapts a glamour style: no blank lines around the
// document (the transcript spaces blocks itself).
func markdownStyle(base gansi.StyleConfig) gansi.StyleConfig {
	margin := uint(MarkdownMargin)
	base.Document.Margin = &margin
	base.Document.BlockPrefix = ""
	base.Document.BlockSuffix = ""
	return base
}
