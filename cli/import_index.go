package cli

import (
	"context"
	"fmt"

	"github.com/mneme-dev/mneme/internal/progress"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/learn"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

// importIndex is the index an import is followed with (index.Follower):
// each batch the store commits is indexed in the background while the
// next is stored. Ollama is probed meanwhile; its embedding model is set
// once the import is over.
type importIndex struct {
	ix *index.Index
	*index.Follower
	probe chan ollamaState
}

func (s *session) startImportIndex(ctx context.Context) (*importIndex, error) {
	// Keyword search until the probe answers; the import reports its own
	// progress, so the index's catch-ups (a batch each) are not reported.
	ix, err := s.openIndexReporting(ctx, ollamaState{}, nil)
	if err != nil {
		return nil, err
	}
	f := &importIndex{ix: ix, Follower: ix.Follow(ctx), probe: make(chan ollamaState, 1)}
	go func() { f.probe <- probeOllama(ctx, s.client, s.host, s.cfg) }()
	return f, nil
}

// close stops the following and closes the index.
func (f *importIndex) close() {
	f.Stop()
	f.ix.Close()
}

// indexImported makes imported conversations searchable: keyword search
// (what the import left), then report (the import's summary), then
// embeddings when a model is available; with extract, then it learns from
// what is new (import_learn.go).
func (a *App) indexImported(ctx context.Context, s *session, f *importIndex, st memory.ImportStats, extract bool, report func()) error {
	// The bar stood at 100% meanwhile, without a word, for most of a large
	// import: the index catches up with the batches stored.
	if st.Imported >= progress.MinTurns {
		fmt.Fprintln(a.stderr, "mneme: import: every message is stored; the keyword index catches up (Ctrl+C leaves that to the next command)…")
	}
	f.Stop()
	ix := f.ix
	// What the following left (the last batches, a failed one) is still
	// notified, and Sync's catch-up finds any conversation whose turns lag
	// its messages (those a backup's lines restored): notifying every
	// conversation again would only read them all again.
	if err := ix.Sync(ctx); err != nil {
		if ctx.Err() != nil {
			return exitError{code: ExitInterrupted, msg: "import interrupted: every message is stored; " + indexBehind}
		}
		return err
	}
	probe := <-f.probe
	if probe.Embed.Name != "" {
		ix.SetEmbedding(s.client, index.EmbedModel{Name: probe.Embed.Name, ContextLength: probe.Embed.ContextLength})
	}
	report()
	defer s.syncAfterChange(ctx, ix)
	var turns []learn.StoredTurn
	if extract { // waiting before the embedding, which Ctrl+C may stop
		var err error
		if turns, err = markImported(context.WithoutCancel(ctx), s, st); err != nil {
			return err
		}
	}
	if err := a.embedImported(ctx, ix, probe); err != nil {
		return err
	}
	if !extract {
		return nil
	}
	return a.learnImported(ctx, s, ix, probe, turns)
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
		fmt.Fprintf(a.stdout, "Keyword search and search by meaning (%s) are ready.\n", sanitize.Line(ix.EmbedModelName()))
		return nil
	}
	fmt.Fprintf(a.stdout, "Keyword search is ready; embedding with %s (Ctrl+C to leave the rest for later)…\n", sanitize.Line(ix.EmbedModelName()))
	if err := ix.Drain(ctx); err != nil {
		return err
	}
	if idx, err = ix.Status(ctx); err != nil {
		return err
	}
	switch {
	case idx.EmbedError != "":
		fmt.Fprintf(a.stdout, "Embedding paused (%s); %s will be embedded later.\n", idx.EmbedError, text.Count(idx.Pending, "turn", "turns"))
	case idx.Pending > 0:
		fmt.Fprintf(a.stdout, "%s left to embed; mneme finishes them in the background.\n", text.Count(idx.Pending, "turn", "turns"))
	default:
		fmt.Fprintln(a.stdout, "Search by meaning is ready.")
	}
	return nil
}
