package tui

// The end of a run: its events applied, its result shown, a failure worded.

import (
	"errors"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/agent"
)

func (m *Model) handleEvents(msg runEventsMsg) tea.Cmd {
	if m.run == nil || msg.id != m.run.id {
		return nil // a run that already ended
	}
	var touches []tea.Cmd
	for _, ev := range msg.events {
		m.applyEvent(ev)
		if r, ok := ev.(agent.ToolResultEvent); ok {
			touches = append(touches, m.touchNotes("", r.Call.Mark, r.Call.ChangedNotes()...)) // ctrl+z takes them back
		}
	}
	offline := tea.Batch(touches...)
	if m.probed && !m.probe.Reachable {
		offline = tea.Batch(offline, m.scheduleReprobe()) // the run found Ollama gone
	}
	if m.run != nil && msg.closed {
		// The runner returned without a final event.
		m.finishRun(m.run.cancelled, nil)
		if !m.run.cancelled {
			m.hint = hintNoAnswer
		}
	}
	m.transcript.Refresh(m.now(), false)
	if m.run == nil {
		var notes tea.Cmd
		if m.isOpen(m.memory) && len(m.fresh) > 0 {
			m.memory.MemoryBrowser, notes = m.memory.Refresh() // show what the model just wrote
		}
		if m.resend != "" {
			m.pending, m.resend = m.resend, ""
			return tea.Batch(notes, offline, m.sidebar.Reload(), m.send())
		}
		if id := m.orphan; id != "" {
			m.orphan = ""
			return tea.Batch(notes, offline, deleteEmptyConversationCmd(m.life.ctx, m.store, m.cfg.Conversations, m.userID, id, m.log))
		}
		m.others.counting = true // until the title says how many messages are stored
		cmds := []tea.Cmd{m.titleAfterRun(), notes, offline}
		if q := m.queued; q != "" {
			m.queued, m.pending, m.pendingQueued = "", q, true
			cmds = append(cmds, m.send())
		}
		return tea.Batch(cmds...)
	}
	return tea.Batch(waitForEvents(m.run.id, m.run.events), offline)
}

// finishRun ends the current run. A run that failed keeps what it wrote,
// marked interrupted (the agent stores it so).
func (m *Model) finishRun(interrupted bool, err error) {
	gone := errors.Is(err, agent.ErrConversationGone) && m.run.prompt != "" && !m.incognito()
	switch {
	case gone:
		// Deleted in another window before the prompt was stored: nothing
		// was written, so the prompt starts a new conversation instead.
		m.resend = m.run.prompt
		m.cache.forget(m.convID)
		m.clearConversation()
		m.transcript.AddNotice("That conversation was deleted in another mneme; your message starts a new one.")
	case errors.Is(err, agent.ErrNotSent):
		// Stopped while another mneme answered here, or Ollama was not
		// running: nothing was stored. The prompt goes back to the input,
		// and the conversation is redrawn as stored once the run is over
		// (reconcileAfterRun).
		p := m.run.prompt
		if strings.HasPrefix(p, "/") {
			p = "/" + p // a message, not a command
		}
		m.unqueue()
		if draft := m.input.Value(); draft != "" { // queued or typed meanwhile: kept after it
			p += "\n\n" + draft
		}
		m.input.Reset()
		m.input.Paste(p)
		m.hint, m.unsent = hintNotSent, true
		if errors.Is(err, agent.ErrOllamaUnreachable) {
			m.hint = hintNotSentOffline
			m.goOffline(err)
			if m.msgCount == 0 && m.convID != "" { // made for this send: none is left empty
				m.orphan, m.unsent = m.convID, false // nothing to redraw: a new chat again
				m.clearConversation()
			}
		}
	case err != nil:
		if m.failRun(err) {
			m.goOffline(err)
		} else {
			m.noteRunError(err)
		}
	default:
		m.transcript.Answered() // the agent stores an answer, even an empty or interrupted one
		if !m.transcript.EndLive(interrupted) && interrupted {
			m.transcript.AddInterrupted()
		}
		m.transcript.AddSources(m.run.cites)
	}
	if m.hint == hintStopping || m.hint == hintQueued {
		m.hint = "" // said, and over
	}
	if interrupted || err != nil {
		m.unqueue() // stopping means stop: a queued prompt is not sent on its own
		m.attached = slices.Concat(m.run.attached, m.attached)
		m.attachedDocs = slices.Concat(m.run.attachedDocs, m.attachedDocs)
	}
	m.run.cancel()
	m.run = nil
	m.confirm = nil // a question of the run is moot now
	m.setPhase(phaseIdle)
	m.showReceipts()
}

// unqueue puts a queued prompt back in the input, before what is typed
// there: an answer stopped or failed, it is not sent on its own.
func (m *Model) unqueue() {
	if m.queued == "" {
		return
	}
	text := m.queued
	if draft := m.input.Value(); draft != "" {
		text += "\n\n" + draft
	}
	m.queued = ""
	m.input.Reset()
	m.input.Paste(text)
}

// noteRunError makes the next send probe Ollama again when the run failed
// because of Ollama.
func (m *Model) noteRunError(err error) {
	switch {
	case errors.Is(err, agent.ErrOllamaUnreachable):
		m.probe.Reachable, m.probe.Err = false, err
	case errors.Is(err, agent.ErrModelNotFound), errors.Is(err, agent.ErrNoModel):
		m.probe.Err = err
	default:
		return
	}
	m.alert = err.Error()
}
