package cli

import (
	"context"

	"github.com/mneme-dev/mneme/memory"
)

// openIndex opens the search index with the embedding model the probe
// found; without one, search is keyword-only.
func (s *session) openIndex(ctx context.Context, st ollamaState) (*memory.Index, error) {
	opts := memory.IndexOptions{
		Log:    s.log,
		Fusion: memory.Fusion{K: s.cfg.RRFK, KeywordWeight: s.cfg.KeywordWeight, VectorWeight: s.cfg.VectorWeight},
	}
	if s.progress != nil {
		opts.Progress = s.progress.report
	}
	if st.Embed.Name != "" {
		opts.Embed = s.client
		opts.Model = memory.EmbedModel{Name: st.Embed.Name, ContextLength: st.Embed.ContextLength}
	}
	return memory.OpenIndex(ctx, s.store, s.cfg.DataDir, opts)
}
