package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/mneme-dev/mneme/internal/printer"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/history"
)

// `mneme memory history ID` and `mneme memory undo [CHANGE]`: every change
// of a note is recorded (memory/note_history.go), and undo reverts one
// through the index, so that search stays in step.

func (a *App) memoryHistory(ctx context.Context, args []string) error {
	common, asJSON, rest, err := a.memoryFlags("history", "history [--json] ID", args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return exitError{code: 2, msg: "memory history: give one note id"}
	}
	s, err := a.open(ctx, common)
	if err != nil {
		return err
	}
	defer s.Close()
	changes, err := history.Of(ctx, s.store, s.cfg.User, rest[0])
	if err != nil {
		return noteError("history", err)
	}
	if asJSON {
		return writeJSON(a.stdout, changes)
	}
	if len(changes) == 0 {
		fmt.Fprintf(a.stdout, "No recorded change of note %s.\n", sanitize.Line(rest[0]))
		return nil
	}
	printer.History(a.stdout, changes, func(id string) string { return sanitize.Line(history.ShortID(ctx, s.store, s.cfg.User, id)) })
	return nil
}

// undoOut is what `memory undo --json` prints.
type undoOut struct {
	Undone history.Change `json:"undone"`
	Note   memory.Note    `json:"note"`
}

func (a *App) memoryUndo(ctx context.Context, args []string) error {
	common, asJSON, rest, err := a.memoryFlags("undo", "undo [--json] [CHANGE]", args)
	if err != nil {
		return err
	}
	if len(rest) > 1 {
		return exitError{code: 2, msg: "memory undo: give at most one change id (from memory history)"}
	}
	ref := ""
	if len(rest) == 1 {
		ref = rest[0]
	}
	s, err := a.open(ctx, common)
	if err != nil {
		return err
	}
	defer s.Close()
	ix, err := a.noteIndex(ctx, s, true)
	if err != nil {
		return err
	}
	defer ix.Close()
	c, n, err := ix.Undo(ctx, s.cfg.User, ref, "")
	if errors.Is(err, history.ErrNothingToUndo) {
		return exitError{code: 1, msg: "memory undo: nothing to undo"}
	}
	if err != nil {
		return noteError("undo", err)
	}
	if asJSON {
		err = writeJSON(a.stdout, undoOut{Undone: c, Note: n})
	} else {
		fmt.Fprintf(a.stdout, "Undid the %s of note %s (change %s, by %s).\n", c.Op, n.ID, sanitize.Line(history.ShortID(ctx, s.store, s.cfg.User, c.ID)), c.By)
		if c.Op == memory.ChangeCreate || c.Op == memory.ChangeRestore {
			fmt.Fprintf(a.stdout, "Deleted: %s\n", text.Cut(text.OneLine(sanitize.Text(n.Content)), 100))
		} else {
			fmt.Fprintf(a.stdout, "Now: %s\n", text.Cut(text.OneLine(sanitize.Text(n.Content)), 100))
		}
	}
	if err != nil {
		return err
	}
	s.syncAfterChange(ctx, ix)
	return nil
}
