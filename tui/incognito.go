package tui

import (
	"context"

	tea "charm.land/bubbletea/v2"
)

// Incognito chats: the chat started incognito (Config.Incognito), or a
// normal chat that /incognito switched to a throwaway store
// (Config.StartIncognito) until /new or opening a conversation.

// IncognitoChat is a throwaway store and the runners over it.
type IncognitoChat struct {
	Store     Store
	NewRunner func(model string) Runner
	// Close closes the store and removes it with everything in it; it may
	// be called more than once.
	Close func()
}

// incognitoStartedMsg brings the throwaway chat /incognito asked for.
type incognitoStartedMsg struct {
	chat IncognitoChat
	err  error
}

// incognitoState is the incognito chat /incognito started and the normal
// store and runners to return to.
type incognitoState struct {
	chat      *IncognitoChat // nil: not switched by /incognito
	store     Store
	newRunner func(model string) Runner
}

// incognito reports whether the chat on screen keeps nothing.
func (m *Model) incognito() bool { return m.cfg.Incognito || m.incog.chat != nil }

// unavailable says that what ("Attaching documents") cannot be done here,
// and, in incognito, why. The command leaves the input: typed again, it
// could not do more.
func (m *Model) unavailable(what string) {
	m.input.Reset()
	m.sayUnavailable(what)
}

// sayUnavailable is unavailable's hint alone, for what a key opens too
// (ctrl+o leaves the input as it is).
func (m *Model) sayUnavailable(what string) {
	m.hint = what + " is not available here."
	if m.incognito() {
		m.hint = what + " is off in incognito, which keeps nothing."
	}
}

func (m *Model) slashIncognito(string) tea.Cmd {
	switch {
	case m.incognito():
		m.hint = "This chat is incognito already."
		return nil
	case m.cfg.StartIncognito == nil:
		m.hint = "Incognito is not available here."
		return nil
	}
	if why := m.commandBusy(); why != "" {
		m.hint = why
		return nil
	}
	m.input.Reset()
	start, ctx := m.cfg.StartIncognito, m.life.ctx
	return func() tea.Msg {
		c, err := start(ctx)
		return incognitoStartedMsg{chat: c, err: err}
	}
}

// enterIncognito shows a new, empty incognito conversation.
func (m *Model) enterIncognito(msg incognitoStartedMsg) tea.Cmd {
	if msg.err != nil {
		m.hint = "Cannot start an incognito chat: " + msg.err.Error()
		return nil
	}
	if m.incognito() || m.commandBusy() != "" {
		return closeIncognitoCmd(msg.chat) // something else started meanwhile
	}
	m.stash()
	m.incog = incognitoState{chat: &msg.chat, store: m.store, newRunner: m.newRunner}
	m.store, m.newRunner = msg.chat.Store, msg.chat.NewRunner
	m.rebuildRunner()
	m.clearConversation()
	m.hint = "Incognito chat: /new or opening a conversation leaves it, and forgets it."
	return nil
}

// leaveIncognito returns from /incognito to the normal store, forgetting
// the incognito conversation (also on screen); nil when not switched.
func (m *Model) leaveIncognito() tea.Cmd {
	if m.incog.chat == nil {
		return nil
	}
	chat := *m.incog.chat
	m.store, m.newRunner = m.incog.store, m.incog.newRunner
	m.incog = incognitoState{}
	m.rebuildRunner()
	m.clearConversation() // not stashed: nothing of it is kept
	return closeIncognitoCmd(chat)
}

// rebuildRunner makes the runner for the model in use from newRunner.
func (m *Model) rebuildRunner() {
	m.runner = nil
	if m.newRunner != nil && m.runnerModel != "" {
		m.runner = m.newRunner(m.runnerModel)
	}
}

func closeIncognitoCmd(c IncognitoChat) tea.Cmd {
	if c.Close == nil {
		return nil
	}
	return func() tea.Msg {
		c.Close()
		return nil
	}
}

// startIncognitoFunc is Config.StartIncognito.
type startIncognitoFunc = func(ctx context.Context) (IncognitoChat, error)
