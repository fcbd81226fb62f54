package docstore

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/memory"
)

func open(t *testing.T) (*memory.Store, *Store) {
	t.Helper()
	s, err := memory.Open(context.Background(), filepath.Join(t.TempDir(), memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	st, err := Open(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	return s, st
}

func put(t *testing.T, st *Store, user, path, text string) (Document, Outcome) {
	t.Helper()
	d, o, err := st.Put(context.Background(), New{UserID: user, Path: path, Title: "T", Type: "text", Size: int64(len(text)),
		Hash: HashBytes([]byte(text)), Pieces: []Piece{{Heading: "H", Page: 2, Text: text}}})
	if err != nil {
		t.Fatal(err)
	}
	return d, o
}

func TestDocumentsBelongToTheirUser(t *testing.T) {
	ctx := context.Background()
	_, st := open(t)
	d, _ := put(t, st, "alice", "/a.txt", "alpha")
	if _, err := st.Get(ctx, "bob", d.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("bob got alice's document: %v", err)
	}
	if got, err := st.Get(ctx, "alice", d.ID[:8]); err != nil || got.ID != d.ID || got.Chunks != 1 {
		t.Fatalf("get by prefix: %+v, %v", got, err)
	}
	if err := st.Remove(ctx, "bob", []string{d.ID}); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("bob removing alice's document: %v, want not found", err)
	}
	if list, _ := st.List(ctx, "alice", ""); len(list) != 1 {
		t.Fatalf("bob's rm removed alice's document: %+v", list)
	}
	if chunks, _ := st.ChunksByID(ctx, "bob", []string{ChunkID(d.ID, 0)}); len(chunks) != 0 {
		t.Fatalf("bob read alice's chunk: %+v", chunks)
	}
}

// TestBackupLinesRestoreAndRefuseHostileOnes: a backup's documents come
// back whole; a line that is not JSON, one that names another user's
// document, or a passage of a document not restored is skipped with its
// line number, and the rest is restored.
func TestBackupLinesRestoreAndRefuseHostileOnes(t *testing.T) {
	ctx := context.Background()
	src, srcDocs := open(t)
	d, _ := put(t, srcDocs, "alice", "/notes/a.txt", "the spare key is under the pot")
	var buf bytes.Buffer
	if err := src.ExportAll(ctx, "alice", &buf, srcDocs.ExportLines(ctx, "alice")); err != nil {
		t.Fatal(err)
	}
	dst, dstDocs := open(t)
	bob, _ := put(t, dstDocs, "bob", "/bob.txt", "bob's")
	hostile := strings.Join([]string{
		`{"type":"document", not json`,
		`{"type":"doc_chunk","document":"` + bob.ID + `","number":5,"text":"forged into bob's document"}`,
		`{"type":"doc_chunk","document":"no-such-doc","number":0,"text":"orphan"}`,
		`{"type":"document","id":"x1234567","path":"/y","hash":"h","doc_type":"text","size":1,"added":"yesterday","updated":"2026-01-01T00:00:00Z"}`,
		// ids are printed and matched by prefix: short ones and escapes are refused
		`{"type":"document","id":"d1","path":"/short","hash":"h","doc_type":"text","size":1,"added":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}`,
		`{"type":"document","id":"\u001b]0;pwned\u0007abcdefgh","path":"/esc","hash":"h","doc_type":"text","size":1,"added":"2026-01-01T00:00:00Z","updated":"2026-01-01T00:00:00Z"}`,
		`{"type":"doc_chunk","document_id":"` + d.ID + `","number":0,"text":"a field misnamed"}`,
	}, "\n") + "\n"
	var bad []string
	_, err := dst.Import(ctx, "alice", strings.NewReader(buf.String()+hostile), memory.ImportOptions{More: dstDocs.Restorers(),
		OnBad: func(e memory.LineError) { bad = append(bad, e.Error()) }})
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 7 || !strings.Contains(bad[4], `"id" must be 8 to 64`) || strings.ContainsRune(bad[5], '\x1b') || !strings.HasSuffix(bad[6], `a passage without "document"`) {
		t.Fatalf("bad lines: %q", bad)
	}
	got, err := dstDocs.Get(ctx, "alice", d.ID)
	if err != nil || got.Path != "/notes/a.txt" || got.Chunks != 1 || got.Hash != d.Hash {
		t.Fatalf("restored %+v, %v", got, err)
	}
	chunks, _ := dstDocs.Chunks(ctx, "alice", d.ID)
	if len(chunks) != 1 || chunks[0].Text != "the spare key is under the pot" || chunks[0].Page != 2 || chunks[0].Heading != "H" {
		t.Fatalf("restored chunks %+v", chunks)
	}
	if chunks, _ := dstDocs.Chunks(ctx, "bob", bob.ID); len(chunks) != 1 {
		t.Fatalf("bob's document was written into: %+v", chunks)
	}
}

// TestAMoveKeepsTheVersionStoredMeanwhile: `docs add --collection` of an
// unchanged file only moves it, without reading it again; when another
// mneme stored a newer version of the file since, the move keeps that
// version's text (it wrote the old hash back over the new text and
// emptied it), and a move of a document removed since moves nothing.
func TestAMoveKeepsTheVersionStoredMeanwhile(t *testing.T) {
	ctx := context.Background()
	_, st := open(t)
	put(t, st, "alice", "/plan.md", "the first plan")
	newer, _ := put(t, st, "alice", "/plan.md", "the second plan") // another mneme, meanwhile
	moved, outcome, err := st.Put(ctx, New{UserID: "alice", Path: "/plan.md", Collection: "work", Hash: HashBytes([]byte("the first plan"))})
	if err != nil || outcome != Moved || moved.Collection != "work" || moved.Hash != newer.Hash || moved.Chunks != 1 {
		t.Fatalf("move: %+v, %s, %v", moved, outcome, err)
	}
	if chunks, err := st.Chunks(ctx, "alice", moved.ID); err != nil || len(chunks) != 1 || chunks[0].Text != "the second plan" {
		t.Fatalf("after the move: %+v, %v", chunks, err)
	}
	if _, _, err := st.Put(ctx, New{UserID: "alice", Path: "/gone.md", Collection: "work", Hash: "h"}); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("a move of a document removed meanwhile: %v", err)
	}
	if list, _ := st.List(ctx, "alice", ""); len(list) != 1 {
		t.Fatalf("documents %+v", list)
	}
}
