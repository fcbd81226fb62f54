package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/tui/undo"
)

// touchNotes records the changes this chat just made to notes ids for
// ctrl+z (undo.Record: group, mark).
func (m *Model) touchNotes(group, mark string, ids ...string) tea.Cmd {
	if m.cfg.Notes == nil {
		return nil
	}
	return undo.Record(m.life.ctx, m.cfg.Notes, m.cfg.UserID, group, mark, ids...)
}

// slashUndo undoes the last change to a note this chat learnt or the model
// changed in it (its receipt says ctrl+z), newest first, through the
// store's history. It never reaches notes this chat did not touch: older
// changes are for `mneme memory undo` or the memory browser.
func (m *Model) slashUndo(string) tea.Cmd {
	m.input.Reset()
	return m.undoLast()
}

// undoLast is /undo and ctrl+z (which leaves the input as it is).
func (m *Model) undoLast() tea.Cmd {
	switch {
	case m.cfg.Notes == nil:
		m.hint = "Notes are not available here."
	case m.undo.Len() == 0:
		m.hint = "Nothing learnt or changed in this chat to undo (older changes: the memory browser, or mneme memory undo)."
	default:
		return m.undo.Next(m.life.ctx, m.cfg.Notes, m.cfg.UserID)
	}
	return nil
}

func (m *Model) handleUndone(msg undo.DoneMsg) tea.Cmd {
	if id := msg.Learnt(); len(m.learntReceipts[id]) > 0 { // its receipt no longer offers ctrl+z
		rs := m.learntReceipts[id]
		r := rs[len(rs)-1]
		m.learntReceipts[id] = rs[:len(rs)-1]
		if m.transcript.ReplaceNotice(r[0], r[1]) {
			m.transcript.Refresh(m.now(), false)
		}
		for i, t := range m.receipts {
			if t == r[0] {
				m.receipts[i] = r[1]
			}
		}
	}
	hint, next := m.undo.Done(m.life.ctx, m.cfg.Notes, m.cfg.UserID, msg)
	if next != nil {
		return next
	}
	m.hint = hint
	return m.memoryStatusNow()
}
