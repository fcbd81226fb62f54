package index

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/memory"
)

// TestFindConversationsThroughSummaries finds a conversation by words that
// only its summary holds, by words of its turns and by meaning, and tells
// a clear winner from close ones.
func TestFindConversationsThroughSummaries(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	emb := &topicEmbedder{}
	ix := openIndex(t, s, t.TempDir(), emb, "topics")
	trip := chat(t, s, "alice", "Weekend plans", "Where do we park the car on Saturday?", "Try the seafood place by the river.")
	bread := chat(t, s, "alice", "Kitchen", "How long should sourdough rise?", "About four hours.")
	chat(t, s, "bob", "Bob's trip", "My itinerary for Portugal", "Nice.")
	if _, err := s.SaveSummary(ctx, "alice", memory.Summary{ConversationID: trip.ID, FirstSeq: 1, LastSeq: 2,
		Text: "The user is planning a Lisbon itinerary for May: Alfama, tram 28, pastel de nata."}); err != nil {
		t.Fatal(err)
	}
	if err := ix.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	find := func(text string) []ConversationMatch {
		t.Helper()
		res, err := ix.FindConversations(ctx, FindQuery{UserID: "alice", Text: text})
		if err != nil {
			t.Fatal(err)
		}
		return res
	}

	// Only the summary says "itinerary"; bob's conversation is not alice's.
	res := find("the chat with the itinerary")
	w, _ := Decide(res)
	if w == nil || w.ID != trip.ID || !strings.Contains(strings.Join(w.MatchedBy, ","), FoundBySummary) ||
		!strings.Contains(w.Snippet, "Lisbon itinerary") {
		t.Fatalf("by summary words: %+v", res)
	}
	// By meaning: "portugal" is in no text of alice's, but on the summary's topic.
	res = find("portugal")
	if w, _ := Decide(res); w == nil || w.ID != trip.ID {
		t.Fatalf("by meaning: %+v", res)
	}
	// By the words of a turn.
	res = find("sourdough rise")
	if w, _ := Decide(res); w == nil || w.ID != bread.ID || w.MatchedBy[0] != FoundByTurns || w.Turn != 1 {
		t.Fatalf("by turns: %+v", res)
	}
	// Nothing relevant: no match at all.
	if res := find("quantum chromodynamics"); len(res) != 0 {
		t.Fatalf("unrelated description matched: %+v", res)
	}
	// Two conversations matching alike are offered as a choice.
	other := chat(t, s, "alice", "", "Where do we park the car on Sunday?", "The seafood place again.")
	if err := ix.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	res = find("seafood place")
	w, choices := Decide(res)
	if w != nil || len(choices) < 2 {
		t.Fatalf("close matches: winner %+v, choices %+v", w, choices)
	}
	ids := map[string]bool{}
	for _, c := range choices {
		ids[c.ID] = true
	}
	if !ids[trip.ID] || !ids[other.ID] {
		t.Fatalf("choices = %+v", choices)
	}
}

func TestFindPrefersRecentAmongEquals(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	clock := now.Add(-365 * 24 * time.Hour)
	s, err := memory.Open(ctx, filepath.Join(t.TempDir(), memory.DBFileName), memory.WithClock(func() time.Time { return clock }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	old := chat(t, s, "alice", "", "Tell me about violins", "They have four strings.")
	clock = now
	recent := chat(t, s, "alice", "", "Tell me about violins", "They have four strings.")
	ix := openIndex(t, s, t.TempDir(), nil, "")
	if err := ix.Drain(ctx); err != nil {
		t.Fatal(err)
	}
	res, err := ix.FindConversations(ctx, FindQuery{UserID: "alice", Text: "violins", Now: now})
	if err != nil || len(res) != 2 {
		t.Fatalf("res = %+v, %v", res, err)
	}
	if res[0].ID != recent.ID || res[1].ID != old.ID || res[0].Score <= res[1].Score {
		t.Fatalf("order = %s (%.3f), %s (%.3f)", res[0].ID, res[0].Score, res[1].ID, res[1].Score)
	}
}
