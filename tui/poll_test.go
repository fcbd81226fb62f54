package tui

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
)

// virtualTimer stands in for tea.Tick: ticks wait on a virtual clock that
// the test moves on, so that minutes of idling take no time.
type virtualTimer struct {
	mu      sync.Mutex
	now     time.Duration
	pending []virtualTick
}

type virtualTick struct {
	at time.Duration
	fn func(time.Time) tea.Msg
}

func (v *virtualTimer) tick(d time.Duration, fn func(time.Time) tea.Msg) tea.Cmd {
	return func() tea.Msg {
		v.mu.Lock()
		defer v.mu.Unlock()
		v.pending = append(v.pending, virtualTick{at: v.now + d, fn: fn})
		return nil
	}
}

// advance moves the clock on by d, delivering the ticks due in order and
// running what they start; it returns how many ticks woke the model.
func (v *virtualTimer) advance(h *harness, d time.Duration) int {
	h.t.Helper()
	end := v.now + d
	woke := 0
	for {
		h.drain()
		v.mu.Lock()
		sort.SliceStable(v.pending, func(i, j int) bool { return v.pending[i].at < v.pending[j].at })
		if len(v.pending) == 0 || v.pending[0].at > end {
			v.now = end
			v.mu.Unlock()
			return woke
		}
		next := v.pending[0]
		v.pending = v.pending[1:]
		v.now = next.at
		v.mu.Unlock()
		woke++
		h.send(next.fn(time.Unix(0, 0).Add(next.at)))
	}
}

// drain runs every queued command (none of them may block).
func (h *harness) drain() {
	h.t.Helper()
	for range maxSteps {
		if len(h.queue) == 0 {
			return
		}
		h.step()
	}
	h.t.Fatalf("commands still queued after %d steps", maxSteps)
}

// TestIdleChatSleeps: a chat left alone, with memory and sync on, wakes
// up rarely (not every few seconds), yet follows embeddings catching up
// and a sync under way within seconds.
func TestIdleChatSleeps(t *testing.T) {
	store := openStore(t)
	var pending atomic.Int32
	var syncLabel atomic.Value
	syncLabel.Store("synced")
	cfg := config(store, newFakeRunner(store, "Hi."), readyProbe)
	cfg.MemoryStatus = func(context.Context, string) (MemoryStatus, error) {
		return MemoryStatus{EmbedModel: "nomic-embed-text", Pending: int(pending.Load()), Notes: 2}, nil
	}
	cfg.SyncStatus = func() string { return syncLabel.Load().(string) }

	v := &virtualTimer{}
	m := New(cfg)
	m.tick = v.tick
	t.Cleanup(m.life.shutdown)
	h := &harness{t: t, m: m}
	h.queue = append(h.queue, m.Init())
	h.send(tea.WindowSizeMsg{Width: 100, Height: 30})

	if woke := v.advance(h, 10*time.Minute); woke > 40 {
		t.Errorf("the idle chat woke up %d times in 10 minutes, want at most 40", woke)
	}
	if !h.shows("embeddings ready", "2 notes", "sync synced") {
		t.Fatalf("status line:\n%s", h.screen())
	}

	// Something happens: the store changed and embeddings are pending, and
	// a sync is under way. The status line follows within seconds, and
	// so does the end of both.
	pending.Store(5)
	syncLabel.Store("pending 1")
	h.send(storeChangedMsg{}) // as the store's change feed reports it
	v.advance(h, time.Second)
	if !h.shows("embedding 5 pending", "sync pending 1") {
		t.Fatalf("the status line does not show the work under way:\n%s", h.screen())
	}
	pending.Store(0)
	syncLabel.Store("synced")
	v.advance(h, 5*time.Second)
	if !h.shows("embeddings ready", "sync synced") {
		t.Fatalf("the status line does not follow the work ending within 5 s:\n%s", h.screen())
	}
	if woke := v.advance(h, 10*time.Minute); woke > 40 {
		t.Errorf("idle again, the chat woke up %d times in 10 minutes, want at most 40", woke)
	}
}
