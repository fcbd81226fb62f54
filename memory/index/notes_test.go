package index

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/memory"
)

func searchNotes(t *testing.T, ix *Index, user, text string) []NoteResult {
	t.Helper()
	res, err := ix.SearchNotes(context.Background(), NoteQuery{UserID: user, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func noteTexts(res []NoteResult) string {
	var out []string
	for _, r := range res {
		out = append(out, r.Content)
	}
	return strings.Join(out, " | ")
}

func TestNoteLifecycle(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	emb := &topicEmbedder{}
	ix := openIndex(t, s, t.TempDir(), emb, "topics")
	conv := chat(t, s, "alice", "Pets", "remember my cat", "ok")

	n, err := ix.SaveNote(ctx, "alice", "  My cat is called Tom  ", memory.NoteSource{ConversationID: conv.ID, TurnNumber: 1})
	if err != nil {
		t.Fatal(err)
	}
	if n.Content != "My cat is called Tom" || n.ConversationID != conv.ID || n.TurnNumber != 1 || n.ID == "" {
		t.Fatalf("saved %+v", n)
	}
	// Found at once, by words and by meaning ("feline" shares no word with it).
	if res := searchNotes(t, ix, "alice", "what is my cat called"); len(res) == 0 || res[0].ID != n.ID || res[0].MatchedBy != MatchBoth {
		t.Fatalf("keyword search: %+v", res)
	}
	if res := searchNotes(t, ix, "alice", "feline"); len(res) == 0 || res[0].ID != n.ID || res[0].Distance == nil || *res[0].Distance > 0.1 {
		t.Fatalf("vector search: %+v", res)
	}

	up, err := ix.UpdateNote(ctx, "alice", n.ID[:8], "My car is a red Fiat")
	if err != nil {
		t.Fatal(err)
	}
	if up.ID != n.ID || up.ConversationID != conv.ID || up.Content != "My car is a red Fiat" {
		t.Fatalf("updated %+v", up)
	}
	if res := searchNotes(t, ix, "alice", "red fiat car"); len(res) != 1 || res[0].Content != "My car is a red Fiat" {
		t.Fatalf("new text not found: %+v", res)
	}
	for _, q := range []string{"Tom", "what is my cat called"} {
		for _, r := range searchNotes(t, ix, "alice", q) {
			if strings.Contains(r.Content, "Tom") || r.MatchedBy != MatchVector {
				t.Fatalf("%q still finds the old text: %+v", q, r)
			}
		}
	}
	if res := searchNotes(t, ix, "alice", "feline"); len(res) != 0 && *res[0].Distance < 0.5 {
		t.Fatalf("the old vectors still match: %+v", res)
	}

	gone, err := ix.DeleteNote(ctx, "alice", n.ID)
	if err != nil || gone.Content != "My car is a red Fiat" {
		t.Fatalf("delete: %+v %v", gone, err)
	}
	for _, q := range []string{"red fiat car", "feline", "Tom"} {
		if res := searchNotes(t, ix, "alice", q); len(res) != 0 {
			t.Fatalf("%q finds a deleted note: %+v", q, res)
		}
	}
	if list, err := s.ListNotes(ctx, "alice"); err != nil || len(list) != 0 {
		t.Fatalf("list after delete: %+v %v", list, err)
	}
	if _, err := ix.DeleteNote(ctx, "alice", n.ID); !errors.Is(err, memory.ErrNoteNotFound) {
		t.Fatalf("second delete: %v", err)
	}
	if _, err := ix.UpdateNote(ctx, "alice", n.ID, "again"); !errors.Is(err, memory.ErrNoteNotFound) || !strings.Contains(err.Error(), "note not found") {
		t.Fatalf("update of a deleted note: %v", err)
	}
}

func TestNotesAreIsolatedByUser(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), &topicEmbedder{}, "topics")
	n, err := ix.SaveNote(ctx, "alice", "My cat is called Tom", memory.NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"cat Tom", "feline"} {
		if res := searchNotes(t, ix, "bob", q); len(res) != 0 {
			t.Fatalf("bob finds alice's note with %q: %+v", q, res)
		}
	}
	if _, err := s.Note(ctx, "bob", n.ID); !errors.Is(err, memory.ErrNoteNotFound) {
		t.Fatalf("bob reads alice's note: %v", err)
	}
	if _, err := ix.UpdateNote(ctx, "bob", n.ID, "hacked"); !errors.Is(err, memory.ErrNoteNotFound) {
		t.Fatalf("bob updates alice's note: %v", err)
	}
	if _, err := ix.DeleteNote(ctx, "bob", n.ID[:8]); !errors.Is(err, memory.ErrNoteNotFound) {
		t.Fatalf("bob deletes alice's note by prefix: %v", err)
	}
	if list, _ := s.ListNotes(ctx, "bob"); len(list) != 0 {
		t.Fatalf("bob lists %+v", list)
	}
	if res := searchNotes(t, ix, "alice", "cat"); len(res) != 1 || res[0].Content != "My cat is called Tom" {
		t.Fatalf("alice's note changed: %+v", res)
	}
	if _, err := ix.SearchNotes(ctx, NoteQuery{Text: "cat"}); !errors.Is(err, memory.ErrNoUser) {
		t.Fatalf("search without a user: %v", err)
	}
}

func TestRecallKeepsRelevantNotes(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), &topicEmbedder{}, "topics")
	for _, text := range []string{"My cat is called Tom", "I bake sourdough bread on Sundays", "My car needs new tyres"} {
		if _, err := ix.SaveNote(ctx, "alice", text, memory.NoteSource{}); err != nil {
			t.Fatal(err)
		}
	}
	recall := func(text string, min float64, limit int) string {
		t.Helper()
		res, err := ix.Recall(ctx, RecallQuery{UserID: "alice", Text: text, MinSimilarity: min, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		return noteTexts(res)
	}
	// By meaning only: the cat note is close, the others are not.
	if got := recall("should the kitten see a vet?", 0.5, 5); got != "My cat is called Tom" {
		t.Fatalf("recalled %q", got)
	}
	// Half about cats, half about cars: similarity about 0.7 to both notes.
	if got := recall("kitten vehicle", 0.6, 5); !strings.Contains(got, "cat") || !strings.Contains(got, "car") {
		t.Fatalf("threshold 0.6 recalled %q", got)
	}
	if got := recall("kitten vehicle", 0.8, 5); got != "" {
		t.Fatalf("threshold 0.8 recalled %q", got)
	}
	// Shared words recall a note whatever its similarity.
	if got := recall("bread", 0.999, 5); got != "I bake sourdough bread on Sundays" {
		t.Fatalf("recalled %q", got)
	}
	if got := recall("weather in Lisbon", 0.5, 5); got != "" {
		t.Fatalf("recalled %q for an unrelated message", got)
	}
	if got := recall("my cat, my bread and my car", 0, 2); strings.Count(got, "|") != 1 {
		t.Fatalf("limit 2 recalled %q", got)
	}
	if got := recall("anything", 0, 5); got == "" {
		t.Fatal("threshold 0 recalled nothing")
	}
	if res, err := ix.Recall(ctx, RecallQuery{UserID: "bob", Text: "kitten bread car"}); err != nil || len(res) != 0 {
		t.Fatalf("bob recalls %+v %v", res, err)
	}
}

func TestNotesSurviveKeywordRebuildAndEmbeddingOutage(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	dir := t.TempDir()
	emb := &topicEmbedder{Fail: errors.New("ollama down")}
	ix := openIndex(t, s, dir, emb, "topics")
	n, err := ix.SaveNote(ctx, "alice", "My cat is called Tom", memory.NoteSource{})
	if err != nil {
		t.Fatalf("a note must save while embeddings fail: %v", err)
	}
	if res := searchNotes(t, ix, "alice", "Tom"); len(res) != 1 {
		t.Fatalf("keyword search while embeddings fail: %+v", res)
	}
	if res := searchNotes(t, ix, "alice", "feline"); len(res) != 0 {
		t.Fatalf("vector hit without vectors: %+v", res)
	}
	emb.Mu.Lock()
	emb.Fail = nil
	emb.Mu.Unlock()
	if err := ix.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if res := searchNotes(t, ix, "alice", "feline"); len(res) != 1 || res[0].ID != n.ID {
		t.Fatalf("the background work did not embed the note: %+v", res)
	}

	// A lost keyword index is rebuilt with the notes in it, and a deleted
	// note stays out.
	other, _ := ix.SaveNote(ctx, "alice", "Tom also likes tuna", memory.NoteSource{})
	if _, err := ix.DeleteNote(ctx, "alice", other.ID); err != nil {
		t.Fatal(err)
	}
	ix.Close()
	if err := os.RemoveAll(filepath.Join(dir, "keyword")); err != nil {
		t.Fatal(err)
	}
	ix2 := openIndex(t, s, dir, nil, "")
	if err := ix2.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := noteTexts(searchNotes(t, ix2, "alice", "Tom")); got != "My cat is called Tom" {
		t.Fatalf("after rebuild: %q", got)
	}
}
