package index

import (
	"context"
	"fmt"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/keyword"
)

// Keyword maintenance: turns, notes and summaries go to the keyword index
// in batches, and the store records what the index holds (keyword marks,
// in its local state, never synced), under one lease of the index.

// keywordBatch is how many turns go to Bleve at once.
const keywordBatch = 1000

// indexKeywords indexes the turns that lacked keywords when it began; turns
// stored meanwhile are left to whoever stores them (another mneme's import
// indexes each batch it stores), so that a search never chases an import
// batch after batch until it ends.
func (ix *Index) indexKeywords(ctx context.Context) error {
	after := ""
	done, total := 0, -1 // total is counted with the first batch, for the progress reports
	defer func() { ix.kwDone.Store(0); ix.kwTotal.Store(0) }()
	for total < 0 || done < total {
		turns, err := ix.store.TurnsNeedingKeywordIndex(ctx, after, keywordBatch)
		if err != nil || len(turns) == 0 {
			return err
		}
		if total < 0 && len(turns) < keywordBatch {
			total = len(turns) // all there was
		}
		if total < 0 && (ix.progress != nil || len(turns) == keywordBatch) {
			n, err := ix.store.CountTurnsNeedingKeywordIndex(ctx)
			if err != nil {
				return err
			}
			total = n
			if len(turns) == keywordBatch { // a long job: the status line says how long
				ix.kwTotal.Store(int64(n))
			}
		}
		after = turns[len(turns)-1].ID
		docs, err := ix.turnDocs(ctx, turns)
		if err != nil {
			return err
		}
		if err := ix.indexAndMark(ctx, docs, func() error { return ix.store.MarkKeywordIndexed(ctx, turns) }); err != nil {
			return err
		}
		done += len(turns)
		ix.kwDone.Store(int64(done))
		if ix.progress != nil {
			ix.progress(done, max(total, done))
		}
	}
	return nil
}

// KeywordProgress says how far a long rebuild of the keyword index of
// turns has come: done of total turns; total is 0 when none is running.
func (ix *Index) KeywordProgress() (done, total int) {
	return int(ix.kwDone.Load()), int(ix.kwTotal.Load())
}

// indexAndMark puts docs in the keyword index and records that with mark,
// under one lease: another process that rebuilds the index cannot come in
// between and leave rows marked that its new index lacks.
func (ix *Index) indexAndMark(ctx context.Context, docs []keyword.Doc, mark func() error) error {
	return ix.kw.Hold(ctx, func() error {
		if err := ix.kw.Upsert(docs...); err != nil {
			return fmt.Errorf("keyword index: %w", err)
		}
		return mark()
	})
}

func (ix *Index) upsertNoteKeywords(ctx context.Context, notes []memory.Note) error {
	return ix.indexAndMark(ctx, noteDocs(notes), func() error { return ix.store.MarkNotesKeywordIndexed(ctx, notes) })
}

func (ix *Index) removeNoteKeywords(ctx context.Context, ids []string) error {
	return ix.kw.Hold(ctx, func() error {
		if err := ix.kw.Delete(ids...); err != nil {
			return fmt.Errorf("keyword index: %w", err)
		}
		return ix.store.MarkNotesKeywordRemoved(ctx, ids)
	})
}

// indexNoteKeywords brings the keyword index up to date with the notes:
// new and changed notes in, deleted ones out.
func (ix *Index) indexNoteKeywords(ctx context.Context) error {
	for {
		notes, err := ix.store.NotesNeedingKeywordIndex(ctx, keywordBatch)
		if err != nil {
			return err
		}
		if len(notes) == 0 {
			break
		}
		if err := ix.upsertNoteKeywords(ctx, notes); err != nil {
			return err
		}
	}
	for {
		ids, err := ix.store.DeletedNotesInKeywordIndex(ctx, keywordBatch)
		if err != nil || len(ids) == 0 {
			return err
		}
		if err := ix.removeNoteKeywords(ctx, ids); err != nil {
			return err
		}
	}
}

// indexSummaryKeywords puts summaries not yet in the keyword index into it,
// under their conversation's current title.
func (ix *Index) indexSummaryKeywords(ctx context.Context) error {
	for {
		list, err := ix.store.SummariesNeedingKeywordIndex(ctx, keywordBatch)
		if err != nil || len(list) == 0 {
			return err
		}
		if err := ix.upsertSummaryKeywords(ctx, list); err != nil {
			return err
		}
	}
}

// upsertSummaryKeywords writes summaries to the keyword index and marks them.
func (ix *Index) upsertSummaryKeywords(ctx context.Context, list []memory.Summary) error {
	docs, err := ix.summaryDocs(ctx, list)
	if err != nil {
		return err
	}
	return ix.indexAndMark(ctx, docs, func() error { return ix.store.MarkSummariesKeywordIndexed(ctx, list) })
}

// turnDocs are the keyword documents of turns, under their conversations'
// current titles.
func (ix *Index) turnDocs(ctx context.Context, turns []memory.Turn) ([]keyword.Doc, error) {
	titles, err := ix.store.ConversationTitles(ctx, turnConversations(turns))
	if err != nil {
		return nil, err
	}
	docs := make([]keyword.Doc, len(turns))
	for i, t := range turns {
		docs[i] = keyword.Doc{
			ID: t.ID, Kind: keyword.KindTurn, UserID: t.UserID, ConversationID: t.ConversationID,
			Title: titles[t.ConversationID], Number: t.Number, Text: t.Text, UserText: t.UserText, Time: t.Time,
		}
	}
	return docs, nil
}

// noteDocs are the keyword documents of notes.
func noteDocs(notes []memory.Note) []keyword.Doc {
	docs := make([]keyword.Doc, len(notes))
	for i, n := range notes {
		docs[i] = keyword.Doc{ID: n.ID, Kind: keyword.KindNote, UserID: n.UserID, Text: n.Content, UserText: n.Content, Time: n.Updated}
	}
	return docs
}

// summaryDocs are the keyword documents of summaries, under their
// conversations' current titles.
func (ix *Index) summaryDocs(ctx context.Context, list []memory.Summary) ([]keyword.Doc, error) {
	ids := make([]string, len(list))
	for i, sum := range list {
		ids[i] = sum.ConversationID
	}
	titles, err := ix.store.ConversationTitles(ctx, distinct(ids))
	if err != nil {
		return nil, err
	}
	docs := make([]keyword.Doc, len(list))
	for i, sum := range list {
		docs[i] = keyword.Doc{
			ID: sum.ID, Kind: keyword.KindSummary, UserID: sum.UserID, ConversationID: sum.ConversationID,
			Title: titles[sum.ConversationID], Text: sum.Text, UserText: sum.Text, Time: sum.Created,
		}
	}
	return docs, nil
}

// turnConversations lists the turns' conversations, each once.
func turnConversations(turns []memory.Turn) []string {
	ids := make([]string, len(turns))
	for i, t := range turns {
		ids[i] = t.ConversationID
	}
	return distinct(ids)
}

// distinct drops repeated strings, keeping the first of each.
func distinct(xs []string) []string {
	seen := make(map[string]bool, len(xs))
	out := xs[:0:0]
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}
