package search

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/styles"
)

// fakeSearcher answers from a table by query and records every hybrid
// search with whether its context was already cancelled. A keyword-only
// search (the overlay's quick one) answers from quick, and is counted
// apart.
type fakeSearcher struct {
	mu        sync.Mutex
	results   map[string][]index.SearchResult
	quick     map[string][]index.SearchResult
	fail      error
	queries   []string
	quickRuns int
	cancelled []string // queries whose context was done when searched
}

func (f *fakeSearcher) Search(ctx context.Context, q index.SearchQuery) ([]index.SearchResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if q.KeywordOnly {
		f.quickRuns++
		return f.quick[q.Text], nil
	}
	f.queries = append(f.queries, q.Text)
	if ctx.Err() != nil {
		f.cancelled = append(f.cancelled, q.Text)
	}
	if f.fail != nil {
		return nil, f.fail
	}
	return f.results[q.Text], nil
}

func (f *fakeSearcher) searched() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return slices.Clone(f.queries)
}

func newSearch(t *testing.T, s Searcher, clock *testClock, w, h int) *component[SearchOverlay] {
	st := styles.New(true)
	o := NewSearchOverlay(&st, SearchConfig{Searcher: s, UserID: testUser, Now: clock.Now, Tick: clock.Tick})
	o.SetSize(w, h)
	c := newComponent(t, o, SearchOverlay.Update, SearchOverlay.Owns)
	var cmd tea.Cmd
	c.M, cmd = c.M.Open("")
	c.Push(cmd)
	return c
}

// sampleResults are search results at fixed times before the test clock.
func sampleResults(now time.Time) []index.SearchResult {
	return []index.SearchResult{
		{ConversationID: "c1", Title: "Goroutines and channels", Turn: 3, Score: 1,
			Snippet: "How do I stop a goroutine that is blocked on a channel receive without leaking it?",
			Time:    now.Add(-2 * time.Hour)},
		{ConversationID: "c2", Title: "Worker pools in Go", Turn: 7, Score: 0.82,
			Snippet: "I want a pool of workers reading jobs from one channel and writing results to another; each goroutine should stop when the context is done",
			Time:    now.Add(-3 * 24 * time.Hour)},
		{ConversationID: "c3", Title: "", Turn: 1, Score: 0.41,
			Snippet: "Is a buffered \x1b[31mchannel\x1b[0m faster than a mutex?",
			Time:    time.Date(2025, 12, 1, 9, 0, 0, 0, time.UTC)},
	}
}

func TestSearchDebouncesTyping(t *testing.T) {
	clock := newTestClock()
	f := &fakeSearcher{results: map[string][]index.SearchResult{"gor": sampleResults(clock.Now())[:1]}}
	c := newSearch(t, f, clock, 80, 24)
	c.TypeText("gor")
	if got := f.searched(); len(got) != 0 {
		t.Fatalf("searched %q while typing, before any pause", got)
	}
	if len(c.Queue) != 3 {
		t.Fatalf("%d commands queued after 3 keys, want one debounce tick each", len(c.Queue))
	}
	c.RunAll()
	if got := f.searched(); !slices.Equal(got, []string{"gor"}) {
		t.Fatalf("searched %q, want only the last query", got)
	}
	for _, d := range clock.Delays {
		if d != panel.DefaultDebounce {
			t.Fatalf("debounce of %v, want %v", d, panel.DefaultDebounce)
		}
	}
	requireShows(t, c.M.View(), "Goroutines and channels", "1 result")
}

