package memory

import (
	"context"
	"fmt"

	"github.com/mneme-dev/mneme/memory/internal/sqlq"
)

// DeleteConversation deletes one of the user's conversations for good: the
// conversation, its messages, its turns, its summaries, its context usage
// and the embeddings of its turns and summaries. It fails with ErrNotFound
// when the user has no conversation with that exact id (no prefixes: a
// delete must name what it deletes).
//
// Notes saved from the conversation stay: they are the user's memory, not
// part of the transcript. Their provenance then names a conversation that
// no longer exists.
//
// Use index.Index.DeleteConversation while an Index is open, so that the
// keyword index and the loaded vectors forget the conversation at once
// (search skips turns that no longer exist in any case).
//
// Sync: the rows are deleted with plain DELETE statements, one table at a
// time, so in a sync replica the sync log triggers record a 'delete' entry
// for each conversation, message and summary row (synclog.go), and merging
// deletes them on the server like any other delete. No tombstone is kept:
// if another device appends to the conversation before it has pulled the
// delete, the merge applies the delete and that device's new messages of the
// conversation are dropped with it (their conversation is gone).
func (s *Store) DeleteConversation(ctx context.Context, userID, id string) error {
	_, err := s.DeleteConversationIDs(ctx, userID, id)
	return err
}

// DeletedConversation names the derived rows a conversation delete removed,
// for the index to forget.
type DeletedConversation struct {
	TurnIDs    []string
	SummaryIDs []string
}

// DeleteConversationIDs is DeleteConversation, returning the ids of the
// derived rows it removed: everything goes in one write transaction.
func (s *Store) DeleteConversationIDs(ctx context.Context, userID, id string) (DeletedConversation, error) {
	var del DeletedConversation
	if userID == "" {
		return del, ErrNoUser
	}
	err := s.write(ctx, func(tx Execer) error {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM conversations WHERE id = ? AND user_id = ?`, id, userID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("conversation %q: %w", id, ErrNotFound)
		}
		var err error
		if del.TurnIDs, err = idsOf(ctx, tx, `SELECT id FROM turns WHERE conversation_id = ?`, id); err != nil {
			return err
		}
		if del.SummaryIDs, err = idsOf(ctx, tx, `SELECT id FROM summaries WHERE conversation_id = ?`, id); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM embeddings WHERE owner_id IN (SELECT id FROM turns WHERE conversation_id = ?)
			OR owner_id IN (SELECT id FROM summaries WHERE conversation_id = ?)`, id, id); err != nil {
			return err
		}
		if err := forgetMarks(ctx, tx, append(append([]string(nil), del.TurnIDs...), del.SummaryIDs...)); err != nil {
			return err
		}
		// Children first, so that nothing relies on ON DELETE CASCADE (and
		// every delete fires its sync log trigger).
		for _, stmt := range []string{
			`DELETE FROM context_usage WHERE conversation_id = ?`,
			`DELETE FROM summaries WHERE conversation_id = ?`,
			`DELETE FROM turns WHERE conversation_id = ?`,
			`DELETE FROM messages WHERE conversation_id = ?`,
			`DELETE FROM conversations WHERE id = ?`,
		} {
			if _, err := tx.ExecContext(ctx, stmt, id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return DeletedConversation{}, fmt.Errorf("delete conversation: %w", err)
	}
	return del, nil
}

// idsOf runs a query of one text column and collects it.
func idsOf(ctx context.Context, tx Execer, q string, args ...any) ([]string, error) {
	return sqlq.Strings(tx.QueryContext(ctx, q, args...))
}
