package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"github.com/mneme-dev/mneme/internal/sanitize"
)

// submit sends the input, after probing Ollama again if it was not ready.
func (m *Model) submit() tea.Cmd {
	text := m.input.Value()
	if cmd, ok := m.runSlash(text); ok {
		return cmd
	}
	// runSlash turns "//x" into "/x". What is stored and sent is what the
	// user sees: a terminal without bracketed paste types a paste's hidden
	// characters in as keys.
	text = sanitize.Text(m.input.Value())
	switch {
	case strings.TrimSpace(text) == "": // nothing visible: a zero-width space alone
		return nil
	case m.loading:
		m.hint = hintLoading
		return nil
	case m.attaching > 0: // sent now, it would go without the file, which the next prompt would get
		m.hint = "A file is being attached: send once its 📎 receipt shows."
		return nil
	case m.phase != phaseIdle && m.run != nil && !m.run.cancelled:
		// Out of the input, sent when this answer ends; a second joins the
		// first, as one message (what is typed next is a new draft).
		if m.queued != "" {
			text = m.queued + "\n\n" + text
		}
		m.queued = text
		m.input.Reset()
		m.hint = hintQueued
		return nil
	case m.phase != phaseIdle:
		m.hint = hintBusy
		return nil
	}
	m.pending = text
	if m.ready() {
		return m.send()
	}
	m.setPhase(phaseProbing)
	if m.probing {
		return m.startSpinner() // the probe in flight will answer
	}
	m.probing = true
	return tea.Batch(probeCmd(m.life.ctx, m.probeFn), m.startSpinner())
}

func (m *Model) ready() bool { return m.probe.Ready() && m.runner != nil }

// send creates the conversation if there is none yet, then runs the prompt.
func (m *Model) send() tea.Cmd {
	if m.convID == "" {
		m.setPhase(phaseCreating)
		return tea.Batch(createConversationCmd(m.life.ctx, m.store, m.userID, m.pending), m.startSpinner())
	}
	return m.startRun()
}

// startRun shows the prompt, clears the input and starts the run.
func (m *Model) startRun() tea.Cmd {
	// What this screen writes now follows; an answer of another mneme's
	// still being written is redrawn after this one (reconcileAfterRun).
	o := m.others
	m.others = othersTail{stale: o.active && o.live && o.moving}
	if o.active && o.live {
		m.others.last = o.last // what a half-written answer looked like: reconcileAfterRun compares
	}
	prompt, queued := m.pending, m.pendingQueued
	m.pending, m.pendingQueued = "", false
	// What was typed after Enter while the conversation was being created
	// stays, as the next draft; the prompt sent leaves the input (a queued
	// one left it already: the input is a draft of its own).
	if rest, ok := strings.CutPrefix(m.input.Value(), prompt); ok && prompt != "" && !queued {
		m.input.Reset()
		m.input.Paste(rest)
	}
	m.transcript.AddUser(prompt)
	m.transcript.Refresh(m.now(), true)
	m.fresh = map[string]bool{} // notes written in this answer are marked anew
	return m.startJob(m.runner, m.convID, prompt)
}

func (m *Model) setPhase(p phase) {
	m.phase = p
	m.keys.Cancel.SetEnabled(p != phaseIdle)
}
