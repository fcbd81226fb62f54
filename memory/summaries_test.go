package memory

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

func TestSummaryStoredWithItsRange(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	c := chat(t, s, "alice", "", "one", "two", "three", "four")
	if _, err := s.LatestSummary(ctx, "alice", c.ID); !errors.Is(err, ErrNotFound) {
		t.Fatalf("latest summary of a new conversation: %v", err)
	}
	first, err := s.SaveSummary(ctx, "alice", Summary{ConversationID: c.ID, FirstSeq: 1, LastSeq: 2, AtSeq: 3, Text: "  said one and two  "})
	if err != nil {
		t.Fatal(err)
	}
	if first.ID == "" || first.Text != "said one and two" || first.Hash == "" {
		t.Fatalf("saved %+v", first)
	}
	second, err := s.SaveSummary(ctx, "alice", Summary{ConversationID: c.ID, FirstSeq: 1, LastSeq: 3, Text: "said one to three"})
	if err != nil {
		t.Fatal(err)
	}
	if second.AtSeq != 3 {
		t.Fatalf("at_seq defaults to the range end: %+v", second)
	}
	got, err := s.LatestSummary(ctx, "alice", c.ID)
	if err != nil || got.ID != second.ID || got.FirstSeq != 1 || got.LastSeq != 3 {
		t.Fatalf("latest = %+v, %v", got, err)
	}
	all, err := s.Summaries(ctx, "alice", c.ID)
	if err != nil || len(all) != 2 || all[0].ID != first.ID {
		t.Fatalf("summaries = %+v, %v", all, err)
	}
	// The messages are untouched.
	if msgs, _ := s.Messages(ctx, "alice", c.ID); len(msgs) != 4 {
		t.Fatalf("messages = %d", len(msgs))
	}

	for name, bad := range map[string]Summary{
		"empty text":      {ConversationID: c.ID, FirstSeq: 1, LastSeq: 2, Text: " \n"},
		"reversed range":  {ConversationID: c.ID, FirstSeq: 3, LastSeq: 2, Text: "x"},
		"past the end":    {ConversationID: c.ID, FirstSeq: 1, LastSeq: 9, Text: "x"},
		"no conversation": {ConversationID: "nope", FirstSeq: 1, LastSeq: 1, Text: "x"},
	} {
		if _, err := s.SaveSummary(ctx, "alice", bad); err == nil {
			t.Errorf("%s: saved", name)
		}
	}
	if _, err := s.SaveSummary(ctx, "bob", Summary{ConversationID: c.ID, FirstSeq: 1, LastSeq: 1, Text: "x"}); !errors.Is(err, ErrNotFound) {
		t.Errorf("another user's conversation: %v", err)
	}
	if _, err := s.LatestSummary(ctx, "bob", c.ID); !errors.Is(err, ErrNotFound) {
		t.Errorf("another user's summary: %v", err)
	}
}

func TestModelTitleNeverReplacesTheUsers(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	c := chat(t, s, "alice", "", "plan a trip to lisbon please", "Sure.")
	ts, err := s.ConversationTitle(ctx, "alice", c.ID)
	if err != nil || ts.Source != TitleAuto || ts.Title != "plan a trip to lisbon please" || ts.Seq != 0 {
		t.Fatalf("title = %+v, %v", ts, err)
	}
	if changed, err := s.SetModelTitle(ctx, "alice", c.ID, "Lisbon trip", 2); err != nil || !changed {
		t.Fatalf("model title: %v %v", changed, err)
	}
	if ts, _ = s.ConversationTitle(ctx, "alice", c.ID); ts.Title != "Lisbon trip" || ts.Source != TitleModel || ts.Seq != 2 {
		t.Fatalf("after the model: %+v", ts)
	}
	if err := s.RenameConversation(ctx, "alice", c.ID, "Holidays"); err != nil {
		t.Fatal(err)
	}
	if changed, err := s.SetModelTitle(ctx, "alice", c.ID, "Something else", 4); err != nil || changed {
		t.Fatalf("model title over the user's: %v %v", changed, err)
	}
	if got, _ := s.Conversation(ctx, "alice", c.ID); got.Title != "Holidays" {
		t.Fatalf("title = %q, want the user's", got.Title)
	}
	if ts, _ = s.ConversationTitle(ctx, "alice", c.ID); ts.Source != TitleUser {
		t.Fatalf("source = %q", ts.Source)
	}
	// An empty model title only records the attempt.
	if changed, err := s.SetModelTitle(ctx, "alice", c.ID, "  ", 6); err != nil || changed {
		t.Fatalf("empty title: %v %v", changed, err)
	}
	if ts, _ = s.ConversationTitle(ctx, "alice", c.ID); ts.Seq != 6 || ts.Title != "Holidays" {
		t.Fatalf("after an empty title: %+v", ts)
	}
}

func TestContextUsageRoundTrip(t *testing.T) {
	ctx := context.Background()
	s := openTest(t)
	c := chat(t, s, "alice", "", "a", "b", "c")
	if u, err := s.ContextUsage(ctx, "alice", c.ID); err != nil || u != (ContextUsage{}) {
		t.Fatalf("no usage yet: %+v %v", u, err)
	}
	if err := s.SaveContextUsage(ctx, "alice", c.ID, ContextUsage{Tokens: 120, FirstSeq: 1}); err != nil {
		t.Fatal(err)
	}
	if u, _ := s.ContextUsage(ctx, "alice", c.ID); u.Tokens != 120 || u.LastSeq != 3 || u.FirstSeq != 1 {
		t.Fatalf("usage = %+v", u)
	}
	if err := s.SaveContextUsage(ctx, "alice", c.ID, ContextUsage{Tokens: 80, SummaryID: "s1", FirstSeq: 2, LastSeq: 3}); err != nil {
		t.Fatal(err)
	}
	if u, _ := s.ContextUsage(ctx, "alice", c.ID); u != (ContextUsage{Tokens: 80, SummaryID: "s1", FirstSeq: 2, LastSeq: 3}) {
		t.Fatalf("usage = %+v", u)
	}
	if u, _ := s.ContextUsage(ctx, "bob", c.ID); u != (ContextUsage{}) {
		t.Fatalf("another user sees %+v", u)
	}
}

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
	if _, err := s.SaveSummary(ctx, "alice", Summary{ConversationID: trip.ID, FirstSeq: 1, LastSeq: 2,
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
	s := openTest(t)
	s.now = func() time.Time { return clock }
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
