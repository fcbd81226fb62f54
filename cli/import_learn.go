package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/progress"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/learn"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

// `mneme import --extract`: memory that builds itself, run over the turns
// of the imported conversations, as if each had just been chatted. Turns
// are learnt from oldest first, so that a later fact updates an earlier
// one, one at a time (each sees the notes the ones before it left). The
// turns an import stored wait in local.extract_pending until read to the
// end: importing the same export again learns nothing twice, and a run
// that failed (Ollama down) or was stopped leaves the rest for the next.

// extractLease is how long a run's claim on a turn holds: longer than a
// small model takes over one turn, short enough that a turn a killed run
// claimed is learnt from by a run soon after.
const extractLease = 10 * time.Minute

// markImported returns the turns an import stored, and those an earlier
// run left, to learn from, and records the new ones as waiting until
// learnt from: a run stopped before it learns (in the embedding) leaves
// them for the next.
func markImported(ctx context.Context, s *session, st memory.ImportStats) ([]learn.StoredTurn, error) {
	turns, err := learn.ImportedTurns(ctx, s.store, st)
	if err != nil {
		return nil, err
	}
	// Those an earlier run left wait already (added again, one another
	// run learnt from meanwhile would be learnt from twice).
	var added []string
	for _, t := range turns {
		if t.New {
			added = append(added, t.ID)
		}
	}
	return turns, learn.NewPending(s.store).Add(ctx, added...)
}

// learnImported learns from the turns markImported found with the chat
// model, printing each change (and a counter on a terminal). Ctrl+C stops
// it; what was learnt is kept.
func (a *App) learnImported(ctx context.Context, s *session, ix *index.Index, probe ollamaState, turns []learn.StoredTurn) error {
	pending := learn.NewPending(s.store)
	if probe.Err != nil || probe.Model == "" {
		why := "no chat model is installed"
		if probe.Err != nil {
			why = probe.Err.Error()
		}
		return exitError{code: 1, msg: "import: --extract: nothing was learnt: " + why + "; the conversations are imported, and `mneme import --extract` of the same file later learns from them"}
	}
	if len(turns) == 0 {
		fmt.Fprintln(a.stdout, "Nothing new to learn from.")
		return nil
	}
	fmt.Fprintf(a.stdout, "Learning about you from %s with %s (Ctrl+C stops; what is learnt is kept)…\n",
		text.Count(len(turns), "turn", "turns"), sanitize.Line(s.cfg.ExtractModelFor(probe.Model)))
	counter := progress.NewBar(a.stderr, len(turns), "turns")
	changes, missed, done, elsewhere := 0, 0, 0, 0
	stopped := func() error {
		counter.Clear()
		fmt.Fprintf(a.stdout, "Stopped after %d of %s: %s kept.\n", done, text.Count(len(turns), "turn", "turns"), text.Count(changes, "change", "changes"))
		return exitError{code: ExitInterrupted, msg: "import: --extract interrupted; the conversations are imported"}
	}
	for i, t := range turns {
		if ctx.Err() != nil {
			return stopped()
		}
		counter.Show(i)
		mine, err := pending.Claim(ctx, t.ID, extractLease)
		switch {
		case ctx.Err() != nil:
			return stopped()
		case err != nil:
			return err
		}
		if !mine { // another mneme learns from it, or has
			elsewhere++
			continue
		}
		learned, err := s.learnFrom(ctx, ix, probe.Model,
			agent.Request{UserID: t.UserID, ConversationID: t.ConversationID, Prompt: t.Prompt},
			agent.Result{ConversationID: t.ConversationID, Turn: t.Number, Answer: t.Answer})
		for _, l := range learned {
			counter.Clear()
			fmt.Fprintln(a.stdout, l.Receipt())
			changes++
		}
		if err == nil { // learnt: recorded even if Ctrl+C came meanwhile
			if err := pending.Done(context.WithoutCancel(ctx), t.ID); err != nil {
				return err
			}
			done++
			continue
		}
		if err := pending.Release(context.WithoutCancel(ctx), t.ID); err != nil {
			return err
		}
		if ctx.Err() == nil { // not the one Ctrl+C stopped
			missed++
		}
	}
	counter.Clear()
	if ctx.Err() != nil { // stopped on the last turn
		return stopped()
	}
	fmt.Fprintf(a.stdout, "Learnt from %s: %s.\n", text.Count(done, "turn", "turns"), text.Count(changes, "change to your notes", "changes to your notes"))
	if elsewhere > 0 {
		fmt.Fprintf(a.stdout, "Another mneme learnt, or is learning, from the other %s.\n", text.Count(elsewhere, "turn", "turns"))
	}
	if s.cfg.ReviewFirst() && changes > 0 {
		fmt.Fprintln(a.stdout, "They wait for your review: mneme memory pending.")
	}
	if missed > 0 {
		return exitError{code: 1, msg: fmt.Sprintf("import: --extract: the model failed on %s (see the log); the next `mneme import --extract` tries them again",
			text.Count(missed, "turn", "turns"))}
	}
	return nil
}
