package cli

import (
	"context"
	"path/filepath"
	"strings"

	"github.com/mneme-dev/mneme/memory/docstore"
	"github.com/mneme-dev/mneme/memory/index"
)

// Documents in the chat: the document browser's library (/docs) and
// /attach, which adds a file the way `mneme docs add` does (the chat's
// Config.Attach wraps it in chat_wiring.go).

// docLibrary is the user's documents for the chat's browser: listed and
// read from the document store, searched and removed through the index
// (which keeps search in step).
type docLibrary struct{ *index.Index }

func (l docLibrary) ListDocuments(ctx context.Context, userID string) ([]docstore.Document, error) {
	return l.Docs().List(ctx, userID, "")
}

func (l docLibrary) DocumentChunks(ctx context.Context, userID, docID string) ([]docstore.Chunk, error) {
	return l.Docs().Chunks(ctx, userID, docID)
}

// attacher is how /attach adds a file over ix: a path as typed (relative
// to the working directory, or ~/…) is added as `mneme docs add` adds it
// (session.attachDocument, docs_add.go).
func (a *App) attacher(s *session, ix *index.Index) func(ctx context.Context, path string) (attachment, error) {
	home := a.getenv("HOME")
	return func(ctx context.Context, path string) (attachment, error) {
		if home != "" && (path == "~" || strings.HasPrefix(path, "~/")) {
			path = filepath.Join(home, strings.TrimPrefix(path, "~"))
		}
		return s.attachDocument(ctx, ix, path)
	}
}
