package statusline

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
	MemoryPollBusy = 3 * time.Second  // embeddings pending or paused
	MemoryPollIdle = 60 * time.Second // all steady
	SyncPollBusy   = 2 * time.Second  // pending, syncing, offline, failing
	SyncPollIdle   = 30 * time.Second // synced
)

// Poller is a chain of ticks whose pace can change: arming it again makes
// the ticks of the chain before stale, so that there is only ever one.
type Poller struct {
	gen   int
	every time.Duration
	armed bool // a tick of the current chain is on its way
}

// Arm schedules the next tick after every with tick (tea.Tick in
// production); msg wraps its generation.
func (p *Poller) Arm(tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd, every time.Duration, msg func(gen int) tea.Msg) tea.Cmd {
	p.gen++
	p.every, p.armed = every, true
	gen := p.gen
	return tick(every, func(time.Time) tea.Msg { return msg(gen) })
}

// Fired reports whether a tick of generation gen belongs to the current
// chain (a stale one is dropped); the chain is then no longer armed.
func (p *Poller) Fired(gen int) bool {
	if gen != p.gen {
		return false
	}
	p.armed = false
	return true
}

// Hurry reports whether a reading that wants the pace every should arm
// the chain again now: it is armed at a slower pace.
func (p *Poller) Hurry(every time.Duration) bool { return p.armed && every < p.every }

// Armed reports whether a tick of the current chain is on its way.
func (p *Poller) Armed() bool { return p.armed }
