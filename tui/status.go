package tui

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/internal/text"
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
	// window is the context window in tokens (0: not known yet).
	window int
	// memory is the state of search and the notes (known is false until
	// the first report, or when the chat has no memory).
	memory memoryInfo
	// pull is a model download in progress ("" when none).
	pull string
	// incognito: nothing of the chat is kept (always shown).
	incognito bool
}

// memoryInfo is what the status line says about memory.
type memoryInfo struct {
	known   bool
	embed   embedState
	pending int // turns and notes waiting for embeddings
	notes   int
	review  int // learnt notes waiting for the user's review
	// reindexed of reindexTotal turns are back in the keyword index
	// (reindexTotal is 0 unless it is being rebuilt).
	reindexed, reindexTotal int
}

// embedState is how search by meaning is doing.
type embedState int

const (
	embedReady       embedState = iota // every turn is embedded
	embedPending                       // embedding is catching up
	embedKeywordOnly                   // no embedding model: search by words only
	embedPaused                        // embedding fails (Ollama down); retried later
)

// Priorities of status segments: when the line is too narrow, the lowest
// go first. The title has a priority too (prioTitle): it is cut to the
// room left, and left out once too little of it would show.
const (
	prioIncognito = 110
	prioModel     = 100
	prioActivity  = 90
	prioOllama    = 80
	prioContext   = 70
	prioReindex   = 65
	prioPull      = 60
	prioTitle     = 55
	prioSync      = 50
	prioEmbed     = 40
	prioNotes     = 30
)

// minTitleCells is the least room a title is shown in.
const minTitleCells = 8

// statusSegment is one part of the status line.
type statusSegment struct {
	text string // styled
	prio int
}

const statusSep = " · "

// renderStatus draws the status line in exactly one row of width columns:
// on the left the model, Ollama's state, the context use, the memory state
// (embeddings and notes) and the conversation title; on the right what is
// being waited for, a model download and the sync state. Segments are
// dropped, least important first, when they do not fit.
func renderStatus(st *Styles, width int, s statusInfo) string {
	if width <= 0 {
		return ""
	}
	left, right := statusSegments(st, s)
	title := "new conversation"
	if s.title != "" {
		title = s.title
	}
	title = oneLine(title)
	sep := st.StatusSeparator.Render(statusSep)
	for {
		l, r := joinSegments(left, sep), joinSegments(right, sep)
		room := width - lipgloss.Width(l) - lipgloss.Width(sep)
		if r != "" {
			room -= lipgloss.Width(r) + 1
		}
		if room >= min(minTitleCells, ansi.StringWidth(title)) {
			l += sep + st.StatusTitle.Render(ansi.Truncate(title, room, "…"))
			return spread(l, r, width)
		}
		if !dropLowest(&left, &right, prioTitle) {
			break
		}
	}
	// Without the title: drop what does not fit.
	for {
		l, r := joinSegments(left, sep), joinSegments(right, sep)
		need := lipgloss.Width(l)
		if r != "" {
			need += lipgloss.Width(r) + 1
		}
		if need <= width || !dropLowest(&left, &right, prioModel) {
			return spread(l, r, width)
		}
	}
}

// statusSegments are the status line's parts, left and right.
func statusSegments(st *Styles, s statusInfo) (left, right []statusSegment) {
	model := "no model"
	if s.model != "" {
		model = oneLine(s.model)
	}
	if s.incognito {
		left = append(left, statusSegment{st.StatusOffline.Render("incognito"), prioIncognito})
	}
	left = append(left, statusSegment{st.StatusModel.Render(model), prioModel})
	switch s.ollama {
	case ollamaConnecting:
		left = append(left, statusSegment{st.StatusConnecting.Render("Ollama connecting…"), prioOllama})
	case ollamaReady:
		v := "Ollama ready"
		if s.version != "" {
			v += " v" + oneLine(s.version)
		}
		left = append(left, statusSegment{st.StatusReady.Render(v), prioOllama})
	case ollamaOffline:
		left = append(left, statusSegment{st.StatusOffline.Render("Ollama offline"), prioOllama})
	}
	if s.context > 0 {
		left = append(left, statusSegment{contextUse(st, s.context, s.window), prioContext})
	}
	if s.memory.known {
		left = append(left, statusSegment{embedLabel(st, s.memory), prioEmbed})
		notes := noteCount(s.memory.notes)
		if s.memory.review > 0 {
			notes += fmt.Sprintf(" · %d to review", s.memory.review)
		}
		left = append(left, statusSegment{st.StatusSeparator.Render(notes), prioNotes})
	}
	if s.activity != "" {
		right = append(right, statusSegment{s.spinner + " " + st.StatusConnecting.Render(s.activity), prioActivity})
	}
	if s.pull != "" {
		right = append(right, statusSegment{st.StatusConnecting.Render(oneLine(s.pull)), prioPull})
	}
	if m := s.memory; m.reindexTotal > 0 {
		text := fmt.Sprintf("rebuilding the search index: %s / %s turns", text.Thousands(m.reindexed), text.Thousands(m.reindexTotal))
		right = append(right, statusSegment{st.StatusConnecting.Render(text), prioReindex})
	}
	if s.sync != "" {
		right = append(right, statusSegment{renderSync(st, s.sync), prioSync})
	}
	return left, right
}

// embedLabel is the embedding state: ready, N pending, keyword-only, paused.
func embedLabel(st *Styles, m memoryInfo) string {
	switch m.embed {
	case embedPending:
		return st.StatusConnecting.Render(fmt.Sprintf("embedding %d pending", m.pending))
	case embedKeywordOnly:
		return st.StatusSeparator.Render("keyword-only")
	case embedPaused:
		return st.StatusConnecting.Render("embedding paused")
	}
	return st.StatusReady.Render("embeddings ready")
}

func noteCount(n int) string {
	switch n {
	case 0:
		return "no notes"
	case 1:
		return "1 note"
	}
	return fmt.Sprintf("%d notes", n)
}

func joinSegments(segs []statusSegment, sep string) string {
	parts := make([]string, len(segs))
	for i, s := range segs {
		parts[i] = s.text
	}
	return strings.Join(parts, sep)
}

// dropLowest removes the least important segment of either side below
// prio; it reports false when there is none.
func dropLowest(left, right *[]statusSegment, prio int) bool {
	side, at := (*[]statusSegment)(nil), -1
	for _, sd := range []*[]statusSegment{left, right} {
		for i, s := range *sd {
			if s.prio < prio {
				side, at, prio = sd, i, s.prio
			}
		}
	}
	if side == nil {
		return false
	}
	*side = append((*side)[:at:at], (*side)[at+1:]...)
	return true
}

// spread puts right flush right of left in width columns.
func spread(left, right string, width int) string {
	if right == "" {
		return ansi.Truncate(left, width, "…")
	}
	gap := max(1, width-lipgloss.Width(left)-lipgloss.Width(right))
	return ansi.Truncate(left+strings.Repeat(" ", gap)+right, width, "…")
}
