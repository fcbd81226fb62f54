package index

import (
	"context"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/docstore"
)

func addDoc(t *testing.T, ix *Index, user, path, collection string, texts ...string) (docstore.Document, docstore.Outcome) {
	t.Helper()
	n := docstore.New{UserID: user, Path: path, Collection: collection, Title: path, Type: "markdown", Size: 10,
		Hash: docstore.HashBytes([]byte(strings.Join(texts, "\x00")))}
	for i, s := range texts {
		n.Pieces = append(n.Pieces, docstore.Piece{Heading: "Part", Page: i + 1, Text: s})
	}
	d, outcome, err := ix.AddDocument(context.Background(), n)
	if err != nil {
		t.Fatal(err)
	}
	return d, outcome
}

func searchDocs(t *testing.T, ix *Index, q DocQuery) []DocHit {
	t.Helper()
	hits, err := ix.SearchDocs(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	return hits
}

func TestDocumentsAreFoundByWordsAndOnlyByTheirUser(t *testing.T) {
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), nil, "")
	d, outcome := addDoc(t, ix, "alice", "/docs/boiler.md", "", "The boiler pressure should sit between one and two bar.", "Bleed the radiators every autumn.")
	if outcome != docstore.Added || d.Chunks != 2 {
		t.Fatalf("added %v with %d chunks", outcome, d.Chunks)
	}
	// Only the passage that holds the word: no expansion from it to its
	// sibling.
	hits := searchDocs(t, ix, DocQuery{UserID: "alice", Text: "radiators"})
	if len(hits) != 1 || hits[0].Path != "/docs/boiler.md" || hits[0].Page != 2 || hits[0].Chunk != 1 ||
		!strings.Contains(hits[0].Passage, "Bleed the radiators") || hits[0].MatchedBy != MatchKeyword {
		t.Fatalf("hits = %+v", hits)
	}
	if hits := searchDocs(t, ix, DocQuery{UserID: "bob", Text: "radiators"}); len(hits) != 0 {
		t.Fatalf("bob found alice's document: %+v", hits)
	}
	// Turn search does not return document chunks, nor the other way round.
	if res := search(t, ix, "alice", "radiators"); len(res) != 0 {
		t.Fatalf("turn search found a document: %+v", res)
	}
}

func TestAChangedDocumentIsFoundByItsNewTextOnly(t *testing.T) {
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), nil, "")
	d, _ := addDoc(t, ix, "alice", "/docs/plan.md", "", "We meet on the terrace.")
	if _, outcome := addDoc(t, ix, "alice", "/docs/plan.md", "", "We meet on the terrace."); outcome != docstore.Unchanged {
		t.Fatalf("re-adding the same bytes: %v", outcome)
	}
	d2, outcome := addDoc(t, ix, "alice", "/docs/plan.md", "", "We meet in the library.")
	if outcome != docstore.Updated || d2.ID != d.ID {
		t.Fatalf("changed file: %v, id %s then %s", outcome, d.ID, d2.ID)
	}
	if hits := searchDocs(t, ix, DocQuery{UserID: "alice", Text: "terrace"}); len(hits) != 0 {
		t.Fatalf("old text still found: %+v", hits)
	}
	if hits := searchDocs(t, ix, DocQuery{UserID: "alice", Text: "library"}); len(hits) != 1 || !strings.Contains(hits[0].Passage, "library") {
		t.Fatalf("new text not found: %+v", hits)
	}
}

