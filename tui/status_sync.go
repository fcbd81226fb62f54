package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/tui/statusline"
)

// syncTickMsg redraws the status line with the current sync state.
type syncTickMsg struct{ gen int }

// pollSync schedules the next reading of the sync state: soon while sync
// has something under way, slowly once synced (poll.go). Readings after
// events (nil msg) only hurry the chain along.
func (m *Model) pollSync(msg *syncTickMsg) tea.Cmd {
	if m.syncStatus == nil || (msg != nil && !m.syncPoll.Fired(msg.gen)) {
		return nil
	}
	every := statusline.SyncPollBusy
	if m.syncStatus() == "synced" {
		every = statusline.SyncPollIdle
	}
	if msg == nil && !m.syncPoll.Hurry(every) && m.syncPoll.Armed() {
		return nil
	}
	return m.syncPoll.Arm(m.tick, every, func(gen int) tea.Msg { return syncTickMsg{gen} })
}
