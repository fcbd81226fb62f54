package cli

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/progress"
	"github.com/mneme-dev/mneme/internal/text"
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

// importedTurn is one turn to learn from.
type importedTurn struct {
	id  string // memory.TurnID
	req agent.Request
	res agent.Result
	at  int64 // its time, for the order
}

// learnImported learns from the new turns of an import with the chat
// model, printing each change (and a counter on a terminal). Ctrl+C stops
// it; what was learnt is kept.
func (a *App) learnImported(ctx context.Context, s *session, ix *index.Index, probe ollamaState, st memory.ImportStats) error {
	turns, err := newTurns(ctx, s.store, st)
	if err != nil {
		return err
	}
	ids := make([]string, len(turns))
	for i, t := range turns {
		ids[i] = t.id
	}
	if err := s.store.AddExtractPending(ctx, ids...); err != nil { // until each is learnt from
		return err
	}
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
		text.Count(len(turns), "turn", "turns"), s.cfg.ExtractModelFor(probe.Model))
	counter := progress.NewBar(a.stderr, len(turns), "turns")
	changes, missed, done, elsewhere := 0, 0, 0, 0
	for i, t := range turns {
		if ctx.Err() != nil {
			counter.Clear()
			fmt.Fprintf(a.stdout, "Stopped after %d of %s: %s kept.\n", done, text.Count(len(turns), "turn", "turns"), text.Count(changes, "change", "changes"))
			return exitError{code: ExitInterrupted, msg: "import: --extract interrupted; the conversations are imported"}
		}
		counter.Show(i)
		mine, err := s.store.ClaimExtract(ctx, t.id, extractLease)
		if err != nil {
			return err
		}
		if !mine { // another mneme learns from it, or has
			elsewhere++
			continue
		}
		learned, err := s.learnFrom(ctx, ix, probe.Model, t.req, t.res)
		for _, l := range learned {
			counter.Clear()
			fmt.Fprintln(a.stdout, l.receipt())
			changes++
		}
		if err == nil {
			err = s.store.DoneExtract(ctx, t.id)
			if err != nil {
				return err
			}
			done++
			continue
		}
		if err := s.store.ReleaseExtract(context.WithoutCancel(ctx), t.id); err != nil {
			return err
		}
		if ctx.Err() == nil { // not the one Ctrl+C stopped
			missed++
		}
	}
	counter.Clear()
	if ctx.Err() != nil { // stopped on the last turn
		fmt.Fprintf(a.stdout, "Stopped after %d of %s: %s kept.\n", done, text.Count(len(turns), "turn", "turns"), text.Count(changes, "change", "changes"))
		return exitError{code: ExitInterrupted, msg: "import: --extract interrupted; the conversations are imported"}
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

// newTurns lists the turns of the import's conversations to learn from,
// with their question and answer, oldest first: those that hold a message
// the import stored, and those an earlier import --extract left.
func newTurns(ctx context.Context, store *memory.Store, st memory.ImportStats) ([]importedTurn, error) {
	var out []importedTurn
	for _, ref := range st.Conversations {
		turns, err := store.ConversationTurns(ctx, ref.ConversationID)
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(turns))
		for i, t := range turns {
			ids[i] = t.ID
		}
		pending, err := store.ExtractPending(ctx, ids)
		if err != nil {
			return nil, err
		}
		first := st.FirstNew[ref.ConversationID]
		if first == 0 && len(pending) == 0 {
			continue
		}
		msgs, err := store.Messages(ctx, ref.UserID, ref.ConversationID)
		if err != nil {
			return nil, err
		}
		for _, t := range turns {
			if !pending[t.ID] && (first == 0 || t.LastSeq < first) {
				continue
			}
			var prompt, answer []string
			for _, m := range msgs {
				if m.Seq < t.FirstSeq || m.Seq > t.LastSeq || strings.TrimSpace(m.Content) == "" {
					continue
				}
				switch m.Role {
				case memory.RoleUser:
					prompt = append(prompt, m.Content)
				case memory.RoleAssistant:
					answer = append(answer, m.Content)
				}
			}
			if len(prompt) == 0 || len(answer) == 0 {
				continue
			}
			out = append(out, importedTurn{
				id:  t.ID,
				req: agent.Request{UserID: ref.UserID, ConversationID: ref.ConversationID, Prompt: strings.Join(prompt, "\n\n")},
				res: agent.Result{ConversationID: ref.ConversationID, Turn: t.Number, Answer: strings.Join(answer, "\n\n")},
				at:  t.Time.UnixMilli(),
			})
		}
	}
	slices.SortStableFunc(out, func(a, b importedTurn) int {
		return cmp.Or(cmp.Compare(a.at, b.at), strings.Compare(a.req.ConversationID, b.req.ConversationID), cmp.Compare(a.res.Turn, b.res.Turn))
	})
	return out, nil
}
