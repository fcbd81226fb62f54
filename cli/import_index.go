package cli

import (
	"context"
	"fmt"
	"sync"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

// importIndex keeps the keyword index up with an import as it goes: each
// batch the store commits is indexed (turns derived, keywords indexed) in
// the background while the next batch is stored, so that storing (SQLite)
// and indexing (Bleve) share the cores instead of taking turns, and an
// interrupted import leaves what it stored searchable. Ollama is probed
// meanwhile; its embedding model is set once the import is over.
type importIndex struct {
	ix    *index.Index
	probe chan ollamaState
	wake  chan struct{}
	quit  chan struct{}
	done  chan struct{}
	once  sync.Once
}

func (s *session) startImportIndex(ctx context.Context) (*importIndex, error) {
	// Keyword search until the probe answers; the import reports its own
	// progress, so the index's catch-ups (a batch each) are not reported.
	ix, err := s.openIndexReporting(ctx, ollamaState{}, nil)
	if err != nil {
		return nil, err
	}
	f := &importIndex{ix: ix, probe: make(chan ollamaState, 1), wake: make(chan struct{}, 1),
		quit: make(chan struct{}), done: make(chan struct{})}
	go func() { f.probe <- probeOllama(ctx, s.client, s.host, s.cfg) }()
	go func() {
		defer close(f.done)
		// The keyword index stays open from batch to batch (but for another
		// process waiting for it): closed and reopened between batches while
		// Bleve merges, it was seen to lose a segment.
		var release func()
		defer func() {
			if release != nil {
				release()
			}
		}()
		for {
			select {
			case <-f.wake:
				if release == nil {
					release, _ = ix.KeepKeyword(ctx) // on failure, the Sync waits for the index itself
				}
				if err := ix.SyncNotified(ctx); err != nil && ctx.Err() == nil {
					s.log.Warn("indexing during import", "err", err) // the last Sync says it
				}
				if release != nil && ix.KeywordYield() {
					release()
					release = nil
				}
			case <-f.quit:
				return
			}
		}
	}()
	return f, nil
}

// batch is memory.ImportOptions.OnBatch.
func (f *importIndex) batch(refs []memory.ConversationRef) {
	f.ix.Notify(refs...)
	select {
	case f.wake <- struct{}{}:
	default: // a wake-up is pending: its Sync takes these too
	}
}

// stop ends the following; it returns once no Sync runs.
func (f *importIndex) stop() {
	f.once.Do(func() { close(f.quit) })
	<-f.done
}

// close stops the following and closes the index.
func (f *importIndex) close() {
	f.stop()
	f.ix.Close()
}

// indexImported makes imported conversations searchable: keyword search
// (what the import left), then report (the import's summary), then
// embeddings when a model is available; with extract, then it learns from
// what is new (import_learn.go).
func (a *App) indexImported(ctx context.Context, s *session, f *importIndex, st memory.ImportStats, extract bool, report func()) error {
	f.stop()
	ix := f.ix
	// What the following left (the last batches, a failed one) is still
	// notified, and Sync's catch-up finds any conversation whose turns lag
	// its messages (those a backup's lines restored): notifying every
	// conversation again would only read them all again.
	if err := ix.Sync(ctx); err != nil {
		return err
	}
	probe := <-f.probe
	if probe.Embed.Name != "" {
		ix.SetEmbedding(s.client, index.EmbedModel{Name: probe.Embed.Name, ContextLength: probe.Embed.ContextLength})
	}
	report()
	defer s.syncAfterChange(ctx, ix)
	if err := a.embedImported(ctx, ix, probe); err != nil {
		return err
	}
	if !extract {
		return nil
	}
	return a.learnImported(ctx, s, ix, probe, st)
}

// embedImported embeds the imported turns while the command waits
// (Ctrl+C leaves the rest for the background) and says how far it got.
func (a *App) embedImported(ctx context.Context, ix *index.Index, probe ollamaState) error {
	if ix.EmbedModelName() == "" {
		fmt.Fprintln(a.stdout, "Keyword search is ready.", probe.EmbedNote)
		return nil
	}
	idx, err := ix.Status(ctx)
	if err != nil {
		return err
	}
	if idx.Pending == 0 { // nothing new (an import again), or all embedded before
		fmt.Fprintf(a.stdout, "Keyword search and search by meaning (%s) are ready.\n", ix.EmbedModelName())
		return nil
	}
	fmt.Fprintf(a.stdout, "Keyword search is ready; embedding with %s (Ctrl+C to leave the rest for later)…\n", ix.EmbedModelName())
	if err := ix.Drain(ctx); err != nil {
		return err
	}
	if idx, err = ix.Status(ctx); err != nil {
		return err
	}
	switch {
	case idx.EmbedError != "":
		fmt.Fprintf(a.stdout, "Embedding paused (%s); %d turns will be embedded later.\n", idx.EmbedError, idx.Pending)
	case idx.Pending > 0:
		fmt.Fprintf(a.stdout, "%d turns left to embed; mneme finishes them in the background.\n", idx.Pending)
	default:
		fmt.Fprintln(a.stdout, "Search by meaning is ready.")
	}
	return nil
}
