package tui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tui/choice"
	"github.com/mneme-dev/mneme/tui/panel"
)

// Compaction, titles and switching conversations in the chat screen.

// Compactor forces compaction of a conversation. A Runner may implement it
// to enable /compact.
type Compactor interface {
	Compact(ctx context.Context, userID, conversationID string, emit func(agent.Event)) (agent.Result, error)
}

// Titler lets the model title a conversation from its first exchange. A
// Runner may implement it; it is asked after every run (a no-op once done).
type Titler interface {
	Retitle(ctx context.Context, userID, conversationID string) (bool, error)
}

// FindFunc ranks a user's conversations by how well they match a
// description (see index.Index.FindConversations).
type FindFunc func(ctx context.Context, userID, description string) ([]index.ConversationMatch, error)

// summaryLister is the part of a Store that lists a conversation's
// summaries, to mark compactions in a loaded conversation.
type summaryLister interface {
	Summaries(ctx context.Context, userID, conversationID string) ([]memory.Summary, error)
}

// compactRunner runs a forced compaction as a run, so that its events
// take the same path as an answer's.
type compactRunner struct{ c Compactor }

func (r compactRunner) Run(ctx context.Context, req agent.Request, emit func(agent.Event)) (agent.Result, error) {
	return r.c.Compact(ctx, req.UserID, req.ConversationID, emit)
}

// startJob starts runner on a request of the current conversation; its
// events are handled like those of an answer.
func (m *Model) startJob(runner Runner, convID, prompt string) tea.Cmd {
	m.lastRun++
	ctx, cancel := context.WithCancel(m.life.ctx)
	events := make(chan agent.Event, eventBuffer)
	m.run = &activeRun{id: m.lastRun, cancel: cancel, events: events, prompt: prompt, quietSince: m.now()}
	m.setPhase(phaseRunning)
	job := runJob{
		ctx:    ctx,
		runner: runner,
		req:    agent.Request{UserID: m.userID, ConversationID: convID, Prompt: prompt},
		events: events,
	}
	if prompt != "" { // a prompt, not a compaction: tell it of the documents just attached
		job.req.Attached, job.req.AttachedDocs = m.attached, m.attachedDocs
		m.run.attached, m.run.attachedDocs, m.attached, m.attachedDocs = m.attached, m.attachedDocs, nil, nil
	}
	return tea.Batch(
		startRunCmd(m.life.ctx, &m.life.runs, job, m.log),
		waitForEvents(m.run.id, events),
		m.startSpinner(),
	)
}

// applyCompactionEvent follows compaction in a run's events (the
// "compacting" activity, the mark in the transcript) and notes the context
// use the run ends with.
func (m *Model) applyCompactionEvent(ev agent.Event) {
	switch ev := ev.(type) {
	case agent.CompactingEvent:
		m.compacting = true
	case agent.CompactedEvent:
		m.compacting = false
		m.transcript.EndLive(false)
		m.transcript.AddCompaction(memory.Summary{Text: ev.Summary, FirstSeq: ev.FirstSeq, LastSeq: ev.LastSeq, AtSeq: ev.AtSeq})
	case agent.DoneEvent:
		m.compacting = false
		m.noteContext(ev.Result)
	case agent.ErrorEvent:
		m.compacting = false
		m.noteContext(ev.Result)
	default:
		m.compacting = false
	}
}

// noteContext keeps the share of the context window the last request and
// its answer filled, and the window.
func (m *Model) noteContext(res agent.Result) {
	if res.ContextWindow > 0 && res.ContextTokens > 0 {
		m.contextPct = min(100, (res.ContextTokens*100+res.ContextWindow-1)/res.ContextWindow)
		m.contextWindow = res.ContextWindow
	}
}

// titleAfterRun lets the model title the conversation (when the runner
// can) and reads the title back, with the conversation as stored (for
// reconcileAfterRun).
func (m *Model) titleAfterRun() tea.Cmd {
	if m.convID == "" {
		return titleCmd(m.life.ctx, m.store, m.userID, m.convID)
	}
	t, titler := m.runner.(Titler)
	ctx, store, user, id, log := m.life.ctx, m.store, m.userID, m.convID, m.log
	return func() tea.Msg {
		if titler {
			if _, err := t.Retitle(ctx, user, id); err != nil {
				log.Warn("title", "conversation", id, "err", err)
			}
		}
		conv, err := store.Conversation(ctx, user, id)
		if err != nil {
			return titleMsg{conv: conv, err: err}
		}
		msgs, err := store.Messages(ctx, user, id)
		if err != nil {
			return titleMsg{conv: conv} // the title still counts
		}
		return titleMsg{conv: conv, msgs: msgs, sums: loadSummaries(ctx, store, user, id)}
	}
}

// findMsg carries the conversations that match a /switch description.
type findMsg struct {
	description string
	matches     []index.ConversationMatch
	err         error
}

// findTimeout bounds a /switch search.
const findTimeout = 30 * time.Second

func findCmd(ctx context.Context, find FindFunc, userID, description string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, findTimeout)
		defer cancel()
		matches, err := find(ctx, userID, description)
		return findMsg{description: description, matches: matches, err: err}
	}
}

// handleFind switches to a clear winner, or offers the close matches.
func (m *Model) handleFind(msg findMsg) tea.Cmd {
	m.hint = ""
	if msg.err != nil {
		m.log.Warn("switch: find failed", "err", msg.err)
		m.hint = "Could not search the conversations: " + msg.err.Error()
		return nil
	}
	winner, choices := index.Decide(msg.matches)
	switch {
	case len(choices) == 0:
		m.hint = "No conversation matches “" + sanitize.Line(msg.description) + "”."
		m.retype("/switch " + msg.description)
		return nil
	case winner != nil:
		return m.switchTo(*winner)
	}
	m.choice = choice.New(choices)
	return nil
}

// switchTo opens another conversation in place of the current one.
func (m *Model) switchTo(c index.ConversationMatch) tea.Cmd {
	m.choice = nil
	if why := m.commandBusy(); why != "" {
		m.hint = why
		return nil
	}
	if c.ID == m.convID {
		m.hint = "Already in “" + sanitize.Line(panel.DisplayTitle(c.Title)) + "”."
		return nil
	}
	cmd := m.openConversation(c.ID, c.Title, 0)
	m.hint = "Switched to “" + sanitize.Line(panel.DisplayTitle(c.Title)) + "”."
	return cmd
}

// choiceKey handles a key while /switch's choice list is open; handled
// is false for keys it leaves to the chat (typing, scrolling, quitting).
func (m *Model) choiceKey(msg tea.KeyPressMsg) (cmd tea.Cmd, handled bool) {
	chosen, closed, handled := m.choice.Key(msg)
	switch {
	case chosen != nil:
		return m.switchTo(*chosen), true
	case closed:
		m.choice = nil
	}
	return nil, handled
}

// choiceView draws the choice list.
func (m Model) choiceView() string {
	if m.choice == nil || m.width <= 0 {
		return ""
	}
	return m.choice.View(m.st, m.mainWidth(), m.now())
}

// loadSummaries reads the conversation's summaries when the store can.
func loadSummaries(ctx context.Context, store Store, userID, conversationID string) []memory.Summary {
	sl, ok := store.(summaryLister)
	if !ok {
		return nil
	}
	sums, err := sl.Summaries(ctx, userID, conversationID)
	if err != nil {
		return nil // the transcript is still right without its marks
	}
	return sums
}
