package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/tui/transcript"
)

// Responsiveness: a conversation of 5,000 messages must open in under
// 300 ms and scroll smoothly. The benchmarks measure what a person waits
// for: opening is reading the messages from the store (the command) plus
// the update that shows them and the first frame; scrolling is one key
// (or wheel step) and the frame after it.
//
//	go test ./tui -run '^$' -bench 'LongConversation' -benchtime 20x

const longMessages = 5000

// seedLong imports a conversation of n messages of everyday markdown.
func seedLong(tb testing.TB, store *memory.Store, n int) memory.Conversation {
	tb.Helper()
	var b strings.Builder
	enc := json.NewEncoder(&b)
	for i := 0; i < n; i++ {
		rec := map[string]string{"conversation": "long", "title": "A very long conversation", "role": "user",
			"content": fmt.Sprintf("Question %d: how do I cancel a goroutine that is blocked on a channel?", i/2)}
		if i%2 == 1 {
			rec["role"] = "assistant"
			rec["content"] = fmt.Sprintf("## Answer %d\n\nUse a **context** and `select` on `ctx.Done()`:\n\n"+
				"```go\nselect {\ncase v := <-ch:\n\tuse(v)\ncase <-ctx.Done():\n\treturn ctx.Err()\n}\n```\n\n"+
				"- cancel the context when you are done\n- never leak the goroutine\n\nThat is all for answer %d.", i/2, i/2)
		}
		if err := enc.Encode(rec); err != nil {
			tb.Fatal(err)
		}
	}
	if _, err := store.Import(context.Background(), testUser, strings.NewReader(b.String()), memory.ImportOptions{}); err != nil {
		tb.Fatal(err)
	}
	list, err := store.ListConversations(context.Background(), testUser, memory.ListOptions{})
	if err != nil || len(list) != 1 || list[0].MessageCount != n {
		tb.Fatalf("seeded %+v, %v", list, err)
	}
	return list[0]
}

// openLong opens conv in a 100×30 chat and returns the model once the
// first frame is drawn.
func openLong(tb testing.TB, cfg Config) Model {
	m := New(cfg)
	m.tick = func(time.Duration, func(time.Time) tea.Msg) tea.Cmd { return nil }
	next, _ := m.Update(tea.WindowSizeMsg{Width: 100, Height: 30})
	m = next.(Model)
	msg := loadHistoryCmd(context.Background(), m.store, m.userID, m.resumeID, nil)()
	next, _ = m.Update(msg)
	m = next.(Model)
	if m.loading || len(m.transcript.Entries) != longMessages {
		tb.Fatalf("not open: loading %v, %d entries", m.loading, len(m.transcript.Entries))
	}
	_ = m.View()
	return m
}

func longConfig(tb testing.TB) Config {
	store, err := memory.Open(context.Background(), tb.TempDir()+"/mneme.db")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { store.Close() })
	conv := seedLong(tb, store, longMessages)
	cfg := Config{Store: store, UserID: testUser, ConversationID: conv.ID, Probe: readyProbe}
	return cfg
}

func BenchmarkOpenLongConversation(b *testing.B) {
	cfg := longConfig(b)
	b.ResetTimer()
	for b.Loop() {
		m := openLong(b, cfg)
		m.life.shutdown()
	}
}

func BenchmarkScrollLongConversation(b *testing.B) {
	cfg := longConfig(b)
	for _, bb := range []struct {
		name string
		key  tea.Msg
	}{
		{"pgup", tea.KeyPressMsg{Code: tea.KeyPgUp}},
		{"wheel", tea.MouseWheelMsg{Button: tea.MouseWheelUp}},
	} {
		b.Run(bb.name, func(b *testing.B) {
			m := openLong(b, cfg)
			defer m.life.shutdown()
			b.ResetTimer()
			for b.Loop() {
				if m.transcript.Pos == (transcript.ScrollPos{}) {
					m.transcript.Bottom() // back to the end: every frame shows entries not drawn yet
					for i := range m.transcript.Entries {
						m.transcript.Entries[i].ViewWidth = 0
					}
				}
				next, _ := m.Update(bb.key)
				m = next.(Model)
				_ = m.View()
			}
		})
	}
}

// TestLongConversationOpensFast is the acceptance bound: the best of three
// openings of 5,000 messages stays under 300 ms. Wall-clock bounds fail on
// a loaded machine (go test ./... runs packages side by side), so it runs
// only when asked: MNEME_TIMING_TESTS=1 go test ./tui -run OpensFast.
func TestLongConversationOpensFast(t *testing.T) {
	if os.Getenv("MNEME_TIMING_TESTS") != "1" || raceEnabled {
		t.Skip("a timing bound: set MNEME_TIMING_TESTS=1 (not with -race)")
	}
	cfg := longConfig(t)
	best := time.Hour
	for range 3 {
		start := time.Now()
		m := openLong(t, cfg)
		best = min(best, time.Since(start))
		m.life.shutdown()
	}
	t.Logf("a conversation of %d messages opens in %v", longMessages, best)
	if best > 300*time.Millisecond {
		t.Fatalf("opening %d messages took %v, more than 300ms", longMessages, best)
	}
}
