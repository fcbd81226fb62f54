package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"slices"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

// The review inbox (memory_review = "inbox"): learnt notes wait as
// pending until the user approves them (they become active) or rejects
// them (they are deleted, vectors and keyword entries included). Pending
// notes are never recalled.

// memoryPending is `memory pending`: the notes waiting for review.
func (a *App) memoryPending(ctx context.Context, args []string) error {
	common, asJSON, rest, err := a.memoryFlags("pending", "pending [--json]", args)
	if err != nil {
		return err
	}
	if err := noArgs("memory pending", rest); err != nil {
		return err
	}
	notes, err := a.userNotes(ctx, common, true)
	if err != nil {
		return err
	}
	pending, kept := []memory.Note{}, map[string]memory.Note{}
	for _, n := range notes {
		if n.Status == memory.NotePending {
			pending = append(pending, n)
		} else {
			kept[n.ID] = n
		}
	}
	if asJSON {
		return writeJSON(a.stdout, pending)
	}
	if len(pending) == 0 {
		fmt.Fprintln(a.stdout, "Nothing to review.")
		return nil
	}
	for _, n := range pending {
		if err := a.printNote(n, "Pending", false); err != nil {
			return err
		}
		if old, ok := kept[n.Replaces]; ok {
			if err := a.printNote(old, "  would replace", false); err != nil {
				return err
			}
		}
	}
	fmt.Fprintln(a.stdout, "Approve with `mneme memory approve ID…`, reject with `mneme memory reject ID…`.")
	return nil
}

// memoryReview is `memory approve ID…` and `memory reject ID…`.
func (a *App) memoryReview(ctx context.Context, args []string, approve bool) error {
	cmd, verb := "reject", "Rejected"
	if approve {
		cmd, verb = "approve", "Approved"
	}
	var all bool
	common, asJSON, rest, err := a.memoryFlags(cmd, cmd+" [--json] ID... | --all", args, func(fs *flag.FlagSet) {
		fs.BoolVar(&all, "all", false, "every pending note")
	})
	if err != nil {
		return err
	}
	switch {
	case all && len(rest) > 0:
		return exitError{code: 2, msg: fmt.Sprintf("memory %s: give ids or --all, not both", cmd)}
	case !all && len(rest) == 0:
		return exitError{code: 2, msg: fmt.Sprintf("memory %s: give the ids of pending notes (mneme memory pending lists them), or --all", cmd)}
	}
	return a.withNoteIndex(ctx, common, false, func(s *session, ix *index.Index) error {
		if all {
			notes, err := s.store.ListNotes(ctx, s.cfg.User)
			if err != nil {
				return err
			}
			for _, n := range slices.Backward(notes) { // oldest first: a later proposal replaces an earlier one
				if n.Status == memory.NotePending {
					rest = append(rest, n.ID)
				}
			}
			if len(rest) == 0 && !asJSON {
				fmt.Fprintln(a.stdout, "Nothing to review.")
			}
		}
		// Every id is tried; those that fail are reported after. --json
		// prints one array of the notes reviewed.
		var failed []error
		reviewed := []memory.Note{}
		for _, id := range rest {
			n, replaced, err := reviewNote(ctx, s.store, ix, s.cfg.User, id, approve)
			if err != nil {
				failed = append(failed, err)
				continue
			}
			if reviewed = append(reviewed, n); asJSON {
				continue // the note's "replaces" names what it replaced
			}
			if err := a.printNote(n, verb, false); err != nil {
				return err
			}
			if replaced.ID != "" {
				if err := a.printNote(replaced, "Replaced", false); err != nil {
					return err
				}
			}
		}
		if asJSON {
			if err := writeJSON(a.stdout, reviewed); err != nil {
				return err
			}
		}
		s.syncAfterChange(ctx, ix)
		if len(failed) > 0 {
			return noteError(cmd, errors.Join(failed...))
		}
		return nil
	})
}

// reviewNote approves or rejects one pending note; replaced is the kept
// note an approval deleted (Note.Replaces), if any.
func reviewNote(ctx context.Context, store *memory.Store, ix *index.Index, user, id string, approve bool) (n, replaced memory.Note, err error) {
	n, err = store.Note(ctx, user, id)
	if short := shortPrefix(id); short != "" && (err != nil || n.ID != short) {
		return n, replaced, fmt.Errorf("note %q: %w", short, memory.ErrShortPrefix) // a moment, not a note
	}
	if err != nil {
		return n, replaced, err
	}
	if n.Status != memory.NotePending {
		return n, replaced, fmt.Errorf("note %s is %s, not pending%w", n.ID, n.Status, notPending)
	}
	if !approve {
		n, err = ix.DeleteNote(ctx, user, n.ID)
		return n, replaced, err
	}
	if n.Replaces != "" {
		replaced, _ = store.Note(ctx, user, n.Replaces) // gone already: nothing to say
	}
	if n, err = ix.SetNoteStatus(ctx, user, n.ID, memory.NoteActive); err != nil || replaced.ID == "" {
		return n, memory.Note{}, err
	}
	if _, err := store.Note(ctx, user, replaced.ID); !errors.Is(err, memory.ErrNoteNotFound) {
		replaced = memory.Note{} // kept (it was pending itself)
	}
	return n, replaced, nil
}

// notPending marks a review of a note that is not pending as a usage
// error (exit 2) without adding words to the message.
var notPending = quietError{memory.ErrInvalid}

// quietError wraps an error for errors.Is without saying it.
type quietError struct{ err error }

func (quietError) Error() string   { return "" }
func (e quietError) Unwrap() error { return e.err }