func TestRemovedDocumentsLeaveSearchAndTheirVectors(t *testing.T) {
	s := openTest(t)
	emb := &topicEmbedder{}
	ix := openIndex(t, s, t.TempDir(), emb, "m")
	d, _ := addDoc(t, ix, "alice", "/docs/cats.md", "pets", "Our kitten sleeps on the radiator.")
	addDoc(t, ix, "alice", "/docs/cars.md", "garage", "Check the tyre pressure monthly.")
	if err := ix.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	// By meaning: "feline" is not in the text.
	hits := searchDocs(t, ix, DocQuery{UserID: "alice", Text: "feline"})
	if len(hits) == 0 || hits[0].DocumentID != d.ID || hits[0].MatchedBy != MatchVector {
		t.Fatalf("by meaning: %+v", hits)
	}
	// About nothing in the documents: nothing, not the least unlike passages.
	if hits := searchDocs(t, ix, DocQuery{UserID: "alice", Text: "sourdough"}); len(hits) != 0 {
		t.Fatalf("an unrelated query found %+v", hits)
	}
	if hits := searchDocs(t, ix, DocQuery{UserID: "alice", Text: "tyre kitten", Collection: "pets"}); len(hits) != 1 || hits[0].Collection != "pets" {
		t.Fatalf("collection filter: %+v", hits)
	}
	if err := ix.RemoveDocuments(context.Background(), "alice", []string{d.ID}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"kitten", "feline"} {
		for _, h := range searchDocs(t, ix, DocQuery{UserID: "alice", Text: q}) {
			if h.DocumentID == d.ID {
				t.Fatalf("%q still finds the removed document", q)
			}
		}
	}
	if n := rowsOf(t, s, `SELECT COUNT(*) FROM embeddings WHERE owner_id LIKE ?`, d.ID+"%"); n != 0 {
		t.Fatalf("%d vectors of the removed document left", n)
	}
	if _, err := ix.Docs().Get(context.Background(), "alice", d.ID); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("get removed: %v", err)
	}
}

