// Package statusline draws the chat's status line: the model, Ollama's
// state, the context use, the memory state and the conversation title on
// the left; what is being waited for, a model download and the sync state
// on the right, in exactly one row.
package statusline

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/tui/styles"
)

// OllamaState is what the status line says about Ollama.
type OllamaState int

const (
	OllamaConnecting OllamaState = iota
	OllamaReady
	OllamaOffline
)

// Info is everything the status line shows.
type Info struct {
	Model string // "" when there is none
	// ModelMissing: Model is chosen but not installed in Ollama.
	ModelMissing bool
	Ollama       OllamaState
	Version      string
	Title        string // "" for a conversation not yet started
	// Activity is what is being waited for ("generating"), shown with the
	// spinner's current frame; "" when idle.
	Activity string
	Spinner  string
	// Sync is how sync is doing ("" when sync is off).
	Sync string
	// Context is the share (%) of the model's context window the last
	// request and its answer filled; 0 when not known yet.
	Context int
	// Window is the context window in tokens (0: not known yet).
	Window int
	// Memory is the state of search and the notes (Known is false until
	// the first report, or when the chat has no memory).
	Memory Memory
	// Pull is a model download in progress ("" when none).
	Pull string
	// Incognito: nothing of the chat is kept (always shown).
	Incognito bool
}

// Memory is what the status line says about memory.
type Memory struct {
	Known   bool
	Embed   EmbedState
	Pending int // turns and notes waiting for embeddings
	Notes   int
	Review  int // learnt notes waiting for the user's review
	// Reindexed of ReindexTotal turns are back in the keyword index
	// (ReindexTotal is 0 unless it is being rebuilt).
	Reindexed, ReindexTotal int
}

// EmbedState is how search by meaning is doing.
type EmbedState int

