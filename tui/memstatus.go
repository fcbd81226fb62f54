package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/tui/statusline"
)

// The memory part of the status line (embeddings and notes) is read in a
// command at once after anything that changes it, and in the background
// every few seconds while embeddings are pending, every minute otherwise
// (poll.go).

// memoryStatusTimeout bounds one reading.
const memoryStatusTimeout = 10 * time.Second

type (
	// memoryStatusMsg carries a reading of the memory state; periodic
	// readings schedule the next one.
	memoryStatusMsg struct {
		status   MemoryStatus
		err      error
		periodic bool
	}
	// memoryTickMsg asks for the next periodic reading.
	memoryTickMsg struct{ gen int }
)

// memoryStatusNow reads the memory state now (after a change).
func (m *Model) memoryStatusNow() tea.Cmd { return m.memoryStatusCmd(false) }

// pollMemoryStatus is the periodic reading, unless the tick is stale.
func (m *Model) pollMemoryStatus(msg memoryTickMsg) tea.Cmd {
	if !m.memPoll.Fired(msg.gen) {
		return nil
	}
	return m.memoryStatusCmd(true)
}

func (m Model) memoryStatusCmd(periodic bool) tea.Cmd {
	fn := m.cfg.MemoryStatus
	if fn == nil {
		return nil
	}
	ctx, user := m.life.ctx, m.userID
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, memoryStatusTimeout)
		defer cancel()
		st, err := fn(ctx, user)
		return memoryStatusMsg{status: st, err: err, periodic: periodic}
	}
}

func (m *Model) handleMemoryStatus(msg memoryStatusMsg) tea.Cmd {
	every := statusline.MemoryPollIdle
	if msg.err != nil {
		m.log.Debug("memory status", "err", msg.err)
	} else {
		m.memStat = statusline.MemoryOf(msg.status)
		if m.memStat.Embed == statusline.EmbedPending || m.memStat.Embed == statusline.EmbedPaused || m.memStat.ReindexTotal > 0 {
			every = statusline.MemoryPollBusy
		}
	}
	if !msg.periodic && !m.memPoll.Hurry(every) {
		return nil
	}
	return m.memPoll.Arm(m.tick, every, func(gen int) tea.Msg { return memoryTickMsg{gen} })
}

// noteWritten marks a note the model saved or changed in the current
// answer, for the memory browser to highlight.
func (m *Model) noteWritten(act agent.ToolActivity) {
	ids := act.WrittenNotes()
	for _, id := range ids {
		m.fresh[id] = true
	}
	if len(ids) > 0 {
		m.memory.SetFresh(m.fresh)
	}
}
