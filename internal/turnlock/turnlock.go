// Package turnlock takes turns in a conversation across processes: a turn
// (the prompt stored, the answer streamed and stored) holds its
// conversation's lock, so that two scripts continuing one conversation, or
// a script and the chat, answer one after the other instead of
// interleaving their prompts.
package turnlock

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/flock"
)

// Locks are the turn locks of one data dir: files in its turns/ folder,
// one a conversation with a turn under way.
type Locks struct{ dir string }

// New returns the turn locks of the data dir.
func New(dataDir string) Locks { return Locks{dir: filepath.Join(dataDir, "turns")} }

// Lock waits for the conversation's lock (waiting is called once, when
// another process holds it) until ctx ends, and returns its release, which
// may be called more than once. The
// lock's file is removed when it is released, so turns/ holds only the
// turns under way: a lock taken on a file removed meanwhile is taken again.
func (l Locks) Lock(ctx context.Context, convID string, waiting func()) (unlock func(), err error) {
	if err := os.MkdirAll(l.dir, 0o700); err != nil {
		return nil, fmt.Errorf("turn lock: %w", err)
	}
	path := l.path(convID)
	told, refused := false, 0
	for {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, fmt.Errorf("turn lock: %w", err)
		}
		err = flock.Acquire(ctx, f, flock.Exclusive, func() {
			// A chat's look at the lock (Held) holds it for a moment: only
			// a second refusal, a poll later, is another turn under way.
			if refused++; refused >= 2 && !told && waiting != nil {
				told = true
				waiting()
			}
		})
		if err != nil {
			f.Close()
			return nil, err
		}
		held, herr := f.Stat()
		named, nerr := os.Stat(path)
		if herr == nil && nerr == nil && os.SameFile(held, named) {
			return sync.OnceFunc(func() {
				os.Remove(path)
				flock.Unlock(f)
				f.Close()
			}), nil
		}
		flock.Unlock(f) // released and removed while this one waited
		f.Close()
	}
}

// Forget removes the lock file of a deleted conversation that a process
// which died holding it (kill -9) left behind. A lock held now is left to
// its holder, which removes it when its turn ends.
func (l Locks) Forget(convID string) {
	path := l.path(convID)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return // none: the usual case
	}
	defer f.Close()
	if flock.Try(f, flock.Exclusive) {
		os.Remove(path)
		flock.Unlock(f)
	}
}

// Held reports whether a process holds the conversation's lock now:
// another mneme is answering in it.
func (l Locks) Held(convID string) bool {
	f, err := os.OpenFile(l.path(convID), os.O_RDWR, 0)
	if err != nil {
		return false // none: no turn under way
	}
	defer f.Close()
	if flock.Try(f, flock.Exclusive) {
		flock.Unlock(f)
		return false
	}
	return true
}

// path is the conversation's lock file.
func (l Locks) path(convID string) string {
	sum := sha256.Sum256([]byte(convID)) // an id from elsewhere never names a path
	return filepath.Join(l.dir, hex.EncodeToString(sum[:12])+".lock")
}

// WaitingNotice is what a turn says while another mneme answers in its
// conversation.
const WaitingNotice = "Another mneme is answering in this conversation: this prompt waits for its answer to end."

// Run runs req with its conversation's lock held, and ends with a
// DoneEvent or an ErrorEvent as agent.Run does. Stopped while waiting,
// nothing is stored: it fails with agent.ErrNotSent.
func (l Locks) Run(ctx context.Context, ag Runner, req agent.Request, emit func(agent.Event)) (agent.Result, error) {
	unlock, err := l.Lock(ctx, req.ConversationID, func() { emit(agent.NoticeEvent{Text: WaitingNotice, Passing: true}) })
	if err != nil {
		res := agent.Result{ConversationID: req.ConversationID, ToolCalls: []agent.ToolActivity{}, MemoriesUsed: []agent.Memory{}}
		if ctx.Err() != nil {
			err = fmt.Errorf("%w: stopped while another mneme answered in this conversation", agent.ErrNotSent)
		}
		emit(agent.ErrorEvent{Err: err, Result: res})
		return res, err
	}
	defer unlock()
	return ag.Run(ctx, req, emit)
}

// Runner runs one prompt; *agent.Agent is one.
type Runner interface {
	Run(ctx context.Context, req agent.Request, emit func(agent.Event)) (agent.Result, error)
}
