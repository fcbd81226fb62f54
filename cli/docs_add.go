package cli

import (
	"path/filepath"

	"github.com/mneme-dev/mneme/docs"
	"github.com/mneme-dev/mneme/docs/ingest"
	"github.com/mneme-dev/mneme/memory/index"
)

// docAdder adds files for the session's user, as configured.
func (s *session) docAdder(ix *index.Index, collection string) ingest.Adder {
	dataDir, err := filepath.EvalSymlinks(s.cfg.DataDir)
	if err != nil {
		dataDir = filepath.Clean(s.cfg.DataDir)
	}
	return ingest.Adder{Library: ix, UserID: s.cfg.User, Collection: collection, MaxBytes: s.cfg.MaxDocBytes(),
		Chunks: docs.ChunkOptions{Tokens: s.cfg.DocChunkTokens, Overlap: *s.cfg.DocChunkOverlap}, DataDir: dataDir}
}
