package index

import (
	"context"
	"fmt"

	"github.com/mneme-dev/mneme/memory"
)

// What sync needs of the index (memory/syncer): after a pull, the rows that
// arrived from other devices are written to this device's keyword index
// and marked in the store's local state (never synced: a write to the
// synced database would make this device "ahead" of the server), and the
// loaded vectors are dropped (they are reloaded from the embeddings table,
// which the rows arrived with).

// kwMetaReplicaMark is the keyword index's record of the replica position
// (generation/frame) it was last brought up to date with.
const kwMetaReplicaMark = "sync_mark"

// ReplicaMark is the replica position the keyword index was last brought
// up to date with ("" when never).
func (ix *Index) ReplicaMark() (string, error) { return ix.kw.Meta(kwMetaReplicaMark) }

// SetReplicaMark records that the keyword index reflects the replica at mark.
func (ix *Index) SetReplicaMark(mark string) error { return ix.kw.SetMeta(kwMetaReplicaMark, mark) }

// Refresh writes to the keyword index the turns of convs, the notes among
// notes that are live and the summaries, with their keyword marks (local
// state, which no other device sees), removes the documents gone, then
// drops the loaded vectors and wakes the worker for convs (for turns still
// to derive and vectors under another model).
func (ix *Index) Refresh(ctx context.Context, convs []memory.ConversationRef, notes, summaries, gone []string) error {
	for _, r := range convs {
		turns, err := ix.store.ConversationTurns(ctx, r.ConversationID)
		if err != nil {
			return err
		}
		if err := ix.upsertTurns(ctx, turns); err != nil {
			return err
		}
	}
	if err := ix.refreshRest(ctx, notes, summaries, gone); err != nil {
		return err
	}
	ix.Notify(convs...)
	return nil
}

// RefreshAll is Refresh for every turn of the store: the fallback when
// the replica moved and nobody knows what changed (a process pulled
// without this index and exited).
func (ix *Index) RefreshAll(ctx context.Context, notes, summaries, gone []string) error {
	if err := ix.store.AllTurns(ctx, keywordBatch, func(turns []memory.Turn) error { return ix.upsertTurns(ctx, turns) }); err != nil {
		return err
	}
	if err := ix.refreshRest(ctx, notes, summaries, gone); err != nil {
		return err
	}
	ix.Notify()
	return nil
}

// upsertTurns writes turns to the keyword index and marks them.
func (ix *Index) upsertTurns(ctx context.Context, turns []memory.Turn) error {
	if len(turns) == 0 {
		return nil
	}
	docs, err := ix.turnDocs(ctx, turns)
	if err != nil {
		return err
	}
	return ix.indexAndMark(ctx, docs, func() error { return ix.store.MarkKeywordIndexed(ctx, turns) })
}

// refreshRest is what Refresh and RefreshAll share: notes, summaries,
// deletions, document chunks and the vectors.
func (ix *Index) refreshRest(ctx context.Context, notes, summaries, gone []string) error {
	if len(notes) > 0 {
		live, err := ix.store.LiveNotes(ctx, notes)
		if err != nil {
			return err
		}
		if len(live) > 0 {
			if err := ix.upsertNoteKeywords(ctx, live); err != nil {
				return err
			}
		}
	}
	if len(summaries) > 0 {
		list, err := ix.store.SummariesWithIDs(ctx, summaries)
		if err != nil {
			return err
		}
		if len(list) > 0 {
			if err := ix.upsertSummaryKeywords(ctx, list); err != nil {
				return err
			}
		}
	}
	if len(gone) > 0 {
		err := ix.kw.Hold(ctx, func() error {
			if err := ix.kw.Delete(gone...); err != nil {
				return fmt.Errorf("keyword index: %w", err)
			}
			return ix.store.ForgetKeywordMarks(ctx, gone)
		})
		if err != nil {
			return err
		}
	}
	if err := ix.indexDocKeywords(ctx); err != nil {
		return err
	}
	ix.mu.Lock()
	clear(ix.vecs) // reloaded from the embeddings table on the next search
	ix.mu.Unlock()
	return nil
}

// Backlog names the first kind of work the index still has on rows
// written here, and how much (n 0: none): turns to derive, text to put in
// the keyword index, vectors to compute (while the embedding model
// answers). Sync waits for it, so that derived rows travel with theirs.
func (ix *Index) Backlog(ctx context.Context) (work string, n int) {
	if stale, err := ix.store.StaleConversations(ctx); err == nil && len(stale) > 0 {
		return "turns", len(stale)
	}
	if turns, err := ix.store.TurnsNeedingKeywordIndex(ctx, "", 1); err == nil && len(turns) > 0 {
		return "turn keywords", len(turns)
	}
	if notes, err := ix.store.NotesNeedingKeywordIndex(ctx, 1); err == nil && len(notes) > 0 {
		return "note keywords", len(notes)
	}
	model := ix.EmbedModelName()
	if model == "" || ix.EmbedError() != nil {
		return "", 0
	}
	if n, err := ix.store.CountTurnsNeedingEmbedding(ctx, model); err == nil && n > 0 {
		return "turn vectors", n
	}
	if notes, err := ix.store.NotesNeedingEmbedding(ctx, model, 1); err == nil && len(notes) > 0 {
		return "note vectors", len(notes)
	}
	return "", 0
}
