package index

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/docstore"
	"github.com/mneme-dev/mneme/memory/keyword"
)

// A rebuild of the keyword index (mneme reindex) writes every turn, note,
// summary and passage to a new index beside the one in use, which answers
// every process meanwhile; the new one is swapped in at the end, with the
// marks of what went into it. What changed while it was built is then
// indexed as any change is (marks that do not match).

// builtMarks are what a rebuild wrote: ids and hashes, not texts.
type builtMarks struct {
	turns     []memory.Turn
	notes     []memory.Note
	summaries []memory.Summary
	chunks    []docstore.Indexable
}

// mark records what was built as what the new index holds, and takes out
// of it what was deleted while it was built (the deletes reached the old
// index only). The lease is held. A note or summary changed since is left
// unmarked (its hash no longer matches); a turn is marked with the hash
// it was built with; a passage deleted since is swept as any is
// (GoneFromStore).
func (b *builtMarks) mark(ctx context.Context, ix *Index) error {
	var err error
	if b.turns, err = dropGone(ctx, ix, "turn", b.turns, func(t memory.Turn) string { return t.ID }); err != nil {
		return err
	}
	if b.notes, err = dropGone(ctx, ix, "note", b.notes, func(n memory.Note) string { return n.ID }); err != nil {
		return err
	}
	if b.summaries, err = dropGone(ctx, ix, "summary", b.summaries, func(s memory.Summary) string { return s.ID }); err != nil {
		return err
	}
	if err := ix.store.MarkKeywordIndexed(ctx, b.turns); err != nil {
		return err
	}
	if err := ix.store.MarkNotesKeywordIndexed(ctx, b.notes); err != nil {
		return err
	}
	if err := ix.store.MarkSummariesKeywordIndexed(ctx, b.summaries); err != nil {
		return err
	}
	return ix.docs.MarkKeywordIndexed(ctx, b.chunks)
}

// dropGone deletes from the keyword index the rows of kind that are gone
// from the store, and returns the others.
func dropGone[T any](ctx context.Context, ix *Index, kind string, rows []T, id func(T) string) ([]T, error) {
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = id(r)
	}
	gone, err := ix.store.Gone(ctx, kind, ids)
	if err != nil || len(gone) == 0 {
		return rows, err
	}
	if err := ix.kw.Delete(gone...); err != nil {
		return nil, fmt.Errorf("keyword index: %w", err)
	}
	drop := make(map[string]bool, len(gone))
	for _, g := range gone {
		drop[g] = true
	}
	return slices.DeleteFunc(rows, func(r T) bool { return drop[id(r)] }), nil
}

// buildKeywords writes everything the keyword index holds with put, in
// batches, and notes what it wrote in b.
func (ix *Index) buildKeywords(ctx context.Context, put func(...keyword.Doc) error, b *builtMarks) error {
	total, err := ix.store.CountTurns(ctx)
	if err != nil {
		return err
	}
	ix.kwTotal.Store(int64(total))
	defer func() { ix.kwDone.Store(0); ix.kwTotal.Store(0) }()
	done := 0
	err = eachBatch(ctx, ix.store.TurnsFrom, func(t memory.Turn) string { return t.ID }, func(turns []memory.Turn) error {
		docs, err := ix.turnDocs(ctx, turns)
		if err != nil {
			return err
		}
		if err := put(docs...); err != nil {
			return err
		}
		for _, t := range turns {
			b.turns = append(b.turns, memory.Turn{ID: t.ID, Hash: t.Hash})
		}
		done += len(turns)
		ix.kwDone.Store(int64(done))
		if ix.progress != nil {
			ix.progress(done, max(total, done))
		}
		return nil
	})
	if err != nil {
		return err
	}
	err = eachBatch(ctx, ix.store.LiveNotesFrom, func(n memory.Note) string { return n.ID }, func(notes []memory.Note) error {
		for _, n := range notes {
			b.notes = append(b.notes, memory.Note{ID: n.ID, Hash: n.Hash})
		}
		return put(noteDocs(notes)...)
	})
	if err != nil {
		return err
	}
	err = eachBatch(ctx, ix.store.SummariesFrom, func(s memory.Summary) string { return s.ID }, func(list []memory.Summary) error {
		docs, err := ix.summaryDocs(ctx, list)
		if err != nil {
			return err
		}
		for _, s := range list {
			b.summaries = append(b.summaries, memory.Summary{ID: s.ID, Hash: s.Hash})
		}
		return put(docs...)
	})
	if err != nil {
		return err
	}
	return eachBatch(ctx, ix.docs.ChunksFrom, func(c docstore.Indexable) string { return c.ID }, func(list []docstore.Indexable) error {
		for _, c := range list {
			var mark docstore.Indexable
			mark.ID, mark.Hash = c.ID, c.Hash
			b.chunks = append(b.chunks, mark)
		}
		return put(chunkDocs(list)...)
	})
}

// eachBatch reads rows in id order, keywordBatch at a time, and hands each
// batch to fn, until there are no more or ctx ends.
func eachBatch[T any](ctx context.Context, read func(context.Context, string, int) ([]T, error), id func(T) string, fn func([]T) error) error {
	after := ""
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		rows, err := read(ctx, after, keywordBatch)
		if err != nil || len(rows) == 0 {
			return err
		}
		if err := fn(rows); err != nil {
			return err
		}
		after = id(rows[len(rows)-1])
	}
}

// chunkDocs are the keyword documents of document passages.
func chunkDocs(list []docstore.Indexable) []keyword.Doc {
	docs := make([]keyword.Doc, len(list))
	for i, c := range list {
		docs[i] = keyword.Doc{
			ID: c.ID, Kind: keyword.KindChunk, UserID: c.UserID, ConversationID: c.DocumentID,
			Title: c.Title, Number: c.Number, Text: strings.TrimSpace(c.Heading + "\n" + c.Text),
		}
	}
	return docs
}
