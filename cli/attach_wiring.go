package cli

import (
	"context"

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
