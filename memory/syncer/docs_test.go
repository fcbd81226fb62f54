package syncer

import (
	"context"
	"strings"
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

// TestSyncDocumentChangedOnBothDevices: a document changed on two devices
// while apart, or the same file added on both, ends as one version on
// both: the row of the newer one and its passages only, whatever the order
// of the syncs (a mix of both versions' passages matched neither file, and
// `docs add` saw the file as unchanged).
func TestSyncDocumentChangedOnBothDevices(t *testing.T) {
	ctx := context.Background()
	srv := syncserver.New(t)
	a := newSyncDevice(t, "A", srv, "")
	b := newSyncDevice(t, "B", srv, "")
	put := func(d *syncDevice, path string, texts ...string) {
		t.Helper()
		n := docstore.New{UserID: "alice", Path: path, Title: path, Type: "text", Hash: docstore.HashBytes([]byte(strings.Join(texts, "|")))}
		for _, s := range texts {
			n.Pieces = append(n.Pieces, docstore.Piece{Text: s})
		}
		if _, _, err := d.ix.AddDocument(ctx, n); err != nil {
			t.Fatal(err)
		}
	}
	put(a, "/home/alice/plan.txt", "version one", "its second passage", "its third") // B's, older, has fewer: its log deletes #1, #2
	a.sync()
	b.sync()
	srv.Down()
	put(b, "/home/alice/plan.txt", "B first passage")
	put(a, "/home/alice/plan.txt", "A first passage", "A second passage", "A third passage")
	put(a, "/home/alice/new.txt", "A wrote this new file")
	put(b, "/home/alice/new.txt", "B wrote this new file", "with two passages")
	// A's plan.txt and B's new.txt are the newer versions, by a minute.
	later := func(d *syncDevice, path string) {
		if _, err := d.store.DB().ExecContext(ctx, `UPDATE documents SET updated_at = updated_at + 60000 WHERE path = ?`, path); err != nil {
			t.Fatal(err)
		}
	}
	later(a, "/home/alice/plan.txt")
	later(b, "/home/alice/new.txt")
	srv.Up()
	a.sync()
	// The conflict: B merges, and says what arrived (not that nothing did,
	// which would blame a lost answer to its own push).
	if rep := b.sync(); !rep.Conflict || !strings.Contains(rep.String(), "both devices wrote while apart") ||
		!strings.Contains(rep.String(), "received 1 changed document") {
		t.Errorf("B's sync: %s", rep)
	}
	a.sync()
	for _, d := range []*syncDevice{a, b} {
		docs, err := d.ix.Docs().List(ctx, "alice", "")
		if err != nil || len(docs) != 2 {
			t.Fatalf("%s lists %+v: %v", d.name, docs, err)
		}
		for _, doc := range docs {
			chunks, err := d.ix.Docs().Chunks(ctx, "alice", doc.ID)
			if err != nil {
				t.Fatal(err)
			}
			var texts []string
			for _, c := range chunks {
				texts = append(texts, c.Text)
			}
			if docstore.HashBytes([]byte(strings.Join(texts, "|"))) != doc.Hash {
				t.Errorf("%s: %s holds %q, not the version its row names", d.name, doc.Path, texts)
			}
			if want := map[string]string{"/home/alice/plan.txt": "A first passage", "/home/alice/new.txt": "B wrote this new file"}[doc.Path]; len(texts) == 0 || texts[0] != want {
				t.Errorf("%s keeps the older version of %s: %q", d.name, doc.Path, texts)
			}
		}
	}
}
