package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"

	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/turnlock"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

// conversationsRemove is `mneme conversations rm ID [--forget-notes]`: it
// deletes a conversation (a unique id prefix of 8+ characters is enough)
// through the index, so that search forgets it, and with --forget-notes
// the notes learnt or saved there (index.Index.RemoveConversation).
func (a *App) conversationsRemove(ctx context.Context, args []string) error {
	var common config.Flags
	fs := a.newFlagSet("conversations rm", "mneme conversations rm [--forget-notes] [--json] ID", &common)
	asJSON := fs.Bool("json", false, "print JSON")
	forget := fs.Bool("forget-notes", false, "also forget the notes learnt or saved in the conversation")
	rest, err := a.parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return exitError{code: 2, msg: "conversations rm: give one conversation id"}
	}
	return a.withNoteIndex(ctx, common, false, func(s *session, ix *index.Index) error {
		if short := shortPrefix(rest[0]); short != "" {
			if c, err := s.store.Conversation(ctx, s.cfg.User, short); err != nil || c.ID != short {
				return exitError{code: 2, msg: fmt.Sprintf("conversations rm %s: %v", short, memory.ErrShortPrefix)}
			}
		}
		out, err := ix.RemoveConversation(ctx, s.cfg.User, rest[0], *forget)
		if errors.Is(err, memory.ErrNotFound) || errors.Is(err, memory.ErrAmbiguous) {
			return exitError{code: 1, msg: fmt.Sprintf("conversations rm: %v", err)}
		} else if err != nil {
			return fmt.Errorf("conversations rm: %w", err)
		}
		turnlock.New(s.cfg.DataDir).Forget(out.ID) // one a killed process left
		s.syncAfterChange(ctx, ix)
		if *asJSON {
			return writeJSON(a.stdout, out)
		}
		if out.Deleted {
			fmt.Fprintf(a.stdout, "Deleted conversation %s “%s”.\n", sanitize.Line(out.ID), cmp.Or(sanitize.Title(out.Title), "(untitled)"))
		} else {
			fmt.Fprintf(a.stdout, "Conversation %s was already deleted.\n", sanitize.Line(out.ID))
		}
		notes := fmt.Sprintf("%d notes", out.Notes)
		if out.Notes == 1 {
			notes = "1 note"
		}
		switch {
		case out.NotesForgotten:
			fmt.Fprintf(a.stdout, "Forgot %s that came from it.\n", notes)
		case out.Notes > 0:
			fmt.Fprintf(a.stdout, "Kept %s that came from it; to forget: mneme conversations rm %s --forget-notes\n", notes, sanitize.Line(out.ID))
		}
		return nil
	})
}
