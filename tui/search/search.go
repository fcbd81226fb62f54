package search

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tui/list"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/styles"
)

// Searcher runs a hybrid search over the user's past turns. *index.Index
// satisfies it.
type Searcher interface {
	Search(ctx context.Context, q index.SearchQuery) ([]index.SearchResult, error)
}

var _ Searcher = (*index.Index)(nil)

// SearchConfig is what the search overlay needs.
type SearchConfig struct {
	Searcher Searcher
	UserID   string
	// Context bounds every search (the program's lifetime); default
	// context.Background().
	Context context.Context
	// Limit is how many results a search returns (default 20).
	Limit int
	// Debounce is how long typing must pause before a search (default 150ms).
	Debounce time.Duration
	// Now and Tick default to time.Now and tea.Tick; tests inject them.
	Now  func() time.Time
	Tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
}

// Search overlay defaults.
const (
	defaultSearchLimit = 20
	searchTimeout      = 15 * time.Second
)

// SearchOverlay searches all of the user's conversations as the query is
// typed. Each change of the query waits for a pause (the debounce) and then
// searches in a command; ticks and results carry the overlay's id and the
// query's sequence number, so that those of an older query are dropped.
// Enter sends panel.OpenTurnMsg for the selected result, Esc panel.CloseOverlayMsg.
type SearchOverlay struct {
	st       styles.Panel
	keys     SearchKeyMap
	clock    panel.Clock
	searcher Searcher
	userID   string
	limit    int
	debounce time.Duration

	id     int64
	seq    int                // bumped by every change of the query
	cancel context.CancelFunc // of the search in flight
	busy   bool               // a debounce or a search for seq is pending

	input   textinput.Model
	shown   string // the query whose results are shown
	results []index.SearchResult
	err     error
	list    list.Model

	width, height int
}

// Messages of the search overlay's commands.
type (
	searchDebounceMsg struct {
		panel.To
		seq int
	}
	searchResultsMsg struct {
		panel.To
		seq     int
		query   string
		results []index.SearchResult
		err     error
		// quick: the keyword ranking alone, shown until the hybrid
		// search's results come (and never after them).
		quick bool
	}
)

// NewSearchOverlay returns a closed search overlay drawn with st.
func NewSearchOverlay(st *styles.Styles, cfg SearchConfig) SearchOverlay {
	ost := styles.NewPanel(st)
	s := SearchOverlay{
		st:       ost,
		keys:     DefaultSearchKeyMap(),
		clock:    panel.NewClock(cfg.Context, cfg.Now, cfg.Tick),
		searcher: cfg.Searcher,
		userID:   cfg.UserID,
		limit:    cfg.Limit,
		debounce: cfg.Debounce,
		id:       panel.NextID(),
		input:    panel.NewInput(ost, "› ", "search all conversations…"),
	}
	s.list = list.New(s.listKeys())
	if s.limit <= 0 {
		s.limit = defaultSearchLimit
	}
	if s.debounce <= 0 {
		s.debounce = panel.DefaultDebounce
	}
	return s
}

// KeyMap returns the overlay's bindings, for the full help.
func (s SearchOverlay) KeyMap() SearchKeyMap { return s.keys }

// SetKeyMap replaces the overlay's bindings.
func (s *SearchOverlay) SetKeyMap(k SearchKeyMap) {
	s.keys = k
	s.list.SetKeyMap(s.listKeys())
}

// Restyle draws the overlay with st from now on (after the terminal's
// background turned out light or dark), keeping its state.
func (s *SearchOverlay) Restyle(st *styles.Styles) {
	s.st = styles.NewPanel(st)
	s.input.SetStyles(s.st.Input)
}

// SetClock replaces the clock and the timer (nil keeps the current one),
// for a root model whose own are injected after it is built.
func (s *SearchOverlay) SetClock(now func() time.Time, tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd) {
	s.clock = s.clock.With(now, tick)
}

// Query is the text in the search box.
func (s SearchOverlay) Query() string { return s.input.Value() }

// Results are the results shown.
func (s SearchOverlay) Results() []index.SearchResult { return s.results }

// Open shows the overlay with query in the search box (for /search QUERY)
// and searches for it at once; an empty query waits for typing.
func (s SearchOverlay) Open(query string) (SearchOverlay, tea.Cmd) {
	s.stop()
	s.input.SetValue(strings.TrimSpace(sanitize.Line(query)))
	s.input.CursorEnd()
	s.input.Focus()
	s.results, s.shown, s.err = nil, "", nil
	s.list.Reset()
	s.seq++
	if strings.TrimSpace(s.input.Value()) == "" {
		return s, nil
	}
	return s, s.search()
}

