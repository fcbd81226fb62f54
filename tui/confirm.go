package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/internal/sanitize"
)

// ConfirmRequest asks the user whether the model may change or delete a
// note (model_changes = "confirm"). The agent's tool call waits for the
// answer on Reply; the run's context ending (Done) makes the question moot.
type ConfirmRequest struct {
	// Question says what the model wants to do, on one line.
	Question string
	// Reply receives the answer; the asker buffers it (capacity 1).
	Reply chan<- bool
	// Done is closed when the asking run ends.
	Done <-chan struct{}
}

// confirmMsg carries a question from a running tool call.
type confirmMsg struct{ req ConfirmRequest }

// waitForConfirm waits for the next question; Update re-issues it.
func waitForConfirm(ctx context.Context, ch <-chan ConfirmRequest) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		select {
		case r := <-ch:
			return confirmMsg{r}
		case <-ctx.Done():
			return nil
		}
	}
}

// handleConfirm shows the question above the input until y or n answers it.
func (m *Model) handleConfirm(msg confirmMsg) tea.Cmd {
	if m.confirm != nil { // one at a time: the calls of a reply run in turn
		m.answerConfirm(false)
	}
	req := msg.req
	req.Question = sanitize.Line(req.Question)
	m.confirm = &req
	return waitForConfirm(m.life.ctx, m.cfg.Confirms)
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

// answerConfirm sends the answer in a command (the run may have ended).
func (m *Model) answerConfirm(yes bool) tea.Cmd {
	req := *m.confirm
	m.confirm = nil
	m.layout()
	return func() tea.Msg {
		select {
		case req.Reply <- yes:
		case <-req.Done:
		}
		return nil
	}
}
