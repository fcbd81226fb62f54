package cli

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/learn"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

// Memory that builds itself: after a completed turn the extract model
// lists the durable facts the user stated (learn.Extract), and each is
// consolidated with the user's notes (learn.Consolidate) through the
// index, so that search stays in step.

// learnBudget bounds learning from one turn: `mneme ask` waits for it
// before exiting, the chat runs it in the background.
const learnBudget = 30 * time.Second

// learnable reports whether a run's turn may be learnt from: it completed
// with an answer (not interrupted, not failed, not cut by the step limit).
// An answer cut at a length limit still is: what the user said in the
// prompt is what learning is after.
func learnable(res agent.Result, err error) bool {
	return err == nil && !res.Interrupted && !res.StepLimitReached && strings.TrimSpace(res.Answer) != "" && res.Turn > 0
}

// learnSlow is how long `mneme ask` learns from its turn before it says
// that it is still at it.
const learnSlow = 2 * time.Second

// learnAfterAsk learns from ask's turn, printing each change on stderr; a
// wait of more than learnSlow is said, and so is a failure (the answer is
// stored either way).
func (a *App) learnAfterAsk(ctx context.Context, s *session, ix *index.Index, chatModel string, req agent.Request, res agent.Result) []learn.Learnt {
	type outcome struct {
		learned []learn.Learnt
		err     error
	}
	done := make(chan outcome, 1)
	go func() {
		l, err := s.learnFrom(ctx, ix, chatModel, req, res)
		done <- outcome{l, err}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-time.After(learnSlow):
		fmt.Fprintln(a.stderr, "mneme: learning about you from this turn… (Ctrl+C skips it; the answer is stored)")
		o = <-done
	}
	kept := 0
	for _, l := range o.learned {
		fmt.Fprintln(a.stderr, l.Receipt())
		if !l.Pending {
			kept++
		}
	}
	switch { // as the chat's receipt says ctrl+z
	case kept == 1:
		fmt.Fprintln(a.stderr, "  (mneme memory undo takes it back)")
	case kept > 1:
		fmt.Fprintln(a.stderr, "  (mneme memory undo takes them back, the last first)")
	}
	// A reply that was not the JSON asked for (a small model's) is the
	// model learning nothing, logged, not a failure said at every ask.
	if o.err != nil && ctx.Err() == nil && !errors.Is(o.err, learn.ErrMalformed) {
		why := o.err.Error()
		if errors.Is(o.err, context.DeadlineExceeded) {
			why = fmt.Sprintf("the model took more than %s", learnBudget)
		}
		fmt.Fprintf(a.stderr, "mneme: learning from this turn failed (%s); the answer is stored\n", sanitize.Line(why))
	}
	return o.learned
}

// learnFrom learns from the turn req and res describe, answered by
// chatModel: it extracts, consolidates, and returns what changed, and an
// error when the model failed or ran out of time on it (logged; the turn is
// stored whatever happens here).
func (s *session) learnFrom(ctx context.Context, ix *index.Index, chatModel string, req agent.Request, res agent.Result) ([]learn.Learnt, error) {
	ctx, cancel := context.WithTimeout(ctx, learnBudget)
	defer cancel()
	start := time.Now()
	model := learn.Model{Name: s.cfg.ExtractModelFor(chatModel), Log: s.log}
	model.Options = map[string]any{"num_ctx": s.extractContext(ctx, model.Name)}
	cands, err := learn.Extract(ctx, s.client, model, learn.Turn{User: req.Prompt, Assistant: res.Answer})
	if err != nil {
		s.logLearn("extraction failed", err, req, model.Name)
		return nil, err
	}
	notes := learn.IndexNotes{Index: ix, Source: memory.NoteSource{ConversationID: req.ConversationID, TurnNumber: res.Turn, Pending: s.cfg.ReviewFirst()}}
	consolidate := learn.Consolidate
	if s.cfg.ReviewFirst() {
		consolidate = learn.ConsolidateForReview
	}
	changes, cerr := consolidate(ctx, s.client, model, notes, req.UserID, cands)
	if cerr != nil {
		s.logLearn("consolidation stopped", cerr, req, model.Name)
	}
	out := learn.Learnts(changes, s.cfg.ReviewFirst())
	for _, c := range changes {
		if c.Event == learn.EventNone {
			s.log.Debug("learnt nothing new", "candidate", c.Candidate.Text, "note", c.NoteID, "why", c.Reason)
		}
	}
	s.log.Info("learnt from turn", "conversation", req.ConversationID, "turn", res.Turn, "model", model.Name,
		"candidates", len(cands), "changes", len(out), "took", time.Since(start).Round(time.Millisecond))
	return out, cerr
}

func (s *session) logLearn(msg string, err error, req agent.Request, model string) {
	level := slog.LevelWarn
	if errors.Is(err, context.Canceled) || errors.Is(err, learn.ErrMalformed) {
		level = slog.LevelInfo
	}
	s.log.Log(context.Background(), level, msg, "conversation", req.ConversationID, "model", model, "err", err)
}

// extractContext is the num_ctx to send with learning's requests: the one
// the chat uses for that model (agent.ChooseContext), so that Ollama does
// not reload the model for a different context.
func (s *session) extractContext(ctx context.Context, model string) int {
	show, err := s.client.Show(ctx, &api.ShowRequest{Model: model})
	if err != nil {
		show = nil
	}
	return agent.ChooseContext(s.cfg.NumCtx, s.cfg.NumCtxMax, show).Tokens
}

// backgroundLearner learns from the chat's turns beside it, one turn at a
// time (so that a turn sees what the previous one added), and reports each
// change. stop cancels what runs and waits for it.
type backgroundLearner struct {
	s      *session
	ix     *index.Index
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
	one    sync.Mutex
	report func(conversationID string, turn int, l learn.Learnt)
}

func (s *session) newBackgroundLearner(ctx context.Context, ix *index.Index, report func(string, int, learn.Learnt)) *backgroundLearner {
	ctx, cancel := context.WithCancel(ctx)
	return &backgroundLearner{s: s, ix: ix, ctx: ctx, cancel: cancel, report: report}
}

// after starts learning from a finished run when it may be learnt from.
func (b *backgroundLearner) after(model string, req agent.Request, res agent.Result, err error) {
	if b == nil || !b.s.cfg.LearnOn() || !learnable(res, err) || b.ctx.Err() != nil {
		return
	}
	b.wg.Add(1)
	go func() {
		defer b.wg.Done()
		b.one.Lock()
		defer b.one.Unlock()
		if b.ctx.Err() != nil {
			return
		}
		learned, _ := b.s.learnFrom(b.ctx, b.ix, model, req, res) // a failure is logged; the turn is stored
		for _, l := range learned {
			b.report(req.ConversationID, res.Turn, l)
		}
	}()
}

// stop cancels learning and waits for it to end.
func (b *backgroundLearner) stop() {
	b.cancel()
	b.wg.Wait()
}
