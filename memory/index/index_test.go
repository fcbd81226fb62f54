package index

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index/indextest"
)

// topicEmbedder is the scripted topic embedding model (indextest).
type topicEmbedder = indextest.TopicEmbedder

// chat stores one exchange in a new conversation of user (indextest.Chat).
var chat = indextest.Chat

func openIndex(t *testing.T, s *memory.Store, dir string, e EmbedClient, model string) *Index {
	t.Helper()
	opts := IndexOptions{}
	if e != nil {
		opts.Embed, opts.Model = e, EmbedModel{Name: model, ContextLength: 512}
	}
	ix, err := OpenIndex(context.Background(), s, dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	return ix
}

func search(t *testing.T, ix *Index, user, text string) []SearchResult {
	t.Helper()
	res, err := ix.Search(context.Background(), SearchQuery{UserID: user, Text: text})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func seed(t *testing.T, s *memory.Store) (cats, cars memory.Conversation) {
	cats = chat(t, s, "alice", "Pets", "My kitten keeps scratching the sofa", "Try a scratching post.",
		"What should I name her?", "How about Luna?")
	cars = chat(t, s, "alice", "Garage", "The engine makes a rattling noise", "Check the heat shield.")
	chat(t, s, "bob", "Bob's bakery", "How do I bake sourdough bread?", "Feed your starter first.")
	return cats, cars
}

func TestKeywordSearchFindsTheTurn(t *testing.T) {
	s := openTest(t)
	cats, _ := seed(t, s)
	ix := openIndex(t, s, t.TempDir(), nil, "")
	if err := ix.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := search(t, ix, "alice", "what name for her")
	if len(res) == 0 || res[0].ConversationID != cats.ID || res[0].Turn != 2 {
		t.Fatalf("results = %+v", res)
	}
	r := res[0]
	if r.Title != "Pets" || r.Snippet != "What should I name her?" || r.MatchedBy != MatchKeyword || r.Distance != nil || r.Score <= 0 {
		t.Fatalf("result = %+v", r)
	}
	st, _ := ix.Status(context.Background())
	if !st.KeywordOnly || st.Turns != 4 {
		t.Fatalf("status = %+v", st)
	}
}

// A hit found by its words shows those words: in what the user said when
// they are there, else in the answer, not the start of a question that
// does not hold them.
func TestWordHitShowsTheWordsItMatched(t *testing.T) {
	s := openTest(t)
	filler := strings.Repeat("we went over the plans for the week again, ", 8)
	long := chat(t, s, "alice", "Errands", filler+"and then the Passport renewal form.", "Bring two photos.")
	trip := chat(t, s, "alice", "Trip", "Where should we go in spring?", "Lisbon is lovely in April: mild and sunny.")
	ix := openIndex(t, s, t.TempDir(), nil, "")
	if err := ix.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := search(t, ix, "alice", "passport")
	if len(res) == 0 || res[0].ConversationID != long.ID {
		t.Fatalf("passport: %+v", res)
	}
	if sn := res[0].Snippet; !strings.HasPrefix(sn, "…") || !strings.Contains(sn, "Passport renewal") || len([]rune(sn)) > memory.SnippetRunes {
		t.Fatalf("passport snippet = %q, want the words around Passport", sn)
	}
	res = search(t, ix, "alice", "lisbon")
	if len(res) == 0 || res[0].ConversationID != trip.ID || !strings.Contains(res[0].Snippet, "Lisbon is lovely") {
		t.Fatalf("lisbon: %+v, want the answer's words", res)
	}
	// The words are matched as search matches them: "renewing" finds
	// "renewal"'s turn by its stem, and "the", a stop word, shows nothing.
	// A word after a French elision is found, and shown.
	riviera := chat(t, s, "alice", "Riviera", "We drove along the Côte d'Azur in May", "Lovely.")
	if err := ix.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	res = search(t, ix, "alice", "Azur")
	if len(res) == 0 || res[0].ConversationID != riviera.ID || !strings.Contains(res[0].Snippet, "d'Azur") {
		t.Fatalf("azur: %+v", res)
	}
	res = search(t, ix, "alice", "the renewing")
	if len(res) == 0 || res[0].ConversationID != long.ID || !strings.Contains(res[0].Snippet, "Passport renewal") {
		t.Fatalf("the renewing: %+v", res)
	}
	// Text written without spaces is found by a part of it.
	tokyo := chat(t, s, "alice", "旅行", "昨日は東京タワーに行きました", "いいですね。")
	if err := ix.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{"東京", "タワー", "東京タワー"} {
		if res = search(t, ix, "alice", q); len(res) == 0 || res[0].ConversationID != tokyo.ID || !strings.Contains(res[0].Snippet, "東京タワー") {
			t.Fatalf("%s: %+v", q, res)
		}
	}
}

func TestHybridSearchFusesVectorAndKeyword(t *testing.T) {
	s := openTest(t)
	cats, _ := seed(t, s)
	emb := &topicEmbedder{}
	ix := openIndex(t, s, t.TempDir(), emb, "topics")
	if err := ix.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	if st, _ := ix.Status(context.Background()); st.Pending != 0 || st.KeywordOnly {
		t.Fatalf("status after drain = %+v", st)
	}
	// "feline" shares no word with the kitten turn: only meaning finds it.
	res := search(t, ix, "alice", "feline")
	if len(res) == 0 || res[0].ConversationID != cats.ID || res[0].Turn != 1 || res[0].MatchedBy != MatchVector || res[0].Distance == nil {
		t.Fatalf("vector-only results = %+v", res)
	}
	// "kitten" is found both ways.
	res = search(t, ix, "alice", "kitten")
	if len(res) == 0 || res[0].MatchedBy != MatchBoth || *res[0].Distance > 0.1 {
		t.Fatalf("both results = %+v", res)
	}
	// Bob's turns never show up for alice, by either ranking.
	for _, r := range search(t, ix, "alice", "sourdough bread bake") {
		if strings.Contains(r.Snippet, "sourdough") {
			t.Fatalf("alice sees bob's turn: %+v", r)
		}
	}
	if res := search(t, ix, "bob", "kitten sofa"); len(res) != 0 && strings.Contains(res[0].Snippet, "kitten") {
		t.Fatalf("bob sees alice's turn: %+v", res)
	}
}

// TestSearchByMeaningNeedsAMatch: with MinSimilarity, a turn found only
// by meaning must be that close to the query: a query of a topic no turn
// has finds nothing (a vector ranking orders every turn, and "???" listed
// them all); one of a turn's topic still finds it; a keyword hit stays.
func TestSearchByMeaningNeedsAMatch(t *testing.T) {
	s := openTest(t)
	cats, cars := seed(t, s)
	ix := openIndex(t, s, t.TempDir(), &topicEmbedder{}, "topics")
	if err := ix.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	find := func(text string, min float64) []SearchResult {
		t.Helper()
		res, err := ix.Search(context.Background(), SearchQuery{UserID: "alice", Text: text, MinSimilarity: min})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	if res := find("alfama", 0); len(res) == 0 {
		t.Fatal("without a floor, the vector ranking finds nothing")
	}
	if res := find("alfama", 0.5); len(res) != 0 {
		t.Fatalf("a query of a topic no turn has finds %+v", res)
	}
	if res := find("feline", 0.5); len(res) == 0 || res[0].ConversationID != cats.ID || res[0].MatchedBy != MatchVector {
		t.Fatalf("a query of the cat topic finds %+v", res)
	}
	for _, r := range find("feline", 0.5) {
		if r.ConversationID == cars.ID {
			t.Fatalf("the car turn, of another topic, matches %q: %+v", "feline", r)
		}
	}
	if res := find("rattling", 0.5); len(res) == 0 || res[0].ConversationID != cars.ID {
		t.Fatalf("a keyword hit is gone: %+v", res)
	}
}

// TestRareWordBeatsLookAlikes: a turn that holds the query's rare word
// ("zebra1x29", an error code) comes first in hybrid search, though far
// in meaning, above turns that only resemble it: found by meaning and by
// the keyword ranking's related words, they came first, twenty of them.
func TestRareWordBeatsLookAlikes(t *testing.T) {
	s := openTest(t)
	var exact memory.Conversation
	for i := range 30 {
		if i == 29 {
			exact = chat(t, s, "alice", "Scripts", "script asks about zebra1x29 near the tram", "You said so.")
			continue
		}
		chat(t, s, "alice", "Scripts", fmt.Sprintf("script asks about zebra1x%d", i), "You said so.")
	}
	ix := openIndex(t, s, t.TempDir(), &topicEmbedder{}, "topics")
	if err := ix.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	res := search(t, ix, "alice", "zebra1x29")
	if len(res) == 0 || res[0].ConversationID != exact.ID {
		t.Fatalf("zebra1x29: %+v", res)
	}
}

func TestContentHashSkipsUnchangedTurns(t *testing.T) {
	s := openTest(t)
	cats, _ := seed(t, s)
	emb := &topicEmbedder{}
	ix := openIndex(t, s, t.TempDir(), emb, "topics")
	ctx := context.Background()
	ix.Drain(ctx)
	first := emb.Count()
	if first != 4 {
		t.Fatalf("embedded %d texts, want 4 turns", first)
	}
	ix.Notify(memory.ConversationRef{UserID: "alice", ConversationID: cats.ID})
	ix.Drain(ctx)
	if emb.Count() != first {
		t.Fatalf("unchanged turns were embedded again (%d -> %d)", first, emb.Count())
	}
	// A new answer in the last turn changes only that turn.
	s.AppendMessage(ctx, "alice", memory.Message{ConversationID: cats.ID, Role: memory.RoleAssistant, Content: "Or Tom."})
	ix.Notify(memory.ConversationRef{UserID: "alice", ConversationID: cats.ID})
	ix.Drain(ctx)
	if got := emb.Inputs[len(emb.Inputs)-1]; emb.Count() != first+1 || !strings.Contains(got, "Or Tom.") {
		t.Fatalf("re-embedded %d texts, last %q", emb.Count()-first, got)
	}
}

func TestModelChangeReembedsWhileSearchGoesOn(t *testing.T) {
	s := openTest(t)
	seed(t, s)
	dir := t.TempDir()
	ctx := context.Background()
	old := openIndex(t, s, dir, &topicEmbedder{}, "model-a")
	old.Drain(ctx)
	old.Close()

	emb := &topicEmbedder{}
	ix := openIndex(t, s, dir, emb, "model-b")
	if st, _ := ix.Status(ctx); st.Pending != 4 {
		t.Fatalf("pending after a model change = %d, want 4", st.Pending)
	}
	// Before re-embedding, search still answers by keyword.
	if res := search(t, ix, "alice", "engine noise"); len(res) == 0 || res[0].MatchedBy != MatchKeyword {
		t.Fatalf("search during re-embedding = %+v", res)
	}
	ix.Drain(ctx)
	if st, _ := ix.Status(ctx); st.Pending != 0 || emb.Count() != 4 {
		t.Fatalf("after re-embedding: %+v, %d embedded", st, emb.Count())
	}
	if res := search(t, ix, "alice", "vehicle"); len(res) == 0 || res[0].MatchedBy != MatchVector {
		t.Fatalf("search with the new model = %+v", res)
	}
}

func TestIndexRepairsItself(t *testing.T) {
	s := openTest(t)
	seed(t, s)
	dir := t.TempDir()
	ctx := context.Background()
	ix := openIndex(t, s, dir, nil, "")
	ix.Drain(ctx)
	ix.Close()

	cases := map[string]func(){
		"deleted": func() { os.RemoveAll(filepath.Join(dir, "keyword")) },
		"corrupt": func() {
			kw := filepath.Join(dir, "keyword")
			os.RemoveAll(kw)
			os.MkdirAll(kw, 0o700)
			os.WriteFile(filepath.Join(kw, "index_meta.json"), []byte("{garbage"), 0o600)
		},
		"stale": func() { s.SetLocalMeta(ctx, metaKeywordID, "another-index") },
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			damage()
			ix := openIndex(t, s, dir, nil, "")
			if err := ix.Drain(ctx); err != nil {
				t.Fatal(err)
			}
			if res := search(t, ix, "alice", "rattling engine"); len(res) == 0 || res[0].Title != "Garage" {
				t.Fatalf("after repair: %+v", res)
			}
			ix.Close()
		})
	}
}

func TestLongTurnsAreChunked(t *testing.T) {
	s := openTest(t)
	long := strings.Repeat("Some unrelated filler words about nothing much. ", 60) + "At the very end: my kitten."
	c := chat(t, s, "alice", "Long", long, "ok")
	emb := &topicEmbedder{}
	ix, err := OpenIndex(context.Background(), s, t.TempDir(), IndexOptions{Embed: emb, Model: EmbedModel{Name: "m", ContextLength: 100}})
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	ix.Drain(context.Background())
	var chunks int
	s.DB().QueryRow(`SELECT COUNT(*) FROM embeddings WHERE owner_id = ?`, memory.TurnID(c.ID, 1)).Scan(&chunks)
	if chunks < 3 {
		t.Fatalf("%d chunks stored", chunks)
	}
	res := search(t, ix, "alice", "feline")
	if len(res) != 1 || res[0].MatchedBy != MatchVector || *res[0].Distance > 0.1 {
		t.Fatalf("the turn should rank by its best chunk: %+v", res)
	}
}

func TestCatchUpAndArchived(t *testing.T) {
	s := openTest(t)
	_, cars := seed(t, s) // written with no index open: the index must catch up
	ix := openIndex(t, s, t.TempDir(), nil, "")
	ctx := context.Background()
	ix.Drain(ctx)
	if res := search(t, ix, "alice", "heat shield"); len(res) != 1 {
		t.Fatalf("catch-up: %+v", res)
	}
	s.SetArchived(ctx, "alice", cars.ID, true)
	if res := search(t, ix, "alice", "heat shield"); len(res) != 0 {
		t.Fatalf("archived conversation searched: %+v", res)
	}
	res, _ := ix.Search(ctx, SearchQuery{UserID: "alice", Text: "heat shield", IncludeArchived: true})
	if len(res) != 1 {
		t.Fatalf("--archived: %+v", res)
	}
	if _, err := ix.Search(ctx, SearchQuery{UserID: "alice", Text: "x", Limit: 51}); !errors.Is(err, memory.ErrInvalid) {
		t.Fatalf("limit 51: %v", err)
	}
}

func TestEmbeddingFailureKeepsKeywordSearch(t *testing.T) {
	s := openTest(t)
	seed(t, s)
	emb := &topicEmbedder{Fail: errors.New("connection refused")}
	ix := openIndex(t, s, t.TempDir(), emb, "topics")
	ctx := context.Background()
	if err := ix.Drain(ctx); err != nil {
		t.Fatalf("drain must not fail on embeddings: %v", err)
	}
	st, _ := ix.Status(ctx)
	if st.EmbedError == "" || st.Pending != 4 {
		t.Fatalf("status = %+v", st)
	}
	if res := search(t, ix, "alice", "kitten"); len(res) == 0 || res[0].MatchedBy != MatchKeyword {
		t.Fatalf("search without embeddings: %+v", res)
	}
	emb.Mu.Lock()
	emb.Fail = nil
	emb.Mu.Unlock()
	ix.Drain(ctx)
	if st, _ := ix.Status(ctx); st.EmbedError != "" || st.Pending != 0 {
		t.Fatalf("after recovery: %+v", st)
	}
}
