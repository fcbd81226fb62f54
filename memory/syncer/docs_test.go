package syncer

import (
	"context"
	"testing"

	"github.com/mneme-dev/mneme/internal/syncserver"
	"github.com/mneme-dev/mneme/memory/docstore"
	"github.com/mneme-dev/mneme/memory/index"
)

func (d *syncDevice) searchDocs(text string) []index.DocHit {
	d.t.Helper()
	hits, err := d.ix.SearchDocs(context.Background(), index.DocQuery{UserID: "alice", Text: text})
	if err != nil {
		d.t.Fatal(err)
	}
	return hits
}

// TestSyncDocuments: a document added on A is found on B after a sync, a
// changed one by its new text only, and one removed on A is gone on B,
// even when B added its own document while the server was down.
func TestSyncDocuments(t *testing.T) {
	ctx := context.Background()
	srv := syncserver.New(t)
	a := newSyncDevice(t, "A", srv, "")
	b := newSyncDevice(t, "B", srv, "")
	put := func(d *syncDevice, path, text string) docstore.Document {
		t.Helper()
		doc, _, err := d.ix.AddDocument(ctx, docstore.New{UserID: "alice", Path: path, Title: path, Type: "text", Size: int64(len(text)),
			Hash: docstore.HashBytes([]byte(text)), Pieces: []docstore.Piece{{Text: text}}})
		if err != nil {
			t.Fatal(err)
		}
		return doc
	}
	doc := put(a, "/home/alice/boiler.txt", "hold the crimson button to reset the boiler")
	a.sync()
	b.sync()
	if hits := b.searchDocs("crimson"); len(hits) != 1 || hits[0].DocumentID != doc.ID {
		t.Fatalf("B finds %+v", hits)
	}

	put(a, "/home/alice/boiler.txt", "hold the emerald button to reset the boiler")
	a.sync()
	b.sync()
	if hits := b.searchDocs("crimson"); len(hits) != 0 {
		t.Fatalf("B still finds the old text: %+v", hits)
	}
	if hits := b.searchDocs("emerald"); len(hits) != 1 {
		t.Fatalf("B does not find the new text: %+v", hits)
	}

	srv.Down()
	if err := a.ix.RemoveDocuments(ctx, "alice", []string{doc.ID}); err != nil {
		t.Fatal(err)
	}
	put(b, "/home/alice/garden.txt", "prune the hydrangeas in March")
	srv.Up()
	b.sync()
	a.sync()
	b.sync()
	for _, d := range []*syncDevice{a, b} {
		if hits := d.searchDocs("emerald"); len(hits) != 0 {
			t.Errorf("%s still finds the document removed on A: %+v", d.name, hits)
		}
		if hits := d.searchDocs("hydrangeas"); len(hits) != 1 {
			t.Errorf("%s does not find the document added on B: %+v", d.name, hits)
		}
	}
}
