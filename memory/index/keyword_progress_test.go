package index

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/memory"
)

// TestKeywordProgressOfALongRebuild: while the keyword index of many turns
// is rebuilt, KeywordProgress says how many there are to do and how many
// are done; once it is over it says none is running.
func TestKeywordProgressOfALongRebuild(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s := openStoreIn(t, dir)
	const turns = keywordBatch + keywordBatch/4
	var jsonl strings.Builder
	for i := range turns {
		fmt.Fprintf(&jsonl, `{"conversation":"c%d","role":"user","content":"question %d about zebra%d"}`+"\n", i/100, i, i)
		fmt.Fprintf(&jsonl, `{"conversation":"c%d","role":"assistant","content":"answer %d"}`+"\n", i/100, i)
	}
	st, err := s.Import(ctx, "alice", strings.NewReader(jsonl.String()), memory.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ix := openIndex(t, s, dir, nil, "")
	ix.Notify(st.Conversations...)

	// Hold the keyword index: the rebuild counts its work, then waits.
	held, release := make(chan struct{}), make(chan struct{})
	go ix.kw.Hold(ctx, func() error { close(held); <-release; return nil })
	<-held
	synced := make(chan error, 1)
	go func() { synced <- ix.Sync(ctx) }()
	deadline := time.Now().Add(20 * time.Second)
	for {
		done, total := ix.KeywordProgress()
		if total > 0 {
			if done != 0 || total != turns {
				t.Errorf("progress before the first batch = %d / %d, want 0 / %d", done, total, turns)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the rebuild never said how many turns it has to index")
		}
		time.Sleep(10 * time.Millisecond) // polling interval, not synchronisation
	}
	close(release)
	if err := <-synced; err != nil {
		t.Fatal(err)
	}
	if done, total := ix.KeywordProgress(); done != 0 || total != 0 {
		t.Errorf("progress after the rebuild = %d / %d, want 0 / 0 (none running)", done, total)
	}
	if res := search(t, ix, "alice", fmt.Sprintf("zebra%d", turns-1)); len(res) == 0 {
		t.Error("the last turn is not searchable after the rebuild")
	}
}
