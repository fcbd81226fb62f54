package tui

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/memory"
)

// runID tells runs apart, so that a late message of a finished run is
// never taken for one of the current run.
type runID int

// Messages produced by the commands in cmds.go.
type (
	// probeMsg carries the result of a Probe.
	probeMsg struct{ probe Probe }

	// highlightDoneMsg ends the highlight of a jumped-to turn.
	highlightDoneMsg struct{}

	// historyMsg carries a resumed conversation and its messages.
	historyMsg struct {
		want string // the id (or prefix) asked for
		conv memory.Conversation
		msgs []memory.Message
		sums []memory.Summary // where the history was compacted
		err  error
		// answering: another mneme answers in it now (Config.Answering).
		answering bool
	}

	// conversationMsg carries a conversation created for the first send.
	conversationMsg struct {
		conv   memory.Conversation
		prompt string
		err    error
	}

	// titleMsg carries the conversation as stored after a run, for its
	// title, with its messages (nil if unread).
	titleMsg struct {
		conv memory.Conversation
		msgs []memory.Message
		sums []memory.Summary
		err  error
	}

	// runEventsMsg carries the agent events that were waiting, in order.
	// closed is set when the run's channel was closed after them.
	runEventsMsg struct {
		id     runID
		events []agent.Event
		closed bool
	}

	// spinMsg advances the spinner one frame.
	spinMsg struct{}

	// storeChangedMsg says the store changed, possibly in another process.
	storeChangedMsg struct{}

	// othersTickMsg reads the open conversation again while an answer
	// another mneme writes is drawn as being written.
	othersTickMsg struct{}

	// othersAddedMsg carries the open conversation as stored, when it has
	// more messages than the transcript shows: another mneme added them.
	othersAddedMsg struct {
		conv memory.Conversation
		msgs []memory.Message
		// answering: another mneme holds the conversation's turn lock
		// (Config.Answering), read with msgs; unknown when lockKnown is false.
		answering, lockKnown bool
	}

	// othersDeletedMsg says the open conversation was deleted elsewhere.
	othersDeletedMsg struct{ id string }

	// learntMsg carries a note change learnt from a turn.
	learntMsg struct{ learnt Learnt }
)

// waitForLearnt waits for the next receipt of background learning; Update
// re-issues it after each.
func waitForLearnt(ctx context.Context, ch <-chan Learnt) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		select {
		case l := <-ch:
			return learntMsg{l}
		case <-ctx.Done():
			return nil
		}
	}
}

// handleLearnt shows a receipt under the answer of its conversation; one
// that comes while an answer streams waits for its end.
func (m *Model) handleLearnt(msg learntMsg) tea.Cmd {
	if msg.learnt.ConversationID == m.convID {
		m.receipts = append(m.receipts, msg.learnt.Text)
		m.showReceipts()
	}
	if msg.learnt.NoteID != "" && msg.learnt.Undone != "" {
		id := msg.learnt.NoteID // ctrl+z takes a note's changes back newest first
		m.learntReceipts[id] = append(m.learntReceipts[id], [2]string{msg.learnt.Text, msg.learnt.Undone})
	}
	group := fmt.Sprintf("learnt %s#%d", msg.learnt.ConversationID, msg.learnt.Turn) // what one turn taught
	return tea.Batch(m.touchNotes(group, "", msg.learnt.NoteID), m.memoryStatusNow(), waitForLearnt(m.life.ctx, m.cfg.Learnt))
}

// showReceipts adds the waiting receipts to the transcript unless a run is on.
func (m *Model) showReceipts() {
	if m.run != nil || len(m.receipts) == 0 {
		return
	}
	for _, r := range m.receipts {
		m.transcript.AddNotice(r)
	}
	m.receipts = nil
	m.transcript.Refresh(m.now(), false)
}

// waitForChanges waits for the next change of the store; Update re-issues
// it after each.
func waitForChanges(ctx context.Context, ch <-chan struct{}) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		select {
		case <-ch:
			return storeChangedMsg{}
		case <-ctx.Done():
			return nil
		}
	}
}

// eventBuffer is how many agent events may wait for the UI before the run
// goroutine blocks.
const eventBuffer = 256

// maxEventBatch bounds the events handled in one Update, so that a fast
// stream is rendered in batches rather than once per token.
const maxEventBatch = 1024

// waitForEvents waits for the next events of a run: it blocks for one,
// then takes whatever else is already waiting. Update re-issues it after
// each batch until the channel is closed.
func waitForEvents(id runID, ch <-chan agent.Event) tea.Cmd {
	return func() tea.Msg {
		ev, ok := <-ch
		if !ok {
			return runEventsMsg{id: id, closed: true}
		}
		msg := runEventsMsg{id: id, events: []agent.Event{ev}}
		for len(msg.events) < maxEventBatch {
			select {
			case ev, ok := <-ch:
				if !ok {
					msg.closed = true
					return msg
				}
				msg.events = append(msg.events, ev)
			default:
				return msg
			}
		}
		return msg
	}
}
