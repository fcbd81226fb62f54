package memory

import (
	"context"
	"errors"
	"testing"
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
