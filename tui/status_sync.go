package tui

import (
	tea "charm.land/bubbletea/v2"
)

// syncTickMsg redraws the status line with the current sync state.
type syncTickMsg struct{ gen int }

// pollSync schedules the next reading of the sync state: soon while sync
// has something under way, slowly once synced (poll.go). Readings after
// events (nil msg) only hurry the chain along.
func (m *Model) pollSync(msg *syncTickMsg) tea.Cmd {
	if m.syncStatus == nil || (msg != nil && !m.syncPoll.fired(msg.gen)) {
		return nil
	}
	every := syncPollBusy
	if m.syncStatus() == "synced" {
		every = syncPollIdle
	}
	if msg == nil && !m.syncPoll.hurry(every) && m.syncPoll.armed {
		return nil
	}
	return m.syncPoll.arm(m.tick, every, func(gen int) tea.Msg { return syncTickMsg{gen} })
}
