package styles

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/mneme-dev/mneme/tui/list"
)

// Panel is the panels' styles, derived from the one Styles value so that
// they follow its palette and its light or dark background.
type Panel struct {
	Title    lipgloss.Style // the overlay's name
	Count    lipgloss.Style // counts and states on the title line
	Rule     lipgloss.Style
	Text     lipgloss.Style
	Dim      lipgloss.Style // dates, scores, secondary text
	Marker   lipgloss.Style // the ▸ of the selected row
	Selected lipgloss.Style // the selected row's main text
	Match    lipgloss.Style // words of the query in a snippet
	Fresh    lipgloss.Style // notes the model wrote during the current answer
	Hint     lipgloss.Style // a transient notice
	Error    lipgloss.Style
	Ok       lipgloss.Style
	Help     help.Styles
	Input    textinput.Styles
	Bar      Bar
	List     list.Styles // the rows of the panels' lists
}

// Bar is the colours of a progress bar.
type Bar struct {
	Full, Empty lipgloss.Style
}

// NewPanel returns the panels' styles in st's palette.
func NewPanel(st *Styles) Panel {
	accent := st.StatusModel.GetForeground()
	dim := st.Rule.GetForeground()
	text := st.StatusTitle.GetForeground()
	yellow := st.Hint.GetForeground()
	red := st.Error.GetForeground()
	green := st.StatusReady.GetForeground()

	in := textinput.DefaultStyles(st.Dark)
	for _, state := range []*textinput.StyleState{&in.Focused, &in.Blurred} {
		state.Prompt = lipgloss.NewStyle().Foreground(accent)
		state.Placeholder = lipgloss.NewStyle().Foreground(dim)
		state.Text = lipgloss.NewStyle().Foreground(text)
	}
	in.Cursor.Shape = tea.CursorBar
	in.Cursor.Blink = true

	o := Panel{
		Title:    lipgloss.NewStyle().Foreground(accent).Bold(true),
		Count:    lipgloss.NewStyle().Foreground(dim),
		Rule:     lipgloss.NewStyle().Foreground(dim),
		Text:     lipgloss.NewStyle().Foreground(text),
		Dim:      lipgloss.NewStyle().Foreground(dim),
		Marker:   lipgloss.NewStyle().Foreground(accent).Bold(true),
		Selected: lipgloss.NewStyle().Foreground(text).Bold(true),
		Match:    lipgloss.NewStyle().Foreground(yellow).Bold(true),
		Fresh:    lipgloss.NewStyle().Foreground(green).Bold(true),
		Hint:     lipgloss.NewStyle().Foreground(yellow),
		Error:    lipgloss.NewStyle().Foreground(red),
		Ok:       lipgloss.NewStyle().Foreground(green),
		Help:     st.Help,
		Input:    in,
		Bar:      Bar{Full: lipgloss.NewStyle().Foreground(accent), Empty: lipgloss.NewStyle().Foreground(dim)},
	}
	o.List = list.Styles{Marker: o.Marker, Selected: o.Selected, Normal: o.Text}
	return o
}
