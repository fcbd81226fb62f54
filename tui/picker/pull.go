package picker

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/internal/ollama"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/tui/panel"
)

// pullState is the pull in progress.
type pullState struct {
	n      int
	name   string
	cancel context.CancelFunc
	ch     <-chan pullEvent
	status string
	layers map[string]ollama.PullProgress // by digest
	order  []string
	// The first report with a size, for the speed.
	firstAt   time.Time
	firstDone int64
	lastAt    time.Time
}

type pullEvent struct {
	progress ollama.PullProgress
	done     bool
	err      error
}

// startPull starts pulling name in a goroutine of a command.
func (p *ModelPicker) startPull(name string) tea.Cmd {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return nil
	case p.mgr == nil:
		p.setHint("Ollama is not configured: cannot pull.", true)
		return nil
	}
	p.cancelPull()
	p.done = nil
	p.pulls++
	ctx, cancel := context.WithCancel(p.clock.Context())
	p.pull = &pullState{n: p.pulls, name: name, cancel: cancel, status: "starting", layers: map[string]ollama.PullProgress{}}
	p.hint, p.hintErr = "", false
	mgr, id, n := p.mgr, p.id, p.pulls
	return func() tea.Msg {
		ch := make(chan pullEvent, 64)
		go func() {
			defer close(ch)
			err := mgr.Pull(ctx, name, func(pr ollama.PullProgress) {
				select {
				case ch <- pullEvent{progress: pr}:
				case <-ctx.Done():
				}
			})
			select {
			case ch <- pullEvent{done: true, err: err}:
			case <-ctx.Done():
			}
		}()
		return pullStartedMsg{To: panel.To{ID: id}, n: n, ch: ch}
	}
}

// waitPullCmd waits for the pull's next reports: it blocks for one, then
// takes whatever else is already waiting.
func waitPullCmd(id int64, n int, ch <-chan pullEvent) tea.Cmd {
	return func() tea.Msg {
		msg := pullMsg{To: panel.To{ID: id}, n: n}
		ev, ok := <-ch
		for {
			switch {
			case !ok:
				msg.done, msg.err = true, context.Canceled
				return msg
			case ev.done:
				msg.done, msg.err = true, ev.err
				return msg
			}
			msg.updates = append(msg.updates, ev.progress)
			select {
			case ev, ok = <-ch:
			default:
				return msg
			}
		}
	}
}

// cancelPull cancels the pull in progress; its late reports are dropped.
func (p *ModelPicker) cancelPull() {
	if p.pull != nil {
		p.pull.cancel()
		p.pull = nil
	}
}

func (p ModelPicker) handlePull(msg pullMsg) (ModelPicker, tea.Cmd) {
	pl := *p.pull
	pl.layers = maps.Clone(p.pull.layers)
	now := p.clock.Now()
	for _, u := range msg.updates {
		if u.Status != "" {
			pl.status = u.Status
		}
		if u.Digest != "" && u.Total > 0 {
			if _, seen := pl.layers[u.Digest]; !seen {
				pl.order = append(pl.order, u.Digest)
			}
			pl.layers[u.Digest] = u
		}
	}
	if total, done := pl.bytes(); total > 0 {
		if pl.firstAt.IsZero() {
			pl.firstAt, pl.firstDone = now, done
		}
		pl.lastAt = now
	}
	p.pull = &pl
	if !msg.done {
		return p, waitPullCmd(p.id, msg.n, pl.ch)
	}
	name := pl.name
	p.pull.cancel()
	p.pull = nil
	switch {
	case errors.Is(msg.err, context.Canceled):
		p.setHint(fmt.Sprintf("Pull of %s cancelled.", name), false)
		return p, nil
	case msg.err != nil:
		p.log.Warn("pull failed", "model", name, "err", msg.err)
		p.pullFailed = true
		what := fmt.Sprintf("Pull of %s failed", name)
		if ollama.RegistryUnreachable(msg.err) {
			what = fmt.Sprintf("Cannot download %s: the Ollama library is unreachable (offline?)", name)
		}
		p.setHint(what+": "+sanitize.Line(msg.err.Error()), true)
		return p, nil
	}
	p.setHint(fmt.Sprintf("Pulled %s.", name), false)
	p.done, p.picked = &pl, name
	return p, p.listModels()
}

// bytes sums the layers: their total size and the bytes done.
func (pl pullState) bytes() (total, done int64) {
	for _, d := range pl.order {
		l := pl.layers[d]
		total += l.Total
		done += min(l.Completed, l.Total)
	}
	return total, done
}

// PullPercent is the share done, 0-1, of the pull in progress or else of
// the last one that succeeded (0 before sizes are known).
func (p ModelPicker) PullPercent() float64 {
	pl := p.pull
	if pl == nil {
		pl = p.done
	}
	if pl == nil {
		return 0
	}
	return pl.percent()
}

func (pl pullState) percent() float64 {
	total, done := pl.bytes()
	if total <= 0 {
		return 0
	}
	return float64(done) / float64(total)
}
