package main

import (
	"context"

	"github.com/mneme-dev/mneme/memory/index"
)

// openIndex opens the search index with the embedding model the probe
// found; without one, search is keyword-only.
func (s *session) openIndex(ctx context.Context, st ollamaState) (*index.Index, error) {
	opts := index.IndexOptions{
		Log:    s.log,
		Fusion: index.Fusion{K: s.cfg.RRFK, KeywordWeight: s.cfg.KeywordWeight, VectorWeight: s.cfg.VectorWeight},
	}
	if s.progress != nil {
		opts.Progress = s.progress.report
	}
	if st.Embed.Name != "" {
		opts.Embed = s.client
		opts.Model = index.EmbedModel{Name: st.Embed.Name, ContextLength: st.Embed.ContextLength}
	}
	return index.OpenIndex(ctx, s.store, s.cfg.DataDir, opts)
}