func TestSearchDropsStaleResults(t *testing.T) {
	clock := newTestClock()
	res := sampleResults(clock.Now())
	f := &fakeSearcher{results: map[string][]index.SearchResult{"chan": res[2:], "channel": res[:2]}}
	c := newSearch(t, f, clock, 80, 24)
	c.TypeText("chan")
	for range 4 { // the debounce ticks: the last one starts the search
		c.Step()
	}
	if len(c.Queue) != 1 || !c.M.busy {
		t.Fatalf("%d commands queued after the debounce, want the search", len(c.Queue))
	}
	stale := c.Take() // the search for "chan", not run yet

	c.TypeText("nel")
	c.Handle(runCmd(t, stale)) // its result arrives after the query changed
	if len(c.M.Results()) != 0 {
		t.Fatalf("results of the stale query shown: %+v", c.M.Results())
	}
	c.RunAll()
	if got := c.M.Results(); len(got) != 2 || got[0].ConversationID != "c1" {
		t.Fatalf("results %+v, want those of \"channel\"", got)
	}
	if !slices.Equal(f.cancelled, []string{"chan"}) {
		t.Fatalf("searches run with a cancelled context: %q, want the stale one only", f.cancelled)
	}
	// An older result arriving last is dropped too.
	c.Send(searchResultsMsg{To: panel.To{ID: c.M.id}, seq: c.M.seq - 1, query: "chan", results: res[2:]})
	if got := c.M.Results(); len(got) != 2 {
		t.Fatalf("a late stale result replaced the results: %+v", got)
	}
}

func TestSearchEnterOpensTheTurn(t *testing.T) {
	ctx := context.Background()
	store := openStore(t)
	chat := func(title string, texts ...string) memory.Conversation {
		conv := must[memory.Conversation](t)(store.CreateConversation(ctx, testUser, title))
		for i, text := range texts {
			role := memory.RoleUser
			if i%2 == 1 {
				role = memory.RoleAssistant
			}
			must[memory.Message](t)(store.AppendMessage(ctx, testUser, memory.Message{ConversationID: conv.ID, Role: role, Content: text}))
		}
		return conv
	}
	chat("Garden", "When should I plant tulips?", "In autumn.")
	pets := chat("Pets", "My kitten keeps scratching the sofa", "Try a scratching post.",
		"Which food suits a kitten with a sensitive stomach?", "A grain-free one.")
	ix, err := index.OpenIndex(ctx, store, filepath.Join(t.TempDir(), "index"), index.IndexOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close() })
	if err := ix.Drain(ctx); err != nil {
		t.Fatal(err)
	}

	clock := newTestClock()
	c := newSearch(t, ix, clock, 80, 24)
	c.TypeText("kitten stomach")
	c.RunAll()
	results := c.M.Results()
	if len(results) == 0 || results[0].ConversationID != pets.ID || results[0].Turn != 2 {
		t.Fatalf("results %+v, want turn 2 of Pets first", results)
	}
	requireShows(t, c.M.View(), "Pets", "turn 2", "Which food suits a kitten with a sensitive stomach?")
	c.Send(keyEnter)
	c.RunAll()
	if got := sent[panel.OpenTurnMsg](c); len(got) != 1 || got[0] != (panel.OpenTurnMsg{ConversationID: pets.ID, Turn: 2}) {
		t.Fatalf("sent %+v, want panel.OpenTurnMsg for turn 2 of %s", c.Out, pets.ID)
	}

	// Down moves to the next result; Enter opens that one.
	if len(results) > 1 {
		c.Send(keyDown)
		c.Send(keyEnter)
		c.RunAll()
		got := sent[panel.OpenTurnMsg](c)
		if want := (panel.OpenTurnMsg{ConversationID: results[1].ConversationID, Turn: results[1].Turn}); got[len(got)-1] != want {
			t.Fatalf("after down, opened %+v, want %+v", got[len(got)-1], want)
		}
	}
	c.Send(keyEsc)
	c.RunAll()
	if len(sent[panel.CloseOverlayMsg](c)) != 1 {
		t.Fatalf("esc sent %+v, want panel.CloseOverlayMsg", c.Out)
	}
}

