package tui

import tea "charm.land/bubbletea/v2"

// quit leaves, except that a first Ctrl+C only stops a generation, closes
// the panel or help that is open, or clears a draft (as a shell clears
// its line); a second one then leaves. Run waits for a cancelled run to
// store its partial answer.
func (m *Model) quit() tea.Cmd {
	if !m.quitArmed {
		var cmd tea.Cmd
		switch {
		case m.phase == phaseRunning:
			m.cancel()
			m.hint = hintQuitAgain
		case m.phase != phaseIdle: // a send waiting for Ollama or its conversation: it is not sent
			m.cancel()
			m.hint = hintQuitNotSent
		case m.helpOpen || m.top() != nil: // first out of what is open
			if !m.helpOpen {
				cmd = m.closePanel()
			}
			m.helpOpen, m.hint = false, hintQuitClosed
		case m.focus == focusSidebar || m.choice != nil: // the list (and its question), or /switch's choice
			if m.focus == focusSidebar {
				m.sideOpen, m.focus = false, focusInput
				m.sidebar.Blur()
			}
			m.choice, m.hint = nil, hintQuitClosed
		case m.input.Value() != "": // a draft: cleared, as a shell's line
			m.input.Reset()
			m.hint = hintQuitCleared
		default:
			return m.quitNow()
		}
		m.quitArmed = true
		return cmd
	}
	return m.quitNow()
}

// quitNow leaves.
func (m *Model) quitNow() tea.Cmd {
	if m.run != nil {
		m.run.cancel()
	}
	return tea.Quit
}

// cancel stops the generation, or the send waiting for a probe or for the
// conversation to be created. The prompt stays in the input.
func (m *Model) cancel() {
	switch m.phase {
	case phaseRunning:
		if m.run != nil && !m.run.cancelled {
			m.run.cancel()
			m.run.cancelled = true
			m.hint = hintStopping
		}
	case phaseProbing, phaseCreating:
		m.pending = ""
		m.setPhase(phaseIdle)
	}
}
