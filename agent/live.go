package agent

import (
	"context"
	"errors"
	"strings"
	"sync"
	"time"

	"github.com/mneme-dev/mneme/memory"
)

// Stream timeouts: how long a model call may go without a chunk from
// Ollama. The first covers loading the model and reading the prompt.
const (
	DefaultFirstTokenTimeout = 2 * time.Minute
	DefaultStreamIdleTimeout = time.Minute
)

// DefaultMaxAnswerTokens bounds one model call's answer (its thinking
// included), so that a small model caught in a loop cannot stream for
// ever: a cut answer is kept (marked interrupted) and the user told.
const DefaultMaxAnswerTokens = 4096

// liveSaveInterval is how often an answer is saved while it streams: a
// crash loses at most this much of it.
const liveSaveInterval = time.Second

// liveAnswer saves an assistant message while it streams. The first chunk
// inserts it, marked interrupted, then it is rewritten at most every
// liveSaveInterval; finish writes it once more with its final status. A
// crash therefore leaves the answer so far, marked interrupted.
type liveAnswer struct {
	a   *Agent
	ctx context.Context // not cancelled with the run: the answer must be saved
	req Request

	mu                sync.Mutex
	content, thinking strings.Builder
	dirty             bool

	writeMu sync.Mutex // one write at a time, the final one last
	stored  memory.Message
	gone    bool // the message or its conversation was deleted meanwhile: stop saving
	// stopStream ends the model's stream when gone (set by stream).
	stopStream func()

	kick chan struct{}
	stop chan struct{}
	done chan struct{}
}

func (a *Agent) newLiveAnswer(ctx context.Context, req Request) *liveAnswer {
	l := &liveAnswer{
		a: a, ctx: context.WithoutCancel(ctx), req: req,
		kick: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
	}
	go l.loop()
	return l
}

// add records streamed text; the first text is saved at once.
func (l *liveAnswer) add(thinking, content string) {
	if thinking == "" && content == "" {
		return
	}
	l.mu.Lock()
	first := l.content.Len() == 0 && l.thinking.Len() == 0
	l.thinking.WriteString(thinking)
	l.content.WriteString(content)
	l.dirty = true
	l.mu.Unlock()
	if first {
		select {
		case l.kick <- struct{}{}:
		default:
		}
	}
}

func (l *liveAnswer) loop() {
	defer close(l.done)
	tick := time.NewTicker(liveSaveInterval)
	defer tick.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-l.kick:
		case <-tick.C:
		}
		l.save()
	}
}

// save writes the text so far, still marked interrupted.
func (l *liveAnswer) save() {
	l.mu.Lock()
	if !l.dirty || l.gone {
		l.mu.Unlock()
		return
	}
	content, thinking := l.content.String(), l.thinking.String()
	l.dirty = false
	l.mu.Unlock()
	if _, err := l.write(content, thinking, nil, memory.StatusInterrupted); err != nil {
		l.a.log.Warn("save streaming answer", "conversation", l.req.ConversationID, "err", err)
		if errors.Is(err, memory.ErrNotFound) {
			l.mu.Lock()
			l.gone = true
			stop := l.stopStream
			l.mu.Unlock()
			if stop != nil {
				stop()
			}
		}
	}
}

// onGone sets what a save that finds the conversation deleted calls (the
// stream's cancel): the model's answer has nowhere to go.
func (l *liveAnswer) onGone(fn func()) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.stopStream = fn
}

// write inserts the message the first time and rewrites it afterwards.
func (l *liveAnswer) write(content, thinking string, calls []memory.ToolCall, status memory.Status) (memory.Message, error) {
	l.writeMu.Lock()
	defer l.writeMu.Unlock()
	m := memory.Message{
		ConversationID: l.req.ConversationID, Role: memory.RoleAssistant,
		Content: content, Thinking: thinking, ToolCalls: calls, Status: status, Model: l.a.model,
	}
	if l.stored.ID == "" {
		stored, err := l.a.store.AppendMessage(l.ctx, l.req.UserID, m)
		if err != nil {
			return m, err
		}
		l.stored = stored
		return stored, nil
	}
	m.ID, m.Seq, m.Created = l.stored.ID, l.stored.Seq, l.stored.Created
	if err := l.a.store.UpdateMessage(l.ctx, l.req.UserID, m); err != nil {
		return m, err
	}
	l.stored = m
	return m, nil
}

// finish stops the periodic saves and writes the message in full with its
// final status. An answer that failed with no text is not stored (nor left
// stored: nothing was written for it); one the user interrupted
// (userStopped) is, empty: the turn shows it was interrupted, live, after
// a reload and in exports alike.
func (l *liveAnswer) finish(out *streamOut, calls []memory.ToolCall, status memory.Status) (memory.Message, error) {
	close(l.stop)
	<-l.done
	return l.write(out.content.String(), out.thinking.String(), calls, status)
}
