package index

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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

// TestRecallOnceATextSavedTwice: a text saved twice (two scripts, an add
// repeated) is recalled once, and its copy's slot goes to the next note.
func TestRecallOnceATextSavedTwice(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), &topicEmbedder{}, "topics")
	for _, text := range []string{"My cat is called Tom", "My cat is called Tom", "I bake bread", "My car"} {
		if _, err := ix.SaveNote(ctx, "alice", text, memory.NoteSource{}); err != nil {
			t.Fatal(err)
		}
	}
	res, err := ix.Recall(ctx, RecallQuery{UserID: "alice", Text: "Tom the cat, and bread", Limit: 2})
	if got := noteTexts(res); err != nil || strings.Count(got, "Tom") != 1 || !strings.Contains(got, "bread") {
		t.Fatalf("recalled %q (%v)", got, err)
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

// TestRecallPrefersSureFreshUsedNotes: among notes that match a prompt
// equally, recall ranks the one changed or used recently, and the more
// used one, first. Recalled notes and notes memory_search returns count as
// used; searches by the user do not.
func TestRecallPrefersSureFreshUsedNotes(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 1, 1, 12, 0, 0, 0, time.UTC)
	s, err := memory.Open(ctx, filepath.Join(t.TempDir(), memory.DBFileName), memory.WithClock(func() time.Time { return clock }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	ix := openIndex(t, s, t.TempDir(), nil, "")
	save := func(text string) memory.Note {
		t.Helper()
		n, err := ix.SaveNote(ctx, "alice", text, memory.NoteSource{})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	recall := func() string {
		t.Helper()
		res, err := ix.Recall(ctx, RecallQuery{UserID: "alice", Text: "garden tomatoes", Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		return noteTexts(res)
	}
	old := save("Grows tomatoes in the garden (old note)")
	clock = clock.Add(300 * 24 * time.Hour)
	save("Grows tomatoes in the garden (new note)")
	if got := recall(); !strings.HasPrefix(got, "Grows tomatoes in the garden (new note)") {
		t.Fatalf("the note 300 days older comes first: %q", got)
	}
	// Recall used both notes; using the old one again (memory_search)
	// makes it as fresh, and more used: it comes first now.
	if _, err := ix.SearchNotes(ctx, NoteQuery{UserID: "alice", Text: "Grows tomatoes in the garden (old note)", Limit: 1, Touch: true}); err != nil {
		t.Fatal(err)
	}
	if got := recall(); !strings.HasPrefix(got, "Grows tomatoes in the garden (old note)") {
		t.Fatalf("the more used note does not come first: %q", got)
	}
	notes, err := s.ListNotes(ctx, "alice")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range notes {
		want := 2 // two recalls
		if n.ID == old.ID {
			want = 3 // and one memory_search
		}
		if n.AccessCount != want || n.LastAccessed == nil || !n.LastAccessed.Equal(clock) {
			t.Errorf("%q: used %d times, last %v; want %d, %v", n.Content, n.AccessCount, n.LastAccessed, want, clock)
		}
	}
	// The user's own searches do not count.
	searchNotes(t, ix, "alice", "tomatoes")
	if n, _ := s.Note(ctx, "alice", old.ID); n.AccessCount != 3 {
		t.Errorf("a user's search counted as a use: %d", n.AccessCount)
	}
}

func TestRecallScore(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	half := 90 * 24 * time.Hour
	n := memory.Note{Confidence: 1, Updated: now}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if got := RecallScore(0.8, n, now, half); !near(got, 0.8) {
		t.Errorf("a sure, fresh, unused note keeps its relevance: %v", got)
	}
	n.Updated = now.Add(-half)
	if got := RecallScore(0.8, n, now, half); !near(got, 0.8*0.75) {
		t.Errorf("one half-life unused: %v, want %v", got, 0.8*0.75)
	}
	n.Updated, n.Confidence = now, 0
	if got := RecallScore(1, n, now, half); !near(got, 0.6) {
		t.Errorf("confidence 0: %v", got)
	}
	n.Confidence, n.AccessCount = 1, 3
	if got := RecallScore(1, n, now, half); !near(got, 1+0.1*math.Log(4)) {
		t.Errorf("used 3 times: %v", got)
	}
}

// TestNoteSearchLeavesOutWhatIsNoMatch: a note that shares no word with the
// query (found only through the words of the best hit) is marked related
// and never recalled; by meaning, a note less similar than the floor is no
// match; and a search reads only the statuses asked for.
func TestNoteSearchLeavesOutWhatIsNoMatch(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	words := openIndex(t, s, t.TempDir(), nil, "")
	for _, text := range []string{"Is allergic to peanuts and likes spicy food", "Likes jazz"} {
		if _, err := words.SaveNote(ctx, "alice", text, memory.NoteSource{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, r := range searchNotes(t, words, "alice", "which snacks contain peanuts?") {
		if r.Content == "Likes jazz" && r.MatchedBy != MatchRelated {
			t.Fatalf("a note without the query's words matched by %s", r.MatchedBy)
		}
	}
	res, err := words.Recall(ctx, RecallQuery{UserID: "alice", Text: "which snacks contain peanuts?"})
	if got := noteTexts(res); err != nil || got != "Is allergic to peanuts and likes spicy food" {
		t.Fatalf("recalled %q (%v)", got, err)
	}

	s = openTest(t)
	ix := openIndex(t, s, t.TempDir(), &topicEmbedder{}, "topics")
	notes := map[string]memory.Note{}
	for _, text := range []string{"My cat is called Tom", "My kitten sleeps a lot", "My car needs new tyres"} {
		n, err := ix.SaveNote(ctx, "alice", text, memory.NoteSource{Pending: text == "My kitten sleeps a lot"})
		if err != nil {
			t.Fatal(err)
		}
		notes[text] = n
	}
	if _, err := ix.SetNoteStatus(ctx, "alice", notes["My car needs new tyres"].ID, memory.NoteArchived); err != nil {
		t.Fatal(err)
	}
	find := func(text string, statuses []string) string {
		t.Helper()
		res, err := ix.SearchNotes(ctx, NoteQuery{UserID: "alice", Text: text, Statuses: statuses, MinSimilarity: DefaultRecallSimilarity})
		if err != nil {
			t.Fatal(err)
		}
		return noteTexts(res)
	}
	if got := find("weather in Lisbon", nil); got != "" {
		t.Fatalf("an unrelated query found %q", got)
	}
	for _, c := range []struct {
		statuses []string
		want     string
	}{
		{InUse, "My cat is called Tom"},
		{NotAside, "My cat is called Tom | My kitten sleeps a lot"},
	} {
		if got := find("my cat and my car", c.statuses); got != c.want {
			t.Fatalf("statuses %v found %q, want %q", c.statuses, got, c.want)
		}
	}
	if got := find("my car", nil); !strings.Contains(got, "tyres") {
		t.Fatalf("every status: %q", got)
	}
}

// TestUpdateNoteFromKeepsAnEditMadeMeanwhile: a change decided on a text
// the note no longer has is refused, and the note keeps the newer text.
func TestUpdateNoteFromKeepsAnEditMadeMeanwhile(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), nil, "")
	n, err := ix.SaveNote(ctx, "alice", "Has a cat called Tom", memory.NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.UpdateNote(ctx, "alice", n.ID, "Has a cat called Tom, who is 12"); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.UpdateNoteFrom(ctx, "alice", n.ID, "Has a cat called Tom", "Has a Maine Coon called Tom"); !errors.Is(err, ErrNoteChanged) {
		t.Fatalf("an update over a stale text: %v", err)
	}
	if got, err := s.Note(ctx, "alice", n.ID); err != nil || got.Content != "Has a cat called Tom, who is 12" {
		t.Fatalf("the note after a stale update: %q, %v", got.Content, err)
	}
	if got, err := ix.UpdateNoteFrom(ctx, "alice", n.ID, "Has a cat called Tom, who is 12", "Has a Maine Coon called Tom, 12"); err != nil || got.Content != "Has a Maine Coon called Tom, 12" {
		t.Fatalf("an update over the current text: %+v, %v", got, err)
	}
}

// TestApprovePendingByItsText: the text of a note waiting for review,
// saved by the user, is that note approved, not a second copy; it is not
// a kept note (the model's memory_save does not approve it).
func TestApprovePendingByItsText(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), nil, "")
	p, err := ix.SaveNote(ctx, "alice", "Lives in Porto", memory.NoteSource{By: memory.SourceExtracted, Confidence: 0.8, Pending: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok, err := ix.KeptNote(ctx, "alice", "Lives in Porto"); err != nil || ok {
		t.Fatalf("a note waiting for review taken for a kept one (the model's memory_save would approve it): %v, %v", ok, err)
	}
	n, ok, err := ix.ApprovePending(ctx, "alice", "Lives  in Porto")
	if err != nil || !ok || n.ID != p.ID || n.Status != memory.NoteActive {
		t.Fatalf("approved note = %+v, %v, %v", n, ok, err)
	}
	if all, err := s.ListNotes(ctx, "alice"); err != nil || len(all) != 1 {
		t.Fatalf("notes = %+v, %v", all, err)
	}
}

// TestUndoingAnApprovalBringsBackWhatItReplaced: undoing the approval of a
// note that replaced another undoes the whole review: the note waits again
// and the one it replaced is back.
func TestUndoingAnApprovalBringsBackWhatItReplaced(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), nil, "")
	berlin, err := ix.SaveNote(ctx, "alice", "Lives in Berlin", memory.NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	lisbon, err := ix.SaveNote(ctx, "alice", "Lives in Lisbon", memory.NoteSource{Pending: true, Replaces: berlin.ID})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.SetNoteStatus(ctx, "alice", lisbon.ID, memory.NoteActive); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Note(ctx, "alice", berlin.ID); !errors.Is(err, memory.ErrNoteNotFound) {
		t.Fatalf("the approval kept the replaced note: %v", err)
	}
	if _, n, err := ix.Undo(ctx, "alice", "", lisbon.ID); err != nil || n.Status != memory.NotePending {
		t.Fatalf("undo of the approval: %+v, %v", n, err)
	}
	if n, err := s.Note(ctx, "alice", berlin.ID); err != nil || n.Content != "Lives in Berlin" || n.Status != memory.NoteActive {
		t.Fatalf("the replaced note after the undo: %+v, %v", n, err)
	}
	if got := noteTexts(searchNotes(t, ix, "alice", "Berlin")); !strings.HasPrefix(got, "Lives in Berlin") {
		t.Fatalf("search after the undo: %q", got)
	}
}

// TestTwoProposalsForOneFactLeaveOne: two pending notes learnt to replace
// the same kept one ("Lives in Porto", then "Lives in Munich", both for
// "Lives in Lisbon"), both approved: the later approval replaces the first
// (both stayed, contradicting each other); undoing it brings the first back.
func TestTwoProposalsForOneFactLeaveOne(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), nil, "")
	lisbon, err := ix.SaveNote(ctx, "alice", "Lives in Lisbon", memory.NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	var proposals []memory.Note
	for _, text := range []string{"Lives in Porto", "Lives in Munich"} {
		n, err := ix.SaveNote(ctx, "alice", text, memory.NoteSource{Pending: true, Replaces: lisbon.ID})
		if err != nil {
			t.Fatal(err)
		}
		proposals = append(proposals, n)
	}
	for _, n := range proposals {
		if _, err := ix.SetNoteStatus(ctx, "alice", n.ID, memory.NoteActive); err != nil {
			t.Fatal(err)
		}
	}
	active := func() []string {
		t.Helper()
		list, err := s.ListNotes(ctx, "alice")
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, n := range list {
			if n.Status == memory.NoteActive {
				out = append(out, n.Content)
			}
		}
		return out
	}
	if got := active(); len(got) != 1 || got[0] != "Lives in Munich" {
		t.Fatalf("kept after both approvals: %q", got)
	}
	if _, _, err := ix.Undo(ctx, "alice", "", proposals[1].ID); err != nil {
		t.Fatal(err)
	}
	if got := active(); len(got) != 1 || got[0] != "Lives in Porto" {
		t.Fatalf("kept after undoing the second approval: %q", got)
	}
}

// TestKeptNoteReadsPastCaseAndPunctuation: saving a note again with other
// case or punctuation finds the note kept (`memory add "has a CAT called
// tom!!"` made a third copy of "Has a cat called Tom."), as does one in
// capitals with ß, decomposed, or with a zero-width space or bidi control;
// other words, or the same letters with other symbols, are another note.
func TestKeptNoteReadsPastCaseAndPunctuation(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), nil, "")
	for _, text := range []string{"Has a cat called Tom.", "Uses C#", "Straße in München ist schön"} {
		if _, err := ix.SaveNote(ctx, "alice", text, memory.NoteSource{}); err != nil {
			t.Fatal(err)
		}
	}
	for text, want := range map[string]bool{
		"Has a cat called Tom": true, "has a CAT called tom!!": true, `"Has a cat called Tom."`: true,
		"Has a cat called Tim.": false, "Tom has a cat called": false, "Uses C": false, "uses c#.": true,
		// Folded, composed alike, and without invisible characters.
		"STRASSE IN MÜNCHEN IST SCHÖN": true, "Straße in Mu\u0308nchen ist scho\u0308n": true,
		"Has a ca\u200bt called Tom": true, "Has a cat called Tom\u202e": true, "Has a cot called Tom": false,
	} {
		if _, ok, err := ix.KeptNote(ctx, "alice", text); err != nil || ok != want {
			t.Errorf("KeptNote(%q) = %v, %v; want %v", text, ok, err, want)
		}
	}
}

// TestEditingANoteIntoAnothersTextIsRefused: an edit to the text another
// note holds made a silent copy; it is refused and both notes stay as
// they were, while a note's own text in other case is an edit, and undo
// still puts back a text another note took meanwhile.
func TestEditingANoteIntoAnothersTextIsRefused(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), nil, "")
	cat, err := ix.SaveNote(ctx, "alice", "Has a cat called Tom", memory.NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	city, err := ix.SaveNote(ctx, "alice", "Lives in Porto", memory.NoteSource{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = ix.UpdateNote(ctx, "alice", city.ID, "has a cat called Tom.")
	if !errors.Is(err, ErrSameText) || !strings.Contains(err.Error(), short(cat.ID)) {
		t.Fatalf("an edit into another note's text: %v; want ErrSameText naming %s", err, short(cat.ID))
	}
	if got, err := s.Note(ctx, "alice", city.ID); err != nil || got.Content != "Lives in Porto" {
		t.Fatalf("the refused note: %q, %v", got.Content, err)
	}
	// A note waiting for review would be a copy once approved.
	cello, err := ix.SaveNote(ctx, "alice", "Plays the cello", memory.NoteSource{Pending: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ix.UpdateNote(ctx, "alice", city.ID, "plays the cello"); !errors.Is(err, ErrSameText) || !strings.Contains(err.Error(), short(cello.ID)+", waiting for your review") {
		t.Fatalf("an edit into a pending note's text: %v", err)
	}
	if got, err := ix.UpdateNote(ctx, "alice", cat.ID[:13], "Has a cat called TOM"); err != nil || got.Content != "Has a cat called TOM" {
		t.Fatalf("a note's own text in other case: %+v, %v", got, err)
	}
	// Undo restores a text even when another note has it meanwhile.
	if _, err := ix.UpdateNote(ctx, "alice", city.ID, "Lives in Lisbon"); err != nil {
		t.Fatal(err)
	}
	if _, err := ix.UpdateNote(ctx, "alice", cat.ID, "Lives in Porto"); err != nil {
		t.Fatal(err)
	}
	if _, n, err := ix.Undo(ctx, "alice", "", city.ID); err != nil || n.Content != "Lives in Porto" {
		t.Fatalf("undo into a text another note holds: %q, %v", n.Content, err)
	}
}

// TestRecallNeedsATellingWord: a note the keyword ranking alone found is
// recalled for a telling word it shares with the message, not for one of
// everyday chat or a number ("I woke at 7" recalled "note number 7 about
// giraffes"; "my sister is called Ana", "my cat is called Tom").
func TestRecallNeedsATellingWord(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	ix := openIndex(t, s, t.TempDir(), nil, "") // no embedding model: words alone
	for _, text := range []string{"note number 7 about giraffes", "My cat is called Tom", "Lives in Lisbon",
		"Her name is Ines", "Works at Acme as a nurse", "The PIN hint is 4711"} {
		if _, err := ix.SaveNote(ctx, "alice", text, memory.NoteSource{}); err != nil {
			t.Fatal(err)
		}
	}
	for msg, want := range map[string]string{
		"What time is it? I woke at 7":                    "",
		"Which number should I call first?":               "",
		"Morning! My sister is called Ana":                "",
		"What is my cat's name?":                          "My cat is called Tom",
		"Any tips for a week of walking around Lisbon?":   "Lives in Lisbon",
		"Tell me a fact about giraffes, they are so tall": "note number 7 about giraffes",
		// What people ask their memory about tells.
		"What is her name?":    "Her name is Ines",
		"Where do I work?":     "Works at Acme as a nurse",
		"what was 4711 again?": "The PIN hint is 4711",
	} {
		res, err := ix.Recall(ctx, RecallQuery{UserID: "alice", Text: msg})
		if got := noteTexts(res); err != nil || (want == "") != (got == "") || !strings.Contains(got, want) {
			t.Errorf("%q recalled %q, want %q (%v)", msg, got, want, err)
		}
	}
}
