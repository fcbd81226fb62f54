package tui

import (
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
)

// ollamaState is what the status line says about Ollama.
type ollamaState int

const (
	ollamaConnecting ollamaState = iota
	ollamaReady
	ollamaOffline
)

// statusInfo is everything the status line shows.
type statusInfo struct {
	model   string // "" when there is none
	ollama  ollamaState
	version string
	title   string // "" for a conversation not yet started
	// activity is what is being waited for ("generating"), shown with the
	// spinner's current frame; "" when idle.
	activity string
	spinner  string
	// sync is how sync is doing ("" when sync is off).
	sync string
	// context is the share (%) of the model's context window the last
	// request and its answer filled; 0 when not known yet.
	context int
}

const statusSep = " · "

// renderStatus draws the status line in exactly one row of width columns:
// model, Ollama state and conversation title on the left (the title is cut
// first), and a spinner on the right while an answer is generated.
func renderStatus(st *Styles, width int, s statusInfo) string {
	if width <= 0 {
		return ""
	}
	model := st.StatusModel.Render("no model")
	if s.model != "" {
		model = st.StatusModel.Render(oneLine(s.model))
	}
	var state string
	switch s.ollama {
	case ollamaConnecting:
		state = st.StatusConnecting.Render("Ollama connecting…")
	case ollamaReady:
		v := "Ollama ready"
		if s.version != "" {
			v += " v" + oneLine(s.version)
		}
		state = st.StatusReady.Render(v)
	case ollamaOffline:
		state = st.StatusOffline.Render("Ollama offline")
	}
	title := "new conversation"
	if s.title != "" {
		title = s.title
	}
	sep := st.StatusSeparator.Render(statusSep)
	left := model + sep + state + sep
	if s.context > 0 {
		left += contextUse(st, s.context) + sep
	}
	left += st.StatusTitle.Render(oneLine(title))

	var right string
	if s.activity != "" {
		right = s.spinner + " " + st.StatusConnecting.Render(s.activity)
	}
	if s.sync != "" {
		if right != "" {
			right += st.StatusSeparator.Render(statusSep)
		}
		right += renderSync(st, s.sync)
	}
	room := width
	if right != "" {
		room -= lipgloss.Width(right) + 1
	}
	if room < 1 {
		return ansi.Truncate(left, width, "…")
	}
	left = ansi.Truncate(left, room, "…")
	if right == "" {
		return left
	}
	gap := max(1, width-lipgloss.Width(left)-lipgloss.Width(right))
	return left + strings.Repeat(" ", gap) + right
}
