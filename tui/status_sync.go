package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// syncTickEvery is how often the status line re-reads the sync state.
const syncTickEvery = 2 * time.Second

// syncTickMsg redraws the status line with the current sync state.
type syncTickMsg struct{}

func syncTickCmd() tea.Cmd {
	return tea.Tick(syncTickEvery, func(time.Time) tea.Msg { return syncTickMsg{} })
}

// renderSync draws the sync state: green when synced, amber while pending,
// syncing or offline, red on an error.
func renderSync(st *Styles, label string) string {
	text := "sync " + oneLine(label)
	switch {
	case label == "synced":
		return st.StatusReady.Render(text)
	case strings.HasPrefix(label, "error"):
		return st.StatusOffline.Render(text)
	default:
		return st.StatusConnecting.Render(text)
	}
}
