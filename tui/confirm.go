package tui

import (
	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/tui/confirm"
)

// handleConfirm shows the question above the input until y or n answers it.
func (m *Model) handleConfirm(msg confirm.Msg) tea.Cmd {
	if m.confirm != nil { // one at a time: the calls of a reply run in turn
		m.answerConfirm(false)
	}
	req := msg.Req
	req.Question = sanitize.Line(req.Question)
	m.confirm = &req
	return confirm.Wait(m.life.ctx, m.cfg.Confirms)
}

// confirmLine is the question waiting for y or n ("" when none is).
func (m Model) confirmLine() string {
	if m.confirm == nil {
		return ""
	}
	if !m.bareYesNo() {
		return m.confirm.Question + " Allow? alt+y yes · alt+n no"
	}
	return m.confirm.Question + " Allow? y yes · n no"
}

// bareYesNo reports whether a plain y or n answers the question: only
// while nothing is being typed, in the input or in a panel, so that the y
// of "my cat…", typed as the question comes, is not taken for a yes.
func (m Model) bareYesNo() bool { return m.input.Value() == "" && m.top() == nil }

// confirmKey answers the waiting question with y or n (alt+y, alt+n at
// any time); other keys go on.
func (m *Model) confirmKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if m.confirm == nil {
		return nil, false
	}
	bare := m.bareYesNo()
	switch k := msg.String(); {
	case k == "alt+y" || bare && (k == "y" || k == "Y"):
		return m.answerConfirm(true), true
	case k == "alt+n" || bare && (k == "n" || k == "N"):
		return m.answerConfirm(false), true
	}
	return nil, false
}

// answerConfirm answers the waiting question.
func (m *Model) answerConfirm(yes bool) tea.Cmd {
	req := *m.confirm
	m.confirm = nil
	m.layout()
	return confirm.Answer(req, yes)
}