func TestSearchOpenWithQuerySearchesAtOnce(t *testing.T) {
	clock := newTestClock()
	f := &fakeSearcher{results: map[string][]index.SearchResult{"channel": sampleResults(clock.Now())}}
	c := newSearch(t, f, clock, 80, 24)
	var cmd tea.Cmd
	c.M, cmd = c.M.Open("  channel ")
	c.Push(cmd)
	c.RunAll()
	if len(clock.Delays) != 0 || !slices.Equal(f.searched(), []string{"channel"}) || len(c.M.Results()) != 3 {
		t.Fatalf("delays %v, searches %q, %d results", clock.Delays, f.searched(), len(c.M.Results()))
	}
	if c.M.Query() != "channel" {
		t.Fatalf("query %q", c.M.Query())
	}
	// Moving stays within the results.
	for range 5 {
		c.Send(keyDown)
	}
	if c.M.list.Index() != 2 {
		t.Fatalf("selected %d after moving past the end, want 2", c.M.list.Index())
	}
	c.Send(keyUp)
	if c.M.list.Index() != 1 {
		t.Fatalf("selected %d after up, want 1", c.M.list.Index())
	}
}

func TestSearchStates(t *testing.T) {
	clock := newTestClock()
	f := &fakeSearcher{results: map[string][]index.SearchResult{}}
	c := newSearch(t, f, clock, 60, 20)
	requireShows(t, c.M.View(), "Type to search all your conversations")

	c.TypeText("zebra")
	requireShows(t, c.M.View(), "searching…")
	c.RunAll()
	requireShows(t, c.M.View(), "No matches for “zebra”.")
	// Enter with nothing found sends nothing.
	c.Send(keyEnter)
	c.RunAll()
	if len(c.Out) != 0 {
		t.Fatalf("enter without results sent %+v", c.Out)
	}

	f.fail = errors.New("keyword index: disk I/O error")
	c.TypeText("s")
	c.RunAll()
	requireShows(t, c.M.View(), "Search failed: keyword index: disk I/O error")

	// Clearing the query returns to the empty state without searching.
	n := len(f.searched())
	for range len("zebras") {
		c.Send(tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
	c.RunAll()
	if len(f.searched()) != n {
		t.Fatalf("searched %q for an emptied query", f.searched()[n:])
	}
	requireShows(t, c.M.View(), "Type to search all your conversations")
}

func TestSearchHighlightsQueryWords(t *testing.T) {
	st := styles.NewPanel(ptr(styles.New(true)))
	got := panel.Highlight("Goroutines and a CHANNEL; go", panel.QueryWords("channel goroutine go"), st.Text, st.Match)
	want := st.Match.Render("Goroutines") + st.Text.Render(" and a ") + st.Match.Render("CHANNEL") +
		st.Text.Render("; ") + st.Match.Render("go")
	if got != want {
		t.Fatalf("highlight:\n got %q\nwant %q", got, want)
	}
	// Short words match whole words only.
	if got := panel.Highlight("good", panel.QueryWords("go"), st.Text, st.Match); got != st.Text.Render("good") {
		t.Fatalf("\"go\" highlighted in \"good\": %q", got)
	}
	// A match past the width is brought into view.
	s := panel.FocusSnippet(strings.Repeat("lorem ipsum ", 10)+"the channel is closed", panel.QueryWords("channel"), 40)
	if !strings.HasPrefix(s, "…") || !strings.Contains(s, "channel") {
		t.Fatalf("focused snippet %q", s)
	}
}

func TestSearchGolden(t *testing.T) {
	for _, size := range []struct{ w, h int }{{80, 24}, {60, 20}} {
		name := fmt.Sprintf("search_results_%dx%d", size.w, size.h)
		t.Run(name, func(t *testing.T) {
			clock := newTestClock()
			f := &fakeSearcher{results: map[string][]index.SearchResult{"goroutine channel": sampleResults(clock.Now())}}
			c := newSearch(t, f, clock, size.w, size.h)
			c.TypeText("goroutine channel")
			c.RunAll()
			c.Send(keyDown)
			view := c.M.View()
			requireSize(t, view, size.w, size.h)
			// The escape sequence in the third snippet is shown inert.
			if strings.Contains(view, "\x1b[31m") || !strings.Contains(plain(view), "Is a buffered channel faster") {
				t.Fatalf("snippet not sanitised: %q", view)
			}
			requireGolden(t, name, view)
		})
	}
	t.Run("search_empty_60x20", func(t *testing.T) {
		c := newSearch(t, &fakeSearcher{}, newTestClock(), 60, 20)
		view := c.M.View()
		requireSize(t, view, 60, 20)
		requireGolden(t, "search_empty_60x20", view)
	})
}

func ptr[T any](v T) *T { return &v }

// TestOverlaysRestyleKeepState checks that a change of background keeps
// what the search overlay holds.
func TestOverlaysRestyleKeepState(t *testing.T) {
	light := styles.New(false)
	clock := newTestClock()
	f := &fakeSearcher{results: map[string][]index.SearchResult{"channel": sampleResults(clock.Now())}}
	s := newSearch(t, f, clock, 80, 24)
	s.TypeText("channel")
	s.RunAll()
	s.M.Restyle(&light)
	if s.M.Query() != "channel" || len(s.M.Results()) != 3 {
		t.Fatalf("search after restyle: %q, %d results", s.M.Query(), len(s.M.Results()))
	}
	requireShows(t, s.M.View(), "Goroutines and channels")
}

// TestSearchShowsTheKeywordHitsFirst: the keyword ranking's hits show at
// once, said to be by words while the search by meaning runs (it waits for
// the query's embedding, which waits behind an answer Ollama writes); the
// hybrid results then replace them, and a keyword answer that comes later
// does not replace those.
func TestSearchShowsTheKeywordHitsFirst(t *testing.T) {
	clock := newTestClock()
	res := sampleResults(clock.Now())
	f := &fakeSearcher{results: map[string][]index.SearchResult{"channel": res}, quick: map[string][]index.SearchResult{"channel": res[2:]}}
	c := newSearch(t, f, clock, 80, 24)
	c.TypeText("channel")
	for range len("channel") { // the debounce ticks: the last one starts the searches
		c.Step()
	}
	c.Step() // the batch of the two searches
	if len(c.Queue) != 2 {
		t.Fatalf("%d commands queued, want the keyword and the hybrid search", len(c.Queue))
	}
	quick, full := c.Take(), c.Take()
	c.Handle(runCmd(t, quick))
	if got := c.M.Results(); len(got) != 1 || got[0].ConversationID != "c3" {
		t.Fatalf("results %+v, want the keyword hit at once", got)
	}
	requireShows(t, c.M.View(), "1 by words", "searching by meaning")
	late := searchResultsMsg{To: panel.To{ID: c.M.id}, seq: c.M.seq, query: "channel", results: res[2:], quick: true}
	c.Handle(runCmd(t, full))
	if got := c.M.Results(); len(got) != 3 {
		t.Fatalf("results %+v, want the hybrid search's", got)
	}
	c.Send(late)
	if got := c.M.Results(); len(got) != 3 {
		t.Fatalf("a keyword answer after the hybrid one replaced it: %+v", got)
	}
	requireShows(t, c.M.View(), "3 results")
}

// wordsOnly is a searcher without an embedding model: its one search is by
// words already.
type wordsOnly struct{ *fakeSearcher }

func (wordsOnly) EmbedModelName() string { return "" }

// TestSearchByWordsAloneRunsOnce: without an embedding model the panel
// searches once and never says it searches by meaning.
func TestSearchByWordsAloneRunsOnce(t *testing.T) {
	clock := newTestClock()
	f := &fakeSearcher{results: map[string][]index.SearchResult{"channel": sampleResults(clock.Now())}}
	c := newSearch(t, wordsOnly{f}, clock, 80, 24)
	c.TypeText("channel")
	for range len("channel") {
		c.Step()
	}
	if requireShows(t, c.M.View(), "searching…"); strings.Contains(c.M.View(), "by meaning") {
		t.Fatalf("a search by words said it searches by meaning:\n%s", c.M.View())
	}
	c.RunAll()
	if f.quickRuns != 0 || len(f.searched()) != 1 {
		t.Fatalf("%d quick and %d full searches, want one search", f.quickRuns, len(f.searched()))
	}
	requireShows(t, c.M.View(), "3 results")
}