func TestChunksWrittenByAnotherProcessAreIndexedByTheBackgroundWork(t *testing.T) {
	s := openTest(t)
	dir := t.TempDir()
	ix := openIndex(t, s, dir, nil, "")
	// Another process (or a sync) writes straight to the store.
	other, err := docstore.Open(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	d, _, err := other.Put(context.Background(), docstore.New{UserID: "alice", Path: "/x.txt", Type: "text", Size: 5, Hash: "h1",
		Pieces: []docstore.Piece{{Text: "sourdough starter feeding schedule"}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if hits := searchDocs(t, ix, DocQuery{UserID: "alice", Text: "sourdough"}); len(hits) != 1 {
		t.Fatalf("not indexed: %+v", hits)
	}
	if err := other.Remove(context.Background(), "alice", []string{d.ID}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if hits := searchDocs(t, ix, DocQuery{UserID: "alice", Text: "sourdough"}); len(hits) != 0 {
		t.Fatalf("removed elsewhere, still found: %+v", hits)
	}
}

func TestSnippetCentresOnTheQuery(t *testing.T) {
	ix := openIndex(t, openTest(t), t.TempDir(), nil, "")
	long := strings.Repeat("filler words here ", 40) + "the boiler manual says bleed it" + strings.Repeat(" more", 40)
	got := ix.snippet(long, "Boilers?", 80) // matched as search matches: by stem
	if !strings.HasPrefix(got, "…") || !strings.Contains(got, "boiler manual") {
		t.Fatalf("snippet = %q", got)
	}
	if got := ix.snippet("short text", "absent", 80); got != "short text" {
		t.Fatalf("snippet = %q", got)
	}
	// Cut where a character begins, with its lead counted in characters:
	// "Рх" is D0 A0 D1 85, bytes a byte-wise space test took for spaces.
	cyr := strings.Repeat("Рх ", 60) + "boiler " + strings.Repeat("Рх ", 60)
	got = ix.snippet(cyr, "boiler", 80)
	if !utf8.ValidString(got) || !strings.HasPrefix(got, "…Рх") || !strings.Contains(got, "boiler") || utf8.RuneCountInString(got) > 81 {
		t.Fatalf("snippet of Cyrillic = %q", got)
	}
	if lead := utf8.RuneCountInString(got[:strings.Index(got, "boiler")]); lead < 20 || lead > 28 {
		t.Fatalf("%d characters before the match, want about a third of 80: %q", lead, got)
	}
}

func TestARelevantPassageIsRecalledAndAnUnrelatedOneIsNot(t *testing.T) {
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), nil, "")
	addDoc(t, ix, "alice", "/docs/boiler.md", "", "To reset the boiler, hold the crimson button for ten seconds.", "The garden hose is in the shed.")
	h, ok, err := ix.RecallPassage(context.Background(), PassageQuery{UserID: "alice", Text: "How do I reset the boiler?"})
	if err != nil || !ok || !strings.Contains(h.Passage, "crimson") {
		t.Fatalf("recall = %+v, %v, %v", h, ok, err)
	}
	// One shared word is not enough to spend the prompt on a passage.
	for _, prompt := range []string{"Is the boiler noisy at night when it rains?", "what is the weather like today", "reset"} {
		if h, ok, _ := ix.RecallPassage(context.Background(), PassageQuery{UserID: "alice", Text: prompt}); ok {
			t.Errorf("%q recalled %q", prompt, h.Passage)
		}
	}
	if _, ok, _ := ix.RecallPassage(context.Background(), PassageQuery{UserID: "bob", Text: "How do I reset the boiler?"}); ok {
		t.Error("bob recalled alice's passage")
	}
}

// TestAttachedDocumentsAreReadIntoThePrompt: the passages of documents
// just attached go into the prompt with no bar to pass (a model without
// tools never saw an attached file): a small document whole and in order,
// a larger one by what suits the prompt, then from its start; never
// another document's, nor another user's.
func TestAttachedDocumentsAreReadIntoThePrompt(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), nil, "")
	code, _ := addDoc(t, ix, "alice", "/docs/garden.txt", "", "The gate code is 4711.", "Water the roses on Sundays.")
	long, _ := addDoc(t, ix, "alice", "/docs/manual.md", "", "Chapter one is about safety.", "Chapter two is about setup.",
		"To reset the boiler, hold the crimson button.", "Chapter four is about cleaning.")
	addDoc(t, ix, "alice", "/docs/other.md", "", "The gate code of the neighbours is 1234.")
	passages := func(q AttachedQuery) []string {
		t.Helper()
		hits, err := ix.AttachedPassages(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			out = append(out, h.Passage)
		}
		return out
	}
	if got := passages(AttachedQuery{UserID: "alice", Text: "What is in the file I just attached?", Documents: []string{code.ID}}); strings.Join(got, "|") != "The gate code is 4711.|Water the roses on Sundays." {
		t.Fatalf("a small document: %q", got)
	}
	if got := passages(AttachedQuery{UserID: "alice", Text: "how do I reset the boiler?", Documents: []string{long.ID}}); len(got) != 3 ||
		!strings.Contains(got[0], "crimson") || got[1] != "Chapter one is about safety." || got[2] != "Chapter two is about setup." {
		t.Fatalf("a larger document: %q", got)
	}
	if got := passages(AttachedQuery{UserID: "bob", Text: "gate code", Documents: []string{code.ID}}); len(got) != 0 {
		t.Fatalf("bob read alice's document: %q", got)
	}
}

func TestAPassageCloseInMeaningIsRecalled(t *testing.T) {
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), &topicEmbedder{}, "m")
	addDoc(t, ix, "alice", "/docs/pets.md", "", "Our kitten sleeps all day.")
	if err := ix.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	h, ok, err := ix.RecallPassage(context.Background(), PassageQuery{UserID: "alice", Text: "tell me about my feline"})
	if err != nil || !ok || h.MatchedBy == MatchKeyword {
		t.Fatalf("recall = %+v, %v, %v", h, ok, err)
	}
	if h, ok, _ := ix.RecallPassage(context.Background(), PassageQuery{UserID: "alice", Text: "sourdough flour ratios"}); ok {
		t.Errorf("an unrelated prompt recalled %q", h.Passage)
	}
}

// TestOnePromptIsEmbeddedOnce: recalling notes and a passage for the same
// prompt asks the embedding model once.
func TestOnePromptIsEmbeddedOnce(t *testing.T) {
	s := openTest(t)
	emb := &topicEmbedder{}
	ix := openIndex(t, s, t.TempDir(), emb, "m")
	addDoc(t, ix, "alice", "/docs/pets.md", "", "Our kitten sleeps all day.")
	if _, err := ix.SaveNote(context.Background(), "alice", "The user has a kitten called Tom.", memory.NoteSource{}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	before := emb.Count()
	if _, err := ix.Recall(context.Background(), RecallQuery{UserID: "alice", Text: "tell me about my feline"}); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := ix.RecallPassage(context.Background(), PassageQuery{UserID: "alice", Text: "tell me about my feline"}); err != nil || !ok {
		t.Fatalf("passage: %v %v", ok, err)
	}
	if n := emb.Count() - before; n != 1 {
		t.Fatalf("the prompt was embedded %d times", n)
	}
}
