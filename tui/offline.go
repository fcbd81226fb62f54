package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"syscall"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/agent"
)

// Ollama going away: a run that fails because Ollama stopped says so in
// words, the status line shows Ollama offline, and Ollama is probed again
// in the background, less and less often, until it answers.

// Messages shown when Ollama stops in the middle of a run.
const (
	msgStoppedKept    = "Ollama stopped while answering; the partial answer is kept."
	msgStoppedNothing = "Ollama stopped before answering; your message is kept."
)

// Background re-probing while Ollama is unreachable: the first after
// reprobeFirst, then twice as long each time, up to reprobeMax.
const (
	reprobeFirst = time.Second
	reprobeMax   = 10 * time.Second
)

// pingEvery is how often a reachable Ollama is pinged (Config.Ping).
const pingEvery = 10 * time.Second

type (
	// reprobeMsg asks for a background probe.
	reprobeMsg struct{}
	// pingMsg asks for a ping; pingedMsg is its answer.
	pingMsg   struct{}
	pingedMsg struct{ err error }
)

// ollamaStopped reports whether err means the connection to Ollama broke
// while it was answering (the server died or was stopped).
func ollamaStopped(err error) bool {
	return errors.Is(err, agent.ErrStreamBroken) || errors.Is(err, io.EOF) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)
}

// failRun ends the live answer of a run that failed with err, marked
// interrupted, and shows one line saying why. The full error goes to the
// log. It reports whether Ollama went away.
func (m *Model) failRun(err error) (offline bool) {
	kept := m.transcript.EndLive(true)
	switch {
	case ollamaStopped(err):
		m.log.Warn("ollama stopped mid-answer", "err", err)
		if kept {
			m.transcript.AddError(msgStoppedKept)
		} else {
			m.transcript.AddInterrupted()
			m.transcript.AddError(msgStoppedNothing)
		}
		return true
	case errors.Is(err, agent.ErrOllamaUnreachable):
		m.log.Warn("ollama unreachable", "err", err)
		m.transcript.AddError(err.Error())
		return true
	}
	m.log.Warn("run failed", "err", err)
	m.transcript.AddError(err.Error())
	return false
}

// goOffline marks Ollama unreachable after a run broke off: the status line
// says offline, the next send probes first, and handleEvents starts probing
// in the background. No alert is shown: the transcript already says what
// happened.
func (m *Model) goOffline(err error) {
	m.probe.Reachable, m.probe.Err = false, err
	m.reprobeWait = 0
}

// scheduleReprobe arms the next background probe, unless one is armed.
func (m *Model) scheduleReprobe() tea.Cmd {
	if m.reprobeArmed {
		return nil
	}
	m.reprobeWait = min(max(reprobeFirst, 2*m.reprobeWait), reprobeMax)
	m.reprobeArmed = true
	return m.tick(m.reprobeWait, func(time.Time) tea.Msg { return reprobeMsg{} })
}

// handleReprobe probes Ollama in the background, unless it is back or a
// probe is already in flight (its answer schedules the next one).
func (m *Model) handleReprobe() tea.Cmd {
	m.reprobeArmed = false
	if m.probe.Reachable || m.probing {
		return nil
	}
	m.probing, m.quietProbe = true, true
	return probeCmd(m.life.ctx, m.probeFn)
}

// afterProbe keeps probing in the background while Ollama is unreachable,
// and forgets the backoff once it answers.
func (m *Model) afterProbe(p Probe) tea.Cmd {
	m.probed = true
	if p.Reachable {
		m.reprobeWait = 0
		return m.schedulePing()
	}
	return m.scheduleReprobe()
}

// schedulePing arms the next ping of a reachable Ollama, unless one is.
func (m *Model) schedulePing() tea.Cmd {
	if m.cfg.Ping == nil || m.pingArmed {
		return nil
	}
	m.pingArmed = true
	return m.tick(pingEvery, func(time.Time) tea.Msg { return pingMsg{} })
}

// ping asks Ollama whether it is still there, in a command.
func (m *Model) ping() tea.Cmd {
	m.pingArmed = false
	if !m.probe.Reachable {
		return nil // the re-probing takes over
	}
	ctx, ping := m.life.ctx, m.cfg.Ping
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		return pingedMsg{ping(ctx)}
	}
}

// handlePinged goes offline when the ping found Ollama gone, and probes
// in the background until it is back; else it pings again later.
func (m *Model) handlePinged(msg pingedMsg) tea.Cmd {
	// Only nothing answering counts: a server that answers HEAD / with an
	// error (a proxy in front of Ollama) is there.
	gone := agent.IsUnreachable(msg.err)
	if !gone || !m.probe.Reachable || m.life.ctx.Err() != nil {
		return m.schedulePing()
	}
	m.log.Warn("ollama stopped answering", "err", msg.err)
	m.goOffline(fmt.Errorf("%w: it stopped answering (%v)", agent.ErrOllamaUnreachable, msg.err))
	return m.scheduleReprobe()
}