// Owns reports whether msg is one of the overlay's own messages (a
// debounce tick or a search result), which the root must pass to Update.
func (s SearchOverlay) Owns(msg tea.Msg) bool {
	return panel.Addressed(msg, s.id)
}

// SetSize sets the size the overlay draws in.
func (s *SearchOverlay) SetSize(width, height int) {
	s.width, s.height = width, height
	panel.FitInput(&s.input, width)
}

// Update handles keys, pastes, debounce ticks and search results.
func (s SearchOverlay) Update(msg tea.Msg) (SearchOverlay, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return s.handleKey(msg)
	case tea.PasteMsg:
		msg.Content = sanitize.Line(msg.Content)
		return s.edit(msg)
	case searchDebounceMsg:
		if msg.ID != s.id || msg.seq != s.seq {
			return s, nil // the query changed since
		}
		return s, s.search()
	case searchResultsMsg:
		if msg.ID != s.id || msg.seq != s.seq {
			return s, nil // the results of an older query
		}
		if msg.quick {
			if s.busy && msg.err == nil { // the full results are still to come
				s.shown, s.results, s.err = msg.query, msg.results, nil
				s.list.Reset()
			}
			return s, nil
		}
		s.busy, s.cancel = false, nil
		s.shown, s.err = msg.query, msg.err
		if msg.err == nil {
			s.results = msg.results
			s.list.Reset()
		}
	}
	return s, nil
}

func (s SearchOverlay) handleKey(msg tea.KeyPressMsg) (SearchOverlay, tea.Cmd) {
	switch {
	case key.Matches(msg, s.keys.Close):
		s.stop()
		return s, panel.Close
	case key.Matches(msg, s.keys.Open):
		if s.list.Index() < len(s.results) {
			s.stop()
			r := s.results[s.list.Index()]
			return s, panel.Emit(panel.OpenTurnMsg{ConversationID: r.ConversationID, Turn: r.Turn})
		}
		if s.busy || strings.TrimSpace(s.input.Value()) != s.shown {
			// Enter before the debounce: search now.
			s.seq++
			return s, s.search()
		}
		return s, nil
	case s.list.Update(msg, len(s.results), s.visible()):
	default:
		return s.edit(msg)
	}
	return s, nil
}

// edit passes a key or a paste to the search box; a changed query is
// searched after the debounce.
func (s SearchOverlay) edit(msg tea.Msg) (SearchOverlay, tea.Cmd) {
	cmd, changed := panel.Edit(&s.input, msg)
	if !changed {
		return s, cmd
	}
	s.stop()
	s.seq++
	if strings.TrimSpace(s.input.Value()) == "" {
		s.results, s.shown, s.err = nil, "", nil
		s.list.Reset()
		return s, cmd
	}
	s.busy = true
	seq, id := s.seq, s.id
	return s, tea.Batch(cmd, s.clock.Tick(s.debounce, func(time.Time) tea.Msg {
		return searchDebounceMsg{To: panel.To{ID: id}, seq: seq}
	}))
}

// search starts the search for the current query and sequence number.
func (s *SearchOverlay) search() tea.Cmd {
	s.stop()
	query := strings.TrimSpace(s.input.Value())
	ctx, cancel := context.WithTimeout(s.clock.Context(), searchTimeout)
	s.cancel, s.busy = cancel, true
	searcher, q := s.searcher, index.SearchQuery{UserID: s.userID, Text: query, Limit: s.limit}
	id, seq := s.id, s.seq
	run := func(q index.SearchQuery) tea.Msg {
		if searcher == nil {
			return searchResultsMsg{To: panel.To{ID: id}, seq: seq, query: query, err: fmt.Errorf("search is not available"), quick: q.KeywordOnly}
		}
		res, err := searcher.Search(ctx, q)
		return searchResultsMsg{To: panel.To{ID: id}, seq: seq, query: query, results: res, err: err, quick: q.KeywordOnly}
	}
	// The keyword hits first: the ranking by meaning waits for the query's
	// embedding, which waits behind an answer Ollama is writing (4 s with
	// "searching…" and nothing else on a laptop). Without an embedding
	// model the one search is by words already.
	if m, ok := searcher.(interface{ EmbedModelName() string }); ok && m.EmbedModelName() == "" {
		return func() tea.Msg { defer cancel(); return run(q) }
	}
	quick := q
	quick.KeywordOnly = true
	return tea.Batch(
		func() tea.Msg { return run(quick) },
		func() tea.Msg { defer cancel(); return run(q) },
	)
}

// stop cancels the search in flight, if any.
func (s *SearchOverlay) stop() {
	if s.cancel != nil {
		s.cancel()
		s.cancel = nil
	}
	s.busy = false
}

