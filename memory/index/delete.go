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
// conversation id (exact), each through DeleteNote, and returns how many.
// The conversation may already be deleted: its notes keep its id.
func (ix *Index) ForgetConversationNotes(ctx context.Context, userID, id string) (int, error) {
	ids, err := ix.store.ConversationNoteIDs(ctx, userID, id)
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
	return forgot, nil
}
