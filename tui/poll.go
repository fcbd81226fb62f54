package tui

import (
	"time"

	tea "charm.land/bubbletea/v2"
)

// A chat left alone should cost nothing: nothing animates, and the
// background readings of the status line (the memory state, the sync
// state) come often only while something is under way (embeddings
// pending, a sync pending) and rarely once all is steady. Events (a run
// ending, the store changing) read them at once.

// Paces of the background readings.
const (
	memoryPollBusy = 3 * time.Second  // embeddings pending or paused
	memoryPollIdle = 60 * time.Second // all steady
	syncPollBusy   = 2 * time.Second  // pending, syncing, offline, failing
	syncPollIdle   = 30 * time.Second // synced
)

// poller is a chain of ticks whose pace can change: arming it again makes
// the ticks of the chain before stale, so that there is only ever one.
type poller struct {
	gen   int
	every time.Duration
	armed bool // a tick of the current chain is on its way
}

// arm schedules the next tick after every; msg wraps its generation.
func (p *poller) arm(tick tickFunc, every time.Duration, msg func(gen int) tea.Msg) tea.Cmd {
	p.gen++
	p.every, p.armed = every, true
	gen := p.gen
	return tick(every, func(time.Time) tea.Msg { return msg(gen) })
}

// fired reports whether a tick of generation gen belongs to the current
// chain (a stale one is dropped); the chain is then no longer armed.
func (p *poller) fired(gen int) bool {
	if gen != p.gen {
		return false
	}
	p.armed = false
	return true
}

// hurry reports whether a reading that wants the pace every should arm
// the chain again now: it is armed at a slower pace.
func (p *poller) hurry(every time.Duration) bool { return p.armed && every < p.every }