// listKeys are the bindings that move through the results.
func (s SearchOverlay) listKeys() list.KeyMap {
	return s.keys.KeyMap
}

// rowsPerResult is the rows a result takes: its title line and its snippet.
const rowsPerResult = 2

// Rows around the results: title, search box and rule above; help below.
const searchChromeRows = 4

// visible is how many results fit.
func (s SearchOverlay) visible() int {
	return max(1, (s.height-searchChromeRows)/rowsPerResult)
}

// Cursor is where the terminal cursor goes, relative to the overlay's
// top-left corner.
func (s SearchOverlay) Cursor() *tea.Cursor {
	return panel.OffsetCursor(s.input.Cursor(), 0, 1)
}

// View draws the overlay in exactly its size: a title line, the search
// box, a rule, the results (or a message) and a help line.
func (s SearchOverlay) View() string {
	if s.width <= 0 || s.height <= 0 {
		return ""
	}
	w := s.width
	if s.height < searchChromeRows {
		return panel.Block([]string{s.input.View()}, w, s.height)
	}
	rows := []string{
		panel.TitleLine(w, s.st.Title.Render("Search")+s.st.Dim.Render(" · all conversations"), s.status()),
		s.input.View(),
		s.st.Rule.Render(strings.Repeat("─", w)),
	}
	body := max(0, s.height-searchChromeRows)
	rows = append(rows, s.body(w, body))
	out := panel.Block(rows, w, s.height-1)
	return out + "\n" + panel.HelpLine(s.st, w, s.keys.ShortHelp())
}

// status is the right side of the title line.
func (s SearchOverlay) status() string {
	switch {
	case s.busy && s.err == nil && s.shown == strings.TrimSpace(s.input.Value()): // the keyword hits, meaning to come
		return s.st.Count.Render(fmt.Sprintf("%d by words", len(s.results))) + s.st.Hint.Render(" · searching by meaning…")
	case s.busy:
		return s.st.Hint.Render("searching…")
	case s.err != nil:
		return s.st.Error.Render("failed")
	case s.shown == "":
		return ""
	case len(s.results) == 1:
		return s.st.Count.Render("1 result")
	}
	return s.st.Count.Render(fmt.Sprintf("%d results", len(s.results)))
}

// body is the results, or a message when there are none, in height rows.
func (s SearchOverlay) body(w, height int) string {
	if height <= 0 {
		return ""
	}
	msgLine := func(st lipgloss.Style, text string) string {
		return panel.Block([]string{st.Width(w).Render(text)}, w, height)
	}
	switch {
	case s.err != nil:
		return msgLine(s.st.Error, "Search failed: "+sanitize.Line(s.err.Error()))
	case len(s.results) == 0 && strings.TrimSpace(s.input.Value()) == "":
		return msgLine(s.st.Dim, "Type to search all your conversations, by words and by meaning. Enter opens the turn.")
	case len(s.results) == 0 && s.busy:
		return msgLine(s.st.Dim, "Searching…")
	case len(s.results) == 0:
		return msgLine(s.st.Dim, fmt.Sprintf("No matches for “%s”.", sanitize.Line(s.shown)))
	}
	words := panel.QueryWords(s.shown)
	now := s.clock.Now()
	rows := s.list.Rows(len(s.results), height/rowsPerResult, func(i int, selected bool) string {
		return strings.Join(s.resultRows(s.results[i], selected, words, now, w), "\n")
	})
	return panel.Block(rows, w, height)
}

// resultRows draws one result: "▸ 0.92  Title   turn 3 · 2d ago", then
// the snippet with the query's words highlighted.
func (s SearchOverlay) resultRows(r index.SearchResult, selected bool, words []string, now time.Time, w int) []string {
	marker, title := s.st.List.Prefix(selected)
	score := s.st.Dim.Render(fmt.Sprintf("%.2f", r.Score))
	meta := fmt.Sprintf("turn %d", r.Turn)
	if d := text.RelativeDate(now, r.Time); d != "" {
		meta += " · " + d
	}
	meta = s.st.Dim.Render(meta)
	name := sanitize.Line(r.Title)
	if name == "" {
		name = "untitled"
	}
	left := marker + score + "  "
	room := w - lipgloss.Width(left) - lipgloss.Width(meta) - 2
	if room < 8 { // too narrow for the date: drop it
		meta = ""
		room = w - lipgloss.Width(left)
	}
	head := panel.TitleLine(w, left+title.Render(ansi.Truncate(name, max(1, room), "…")), meta)

	const indent = 4
	snippet := panel.FocusSnippet(sanitize.Line(r.Snippet), words, w-indent)
	return []string{head, strings.Repeat(" ", indent) + panel.Highlight(snippet, words, s.st.Text, s.st.Match)}
}