const (
	EmbedReady       EmbedState = iota // every turn is embedded
	EmbedPending                       // embedding is catching up
	EmbedKeywordOnly                   // no embedding model: search by words only
	EmbedPaused                        // embedding fails (Ollama down); retried later
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

// Render draws the status line in exactly one row of width columns:
// on the left the model, Ollama's state, the context use, the memory state
// (embeddings and notes) and the conversation title; on the right what is
// being waited for, a model download and the sync state. Segments are
// dropped, least important first, when they do not fit.
func Render(st *styles.Styles, width int, s Info) string {
	if width <= 0 {
		return ""
	}
	left, right := statusSegments(st, s)
	title := "new conversation"
	if s.Title != "" {
		title = s.Title
	}
	title = sanitize.Line(title)
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
func statusSegments(st *styles.Styles, s Info) (left, right []statusSegment) {
	model := "no model"
	if s.Model != "" {
		model = sanitize.Line(s.Model)
	}
	if s.Incognito {
		left = append(left, statusSegment{st.StatusOffline.Render("incognito"), prioIncognito})
	}
	if s.ModelMissing {
		left = append(left, statusSegment{st.StatusOffline.Render(model + " not installed"), prioModel})
	} else {
		left = append(left, statusSegment{st.StatusModel.Render(model), prioModel})
	}
	switch s.Ollama {
	case OllamaConnecting:
		left = append(left, statusSegment{st.StatusConnecting.Render("Ollama connecting…"), prioOllama})
	case OllamaReady:
		v := "Ollama ready"
		if s.Version != "" {
			v += " v" + sanitize.Line(s.Version)
		}
		left = append(left, statusSegment{st.StatusReady.Render(v), prioOllama})
	case OllamaOffline:
		left = append(left, statusSegment{st.StatusOffline.Render("Ollama offline"), prioOllama})
	}
	if s.Context > 0 {
		left = append(left, statusSegment{contextUse(st, s.Context, s.Window), prioContext})
	}
	if s.Memory.Known {
		label := embedLabel(st, s.Memory)
		if s.Ollama == OllamaOffline { // a query cannot be embedded: search is by keyword until it is back
			label = st.StatusSeparator.Render("keyword-only")
		}
		left = append(left, statusSegment{label, prioEmbed})
		notes := noteCount(s.Memory.Notes)
		if s.Memory.Review > 0 {
			notes += fmt.Sprintf(" · %d to review", s.Memory.Review)
		}
		left = append(left, statusSegment{st.StatusSeparator.Render(notes), prioNotes})
	}
	if s.Activity != "" {
		right = append(right, statusSegment{s.Spinner + " " + st.StatusConnecting.Render(s.Activity), prioActivity})
	}
	if s.Pull != "" {
		right = append(right, statusSegment{st.StatusConnecting.Render(sanitize.Line(s.Pull)), prioPull})
	}
	if m := s.Memory; m.ReindexTotal > 0 {
		text := fmt.Sprintf("rebuilding the search index: %s / %s turns", text.Thousands(m.Reindexed), text.Thousands(m.ReindexTotal))
		right = append(right, statusSegment{st.StatusConnecting.Render(text), prioReindex})
	}
	if s.Sync != "" {
		right = append(right, statusSegment{renderSync(st, s.Sync), prioSync})
	}
	return left, right
}

// embedLabel is the embedding state: ready, N pending, keyword-only, paused.
func embedLabel(st *styles.Styles, m Memory) string {
	switch m.Embed {
	case EmbedPending:
		return st.StatusConnecting.Render(fmt.Sprintf("embedding %d pending", m.Pending))
	case EmbedKeywordOnly:
		return st.StatusSeparator.Render("keyword-only")
	case EmbedPaused:
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

// renderSync draws the sync state: green when synced, amber while pending,
// syncing or offline, red on an error.
func renderSync(st *styles.Styles, label string) string {
	text := "sync " + sanitize.Line(label)
	switch {
	case label == "synced":
		return st.StatusReady.Render(text)
	case strings.HasPrefix(label, "error"):
		return st.StatusOffline.Render(text)
	default:
		return st.StatusConnecting.Render(text)
	}
}

// tokenCount renders a context size: 8192 as "8k", 1536 as "1.5k", 512 as "512".
func tokenCount(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n%1024 == 0:
		return fmt.Sprintf("%dk", n/1024)
	default:
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1024), ".0") + "k"
	}
}

// contextWarnAt is the context use from which the status line warns.
const contextWarnAt = 75

// contextUse renders the context use for the status line, "ctx 43%", or
// with the window known "ctx 43% of 8k".
func contextUse(st *styles.Styles, pct, window int) string {
	s := fmt.Sprintf("ctx %d%%", pct)
	if window > 0 {
		s += " of " + tokenCount(window)
	}
	if pct >= contextWarnAt {
		return st.StatusConnecting.Render(s)
	}
	return st.StatusSeparator.Render(s)
}

// MemoryStatus is the state of search and the notes.
type MemoryStatus struct {
	// EmbedModel is the embedding model in use ("": search is keyword-only).
	EmbedModel string
	// Pending counts turns waiting to be embedded.
	Pending int
	// EmbedError says why embedding is paused ("" when it works).
	EmbedError string
	// Notes counts the user's notes in use; Review those learnt and
	// waiting for the user's review (memory_review = "inbox").
	Notes, Review int
	// Reindexed and ReindexTotal say how far a long rebuild of the keyword
	// index has come, in turns (ReindexTotal is 0 when none is running).
	Reindexed, ReindexTotal int
}

// MemoryOf is what the status line says about a memory state.
func MemoryOf(s MemoryStatus) Memory {
	info := Memory{Known: true, Notes: s.Notes, Review: s.Review, Pending: s.Pending, Reindexed: s.Reindexed, ReindexTotal: s.ReindexTotal}
	switch {
	case s.EmbedModel == "":
		info.Embed = EmbedKeywordOnly
	case s.EmbedError != "":
		info.Embed = EmbedPaused
	case s.Pending > 0:
		info.Embed = EmbedPending
	default:
		info.Embed = EmbedReady
	}
	return info
}
