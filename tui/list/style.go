package list

import "charm.land/lipgloss/v2"

// Marker is drawn before the selected row; the others get as many spaces.
const Marker = "▸ "

// Styles are how a list draws its rows' start.
type Styles struct {
	Marker   lipgloss.Style // the ▸ of the selected row
	Selected lipgloss.Style // the selected row's main text
	Normal   lipgloss.Style // the other rows' main text
}

// Prefix is the start of a row, the marker or its blank, and the style of
// the row's main text.
func (s Styles) Prefix(selected bool) (string, lipgloss.Style) {
	if selected {
		return s.Marker.Render(Marker), s.Selected
	}
	return "  ", s.Normal
}
