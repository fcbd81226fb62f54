package index

import (
	"context"
	"testing"
	"time"

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
