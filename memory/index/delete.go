package index

import (
	"context"

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
