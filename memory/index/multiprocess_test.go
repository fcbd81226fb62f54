package index

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/memory"
)

// Two stores and indexes on one data dir stand for two mneme processes
// (the keyword index and the database files are shared as between
// processes): a chat open in one, `mneme ask` in the other.
func TestAProcessFindsWhatAnotherWrote(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	e := &topicEmbedder{}
	chatStore, askStore := openStoreIn(t, dir), openStoreIn(t, dir)
	chatIx := openIndex(t, chatStore, dir, e, "topics")
	if err := chatIx.Preload(ctx, "alice"); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		chatIx.Run(ctx)
	}()
	defer func() { cancel(); <-done }()

	askIx := openIndex(t, askStore, dir, e, "topics")
	trip := chat(t, askStore, "alice", "Trip", "We take the tram up to Alfama", "Lovely, go early.")
	if err := askIx.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := askStore.SaveNote(ctx, "alice", "Alice prefers window seats", memory.NoteSource{}); err != nil {
		t.Fatal(err)
	}

	// The chat hears of it, and then finds the turn by meaning alone
	// ("portugal" is not in it) and the note by its words.
	deadline := time.After(10 * time.Second)
	for {
		select {
		case <-chatIx.Changes():
		case <-deadline:
			t.Fatalf("the chat did not find the other process's turn by meaning: %+v", search(t, chatIx, "alice", "portugal"))
		}
		res := search(t, chatIx, "alice", "portugal")
		notes, err := chatIx.SearchNotes(ctx, NoteQuery{UserID: "alice", Text: "window seats"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res) > 0 && res[0].ConversationID == trip.ID && res[0].MatchedBy == MatchVector && len(notes) == 1 {
			return
		}
	}
}

// gatedEmbedder embeds one request per value sent on gate, and says on
// called when a request arrives: a slow model the test paces.
type gatedEmbedder struct {
	inner  EmbedClient
	gate   chan struct{}
	called chan struct{}
}

func (g *gatedEmbedder) Embed(ctx context.Context, req *api.EmbedRequest) (*api.EmbedResponse, error) {
	select {
	case g.called <- struct{}{}:
	default:
	}
	select {
	case <-g.gate:
		return g.inner.Embed(ctx, req)
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// TestABacklogLeavesRoomForNewTurns: while the chat's index embeds a long
// backlog with a slow model (an import stopped before embedding, a new
// embedding model), the chat's own new turn is searchable after the batch
// in flight, not after the whole backlog.
func TestABacklogLeavesRoomForNewTurns(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	dir := t.TempDir()
	s := openStoreIn(t, dir)
	for i := range 20 {
		chat(t, s, "alice", fmt.Sprintf("Old %d", i), fmt.Sprintf("an old question %d about bread", i), "an old answer")
	}
	emb := &gatedEmbedder{inner: &topicEmbedder{}, gate: make(chan struct{}), called: make(chan struct{}, 1)}
	ix := openIndex(t, s, dir, emb, "topics")
	done := make(chan struct{})
	go func() {
		defer close(done)
		ix.Run(ctx)
	}()
	defer func() { cancel(); <-done }()

	<-emb.called // the backlog is being embedded
	c := chat(t, s, "alice", "New", "we talked about zanzibar today", "Indeed.")
	ix.Notify(memory.ConversationRef{UserID: "alice", ConversationID: c.ID})
	emb.gate <- struct{}{} // the batch in flight ends; the next would wait
	select {
	case <-ix.Changes():
	case <-time.After(10 * time.Second):
		t.Fatal("the index announced nothing while the backlog waited on the model")
	}
	close(emb.gate) // the model is quick again: the query is embedded too
	if res := search(t, ix, "alice", "zanzibar"); len(res) == 0 || res[0].ConversationID != c.ID {
		t.Fatalf("the new turn is not searchable during the backlog: %+v", res)
	}
}

// TestAKeywordOnlySearchDoesNotWaitForTheEmbedder: a keyword-only search
// (the chat's search panel's first answer) finds turns by their words while
// the embedding model is busy (a chat's answer ahead of it), where the
// hybrid search waits for the query's embedding.
func TestAKeywordOnlySearchDoesNotWaitForTheEmbedder(t *testing.T) {
	dir := t.TempDir()
	s := openStoreIn(t, dir)
	chat(t, s, "alice", "Sourdough", "how long should sourdough proof", "overnight in the fridge")
	emb := &gatedEmbedder{inner: &topicEmbedder{}, gate: make(chan struct{}), called: make(chan struct{}, 1)}
	ix := openIndex(t, s, dir, emb, "topics")
	close(emb.gate) // the turn is embedded while the model is free
	if err := ix.Drain(context.Background()); err != nil {
		t.Fatal(err)
	}
	emb.gate = make(chan struct{}) // then busy: an embedding would wait
	select {
	case <-emb.called:
	default:
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second) // bounds a wait that is the failure
	defer cancel()
	res, err := ix.Search(ctx, SearchQuery{UserID: "alice", Text: "sourdough proof", KeywordOnly: true})
	if err != nil || len(res) == 0 || res[0].Title != "Sourdough" {
		t.Fatalf("keyword-only search: %+v, %v", res, err)
	}
	select {
	case <-emb.called:
		t.Fatal("a keyword-only search asked for an embedding")
	default:
	}
}
