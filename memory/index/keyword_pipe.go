package index

import (
	"context"

	"github.com/mneme-dev/mneme/memory"
)

// turnPipe puts the turns a sync of conversations derives into the keyword
// index while the sync goes on: deriving turns is SQLite's work and
// indexing them Bleve's, so on two cores the one runs beside the other
// (an import of 100k turns spends about as long in each). Turns go to
// Bleve in batches of keywordBatch, in the order they were added, each
// batch marked once Bleve holds it (indexAndMark), so a turn is never
// marked before it is searchable. What the pipe did not index (it failed,
// or the sync stopped) stays unmarked for the catch-up of indexKeywords.
type turnPipe struct {
	ix      *Index
	ctx     context.Context
	pending []memory.Turn
	batches chan []memory.Turn
	done    chan error
	// total is about how many turns there are to index (0: not counted),
	// indexed how many are in; progress is reported in turns.
	total, indexed int
}

// newTurnPipe starts a pipe for a sync of refs. A sync of many
// conversations, or one a command reports, counts its turns first, so
// that progress says how far it has come (KeywordProgress, and
// IndexOptions.Progress).
func (ix *Index) newTurnPipe(ctx context.Context, refs []memory.ConversationRef) *turnPipe {
	p := &turnPipe{ix: ix, ctx: ctx, batches: make(chan []memory.Turn, 1), done: make(chan error, 1)}
	if ix.progress != nil || len(refs) >= progressConversations {
		if n, err := ix.store.CountUserMessages(ctx, refs); err == nil {
			p.total = n // else progress goes uncounted: the sync still runs
		}
		if p.total >= keywordBatch { // a long job: the status line says how long
			ix.kwTotal.Store(int64(p.total))
		}
	}
	go p.run()
	return p
}

// progressConversations is how many conversations to sync make a sync
// worth counting for progress reports (a pull from another device, an
// import), when nothing asked for reports.
const progressConversations = 10

// run indexes batches until the channel closes; after a failure it only
// drains them.
func (p *turnPipe) run() {
	var err error
	for turns := range p.batches {
		if err != nil {
			continue
		}
		err = p.index(turns)
	}
	p.done <- err
}

func (p *turnPipe) index(turns []memory.Turn) error {
	docs, err := p.ix.turnDocs(p.ctx, turns)
	if err != nil {
		return err
	}
	err = p.ix.indexAndMark(p.ctx, docs, func() error { return p.ix.store.MarkKeywordIndexed(p.ctx, turns) })
	if err != nil {
		return err
	}
	p.indexed += len(turns)
	p.ix.kwDone.Store(int64(p.indexed))
	if p.ix.progress != nil && p.total > 0 {
		p.ix.progress(p.indexed, max(p.total, p.indexed))
	}
	return nil
}

// add queues turns, sending a batch once keywordBatch are waiting.
func (p *turnPipe) add(turns []memory.Turn) {
	p.pending = append(p.pending, turns...)
	for len(p.pending) >= keywordBatch {
		p.batches <- p.pending[:keywordBatch:keywordBatch]
		p.pending = p.pending[keywordBatch:]
	}
}

// close sends what is left and waits for the indexing to end.
func (p *turnPipe) close() error {
	if len(p.pending) > 0 {
		p.batches <- p.pending
		p.pending = nil
	}
	close(p.batches)
	err := <-p.done
	p.ix.kwDone.Store(0)
	p.ix.kwTotal.Store(0)
	return err
}
