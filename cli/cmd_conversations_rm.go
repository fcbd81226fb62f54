package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

// conversationRemoved is what `conversations rm --json` prints.
type conversationRemoved struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Deleted is false when only the notes of an already deleted
	// conversation were forgotten.
	Deleted bool `json:"deleted"`
	// Notes is how many notes came from the conversation; NotesForgotten
	// says whether they were deleted with it (--forget-notes) or kept.
	Notes          int  `json:"notes"`
	NotesForgotten bool `json:"notes_forgotten"`
}

// conversationsRemove is `mneme conversations rm ID [--forget-notes]`: it
// deletes a conversation through the index, so that search forgets it,
// and with --forget-notes the notes learnt or saved there (vectors and
// keyword entries too). The id may be a unique prefix of 4+ characters.
// For a conversation deleted earlier, --forget-notes with its full id
// forgets the notes it left.
func (a *App) conversationsRemove(ctx context.Context, args []string) error {
	var common commonFlags
	fs := a.newFlagSet("conversations rm", "mneme conversations rm [--forget-notes] [--json] ID", &common)
	asJSON := fs.Bool("json", false, "print JSON")
	forget := fs.Bool("forget-notes", false, "also forget the notes learnt or saved in the conversation")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) != 1 {
		return exitError{code: 2, msg: "conversations rm: give one conversation id"}
	}
	s, err := a.open(ctx, common)
	if err != nil {
		return err
	}
	defer s.Close()
	ix, err := a.noteIndex(ctx, s, false)
	if err != nil {
		return err
	}
	defer ix.Close()
	out, err := removeConversation(ctx, s.store, ix, s.cfg.User, rest[0], *forget)
	if err != nil {
		if errors.Is(err, memory.ErrNotFound) || errors.Is(err, memory.ErrAmbiguous) {
			return exitError{code: 1, msg: fmt.Sprintf("conversations rm: %v", err)}
		}
		return fmt.Errorf("conversations rm: %w", err)
	}
	s.syncAfterChange(ctx, ix)
	if *asJSON {
		return writeJSON(a.stdout, out)
	}
	title := sanitize.Title(displayConvTitle(out.Title))
	switch {
	case out.Deleted:
		fmt.Fprintf(a.stdout, "Deleted conversation %s “%s”.\n", out.ID, title)
	default:
		fmt.Fprintf(a.stdout, "Conversation %s was already deleted.\n", out.ID)
	}
	switch {
	case out.NotesForgotten:
		fmt.Fprintf(a.stdout, "Forgot %s that came from it.\n", plural(out.Notes, "note", "notes"))
	case out.Notes > 0:
		fmt.Fprintf(a.stdout, "%s came from it and %s kept; forget %s with: mneme conversations rm %s --forget-notes\n",
			plural(out.Notes, "note", "notes"), map[bool]string{true: "is", false: "are"}[out.Notes == 1],
			map[bool]string{true: "it", false: "them"}[out.Notes == 1], out.ID)
	}
	return nil
}

func removeConversation(ctx context.Context, store *memory.Store, ix *index.Index, user, id string, forget bool) (conversationRemoved, error) {
	c, err := store.Conversation(ctx, user, id)
	if errors.Is(err, memory.ErrNotFound) && forget {
		// Deleted before: its notes may still be there.
		n, ferr := ix.ForgetConversationNotes(ctx, user, id)
		if ferr == nil && n > 0 {
			return conversationRemoved{ID: id, Notes: n, NotesForgotten: true}, nil
		}
	}
	if err != nil {
		return conversationRemoved{}, err
	}
	out := conversationRemoved{ID: c.ID, Title: c.Title, Deleted: true, NotesForgotten: forget}
	if forget {
		out.Notes, err = ix.ForgetConversation(ctx, user, c.ID)
		return out, err
	}
	if out.Notes, err = store.ConversationNoteCount(ctx, user, c.ID); err != nil {
		return conversationRemoved{}, err
	}
	return out, ix.DeleteConversation(ctx, user, c.ID)
}

func displayConvTitle(t string) string {
	if t == "" {
		return "(untitled)"
	}
	return t
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
