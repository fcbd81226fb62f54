package index

import (
	"context"
	"errors"
	"fmt"

	"github.com/mneme-dev/mneme/memory"
)

// DeleteConversation deletes one of the user's conversations from the store
// (see memory.Store.DeleteConversation) and makes search forget it at once: its
// turns and summaries leave the keyword index and its turns' vectors leave
// the loaded vector index. Pending indexing work for it is dropped.
func (ix *Index) DeleteConversation(ctx context.Context, userID, id string) error {
	del, err := ix.store.DeleteConversationIDs(ctx, userID, id)
	if err != nil {
		return err
	}
	ix.mu.Lock()
	delete(ix.dirty, memory.ConversationRef{UserID: userID, ConversationID: id})
	ix.mu.Unlock()
	ix.forgetVectors(userID, del.TurnIDs)
	docs := append(append([]string(nil), del.TurnIDs...), del.SummaryIDs...)
	if len(docs) == 0 {
		return nil
	}
	if err := ix.kw.Delete(docs...); err != nil {
		// The conversation is deleted: search skips turns the store no
		// longer has, and a reindex drops the documents for good.
		ix.log.Warn("deleted conversation left in the keyword index", "conversation", id, "err", err)
	}
	return nil
}

// Removed is what RemoveConversation did.
type Removed struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	// Deleted is false when only the notes of a conversation deleted
	// before were forgotten.
	Deleted bool `json:"deleted"`
	// Notes is how many notes came from the conversation; NotesForgotten
	// says whether they went with it or are kept.
	Notes          int  `json:"notes"`
	NotesForgotten bool `json:"notes_forgotten"`
}

// RemoveConversation deletes the user's conversation id (or a unique
// prefix of it, see memory.Store.Conversation) like DeleteConversation,
// and with forget the notes that came from it, like ForgetConversation.
// Without forget it counts the notes it keeps. A conversation deleted
// before, named by its full id, has its notes forgotten when forget asks.
func (ix *Index) RemoveConversation(ctx context.Context, userID, id string, forget bool) (Removed, error) {
	c, err := ix.store.Conversation(ctx, userID, id)
	if errors.Is(err, memory.ErrNotFound) && forget {
		if n, ferr := ix.ForgetConversationNotes(ctx, userID, id); ferr == nil && n > 0 {
			return Removed{ID: id, Notes: n, NotesForgotten: true}, nil
		}
	}
	if err != nil {
		return Removed{}, err
	}
	out := Removed{ID: c.ID, Title: c.Title, Deleted: true, NotesForgotten: forget}
	if forget {
		out.Notes, err = ix.ForgetConversation(ctx, userID, c.ID)
		return out, err
	}
	if out.Notes, err = ix.ConversationNoteCount(ctx, userID, c.ID); err != nil {
		return Removed{}, err
	}
	return out, ix.DeleteConversation(ctx, userID, c.ID)
}

// ForgetConversation deletes one of the user's conversations like
// DeleteConversation, and with it the notes that came from it (learnt or
// saved there), each through DeleteNote: its vectors and keyword entry go
// too, and the delete syncs like any other. It returns how many notes it
// forgot. The notes go first: if one fails, the conversation is still
// there and the call can be repeated. Like DeleteConversation it takes
// the exact id, never a prefix.
func (ix *Index) ForgetConversation(ctx context.Context, userID, id string) (int, error) {
	c, err := ix.store.Conversation(ctx, userID, id)
	if err != nil {
		return 0, err
	}
	if c.ID != id { // no prefixes, as DeleteConversation
		return 0, fmt.Errorf("conversation %q: %w", id, memory.ErrNotFound)
	}
	forgot, err := ix.ForgetConversationNotes(ctx, userID, id)
	if err != nil {
		return forgot, err
	}
	return forgot, ix.DeleteConversation(ctx, userID, id)
}

// ForgetConversationNotes deletes the user's notes that came from
// conversation id (exact), each through DeleteNote, with their history,
// and returns how many.
// The conversation may already be deleted: its notes keep its id.
func (ix *Index) ForgetConversationNotes(ctx context.Context, userID, id string) (int, error) {
	ids, err := ix.conversationNoteIDs(ctx, userID, id)
	if err != nil {
		return 0, err
	}
	forgot := 0
	for _, noteID := range ids {
		if _, err := ix.DeleteNote(ctx, userID, noteID); err != nil {
			if errors.Is(err, memory.ErrNoteNotFound) {
				continue // deleted meanwhile
			}
			return forgot, fmt.Errorf("forget note %s: %w", noteID, err)
		}
		forgot++
	}
	// Their history keeps their old texts (for undo): forgetting drops it.
	return forgot, ix.store.ForgetHistory(ctx, userID, ids)
}

// ConversationNoteCount is how many of the user's notes came from a
// conversation (learnt or saved there), whatever their status.
func (ix *Index) ConversationNoteCount(ctx context.Context, userID, id string) (int, error) {
	ids, err := ix.conversationNoteIDs(ctx, userID, id)
	return len(ids), err
}

// ConversationNotes lists the user's live notes, archived ones too, whose
// conversation of origin is id, newest first: what forgetting it would
// delete.
func (ix *Index) ConversationNotes(ctx context.Context, userID, id string) ([]memory.Note, error) {
	notes, err := ix.store.ListNotes(ctx, userID)
	if err != nil {
		return nil, err
	}
	archived, err := ix.store.ListArchivedNotes(ctx, userID)
	if err != nil {
		return nil, err
	}
	var out []memory.Note
	for _, n := range append(notes, archived...) {
		if n.ConversationID == id {
			out = append(out, n)
		}
	}
	return out, nil
}

func (ix *Index) conversationNoteIDs(ctx context.Context, userID, id string) ([]string, error) {
	notes, err := ix.ConversationNotes(ctx, userID, id)
	ids := make([]string, len(notes))
	for i, n := range notes {
		ids[i] = n.ID
	}
	return ids, err
}
