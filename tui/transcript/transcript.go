// Package transcript is the chat screen's scrollable conversation: its
// entries (turns, tool calls, notices, recalls, compaction and sources
// marks), their rendering, cached per width, and virtual scrolling. The
// root model (tui) owns one and decides what goes in; nothing here does
// I/O.
package transcript

import (
	"log/slog"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/tui/render"
	"github.com/mneme-dev/mneme/tui/styles"
)

// Kind is what a transcript entry shows.
type Kind int

const (
	KindUser Kind = iota
	KindAssistant
	KindTool
	KindNotice
	KindError
	KindRecall     // the saved notes recalled for a prompt (a context receipt)
	KindCompaction // where the model history was compacted (marks.go)
	KindSources    // the document passages an answer cites (marks.go)
)

// Entry is one block of the transcript.
type Entry struct {
	Kind        Kind
	Text        string // as received; sanitised when rendered
	thinking    string
	tool        agent.ToolActivity
	toolDone    bool
	alike       int              // further tool calls after this one that failed the same way, folded into it
	memories    []agent.Memory   // entryRecall
	summary     memory.Summary   // entryCompaction
	cites       []agent.Citation // entrySources
	seq         int              // the stored message the entry shows (0: not from history)
	Interrupted bool
	empty       bool // a final reply that was empty (agent.Result.NoAnswer)
	Elsewhere   bool // stored interrupted, but another mneme is still writing it
	Passing     bool // a notice of a wait (agent.NoticeEvent.Passing): gone when the run goes on
	streaming   bool // the answer is still arriving
	Turn        int  // the turn the entry belongs to (0: not from history)
	Highlight   bool // briefly marked after jumping to its turn

	view      string   // rendered block, valid when viewWidth is the current width
	lines     []string // view, one string a row
	ViewWidth int

	// While streaming: the glamour rendering of a stable prefix of text,
	// and of the open block after it as of liveSrc (the text rendered).
	stableSrc  string
	stableView string
	liveSrc    string
	openView   string
}

// LiveRenderInterval is the least time between two glamour renderings of
// an answer that is still streaming; in between, the last rendering stays
// on screen (and the spinner's tick brings it up to date: LiveStale).
const LiveRenderInterval = 120 * time.Millisecond

// minContentWidth keeps rendering sane in absurdly narrow terminals.
const minContentWidth = render.MinWidth

// Transcript is the scrollable conversation. Entries are rendered when
// they first come into view and cached per width; the streaming answer is
// rendered again as it grows. Scrolling is virtual (scroll.go).
type Transcript struct {
	Entries  []Entry
	Turns    memory.TurnCounter // numbers the entries' turns as the store does
	md       *render.Markdown
	st       *styles.Styles
	log      *slog.Logger
	width    int
	Height   int
	now      time.Time // of the last refresh, for rendering a streaming answer
	lastLive time.Time // last glamour rendering of a streaming answer
	details  bool      // tool calls, thinking and recalls show their details
	// detailsKey names the key that toggles details, for the hints in
	// collapsed entries.
	DetailsKey string

	Pos    ScrollPos // the first row on screen
	Follow bool      // the last row is on screen: new text scrolls into view
	page   string    // the rows on screen, drawn by prepare
}

func New(st *styles.Styles, log *slog.Logger) Transcript {
	return Transcript{md: render.NewMarkdown(st.Markdown), st: st, log: log, Follow: true}
}

// SetSize resizes the page; a new width re-renders the entries in view.
func (t *Transcript) SetSize(width, height int, now time.Time) {
	height = max(height, 1)
	if width == t.width && height == t.Height {
		return
	}
	// A reader scrolled up stays where they were (tmux zoom, a split pane):
	// a row inside an entry is kept at the same share of it at the new
	// width. Only a page that comes to show the last row follows again.
	if width != t.width {
		oldLen := 0
		if t.Pos.entry < len(t.Entries) && t.width > 0 {
			oldLen = t.blockLen(t.Pos.entry)
		}
		t.width = width
		for i := range t.Entries {
			t.Entries[i].clearLive()
		}
		t.lastLive = time.Time{}
		if oldLen > 0 {
			t.Pos.row = t.Pos.row * t.blockLen(t.Pos.entry) / oldLen
		}
	}
	t.Height = height
	t.Refresh(now, false)
}

// Load replaces the transcript with stored messages.
func (t *Transcript) Load(msgs []memory.Message) {
	t.Entries, t.Turns = FromHistory(msgs)
}

// GotoTurn scrolls so that turn n starts at the top and highlights it.
// It reports whether the conversation has that turn.
func (t *Transcript) GotoTurn(n int) bool {
	found := -1
	for i := range t.Entries {
		e := &t.Entries[i]
		if e.Turn == n {
			if found < 0 {
				found = i
			}
			e.Highlight, e.ViewWidth = true, 0
		}
	}
	return found >= 0 && t.scrollToEntry(found)
}

// ClearHighlight ends the highlight of a jumped-to turn.
func (t *Transcript) ClearHighlight() {
	for i := range t.Entries {
		if t.Entries[i].Highlight {
			t.Entries[i].Highlight, t.Entries[i].ViewWidth = false, 0
		}
	}
}

// AddUser shows a prompt as it is stored, starting a turn numbered as a
// reloaded transcript numbers it.
func (t *Transcript) AddUser(text string) {
	turn := t.Turns.Add(memory.Message{Role: memory.RoleUser, Content: text})
	t.Entries = append(t.Entries, Entry{Kind: KindUser, Text: text, Turn: turn})
}

// Answered counts an assistant message stored for the current prompt (an
// answer, a tool call, an interrupted answer): the next prompt starts a new
// turn.
func (t *Transcript) Answered() int {
	return t.Turns.Add(memory.Message{Role: memory.RoleAssistant})
}

func (t *Transcript) AddNotice(text string) {
	t.Entries = append(t.Entries, Entry{Kind: KindNotice, Text: text})
}

// DropPassing removes the notices of a wait that is over.
func (t *Transcript) DropPassing() {
	t.Entries = slices.DeleteFunc(t.Entries, func(e Entry) bool { return e.Passing })
}

func (t *Transcript) AddError(text string) {
	t.Entries = append(t.Entries, Entry{Kind: KindError, Text: text})
}

// live returns the streaming answer, starting one if needed.
func (t *Transcript) live() *Entry {
	if n := len(t.Entries); n > 0 && t.Entries[n-1].streaming {
		return &t.Entries[n-1]
	}
	t.Entries = append(t.Entries, Entry{Kind: KindAssistant, streaming: true, Turn: t.Answered()})
	return &t.Entries[len(t.Entries)-1]
}

func (t *Transcript) AppendContent(s string) {
	e := t.live()
	e.Text, e.ViewWidth = e.Text+s, 0
}

func (t *Transcript) AppendThinking(s string) {
	e := t.live()
	e.thinking, e.ViewWidth = e.thinking+s, 0
}

// EndLive finishes the streaming answer, if there is one, and reports
// whether there was. An empty answer that was not interrupted is dropped.
func (t *Transcript) EndLive(interrupted bool) bool {
	n := len(t.Entries)
	if n == 0 || !t.Entries[n-1].streaming {
		return false
	}
	e := &t.Entries[n-1]
	e.streaming, e.ViewWidth = false, 0
	e.clearLive()
	e.Interrupted = interrupted
	if e.Text == "" && e.thinking == "" && !interrupted {
		t.Entries = t.Entries[:n-1]
	}
	return true
}

// AddNoAnswer marks a run whose model replied nothing.
func (t *Transcript) AddNoAnswer() {
	t.Entries = append(t.Entries, Entry{Kind: KindAssistant, empty: true, Turn: t.Answered()})
}

// AddInterrupted marks a run stopped before it wrote anything.
func (t *Transcript) AddInterrupted() {
	t.Entries = append(t.Entries, Entry{Kind: KindAssistant, Interrupted: true, Turn: t.Answered()})
}

// AddRecall shows the notes recalled for the prompt being answered.
func (t *Transcript) AddRecall(mems []agent.Memory) {
	t.EndLive(false)
	t.Entries = append(t.Entries, Entry{Kind: KindRecall, memories: mems})
}

// HasDetails reports whether any entry has details to expand.
func (t *Transcript) HasDetails() bool {
	for i := range t.Entries {
		if t.Entries[i].hasDetail() {
			return true
		}
	}
	return false
}

// ToggleDetails expands or collapses thinking, tool calls, receipts and
// compaction summaries.
func (t *Transcript) ToggleDetails() {
	t.details = !t.details
	for i := range t.Entries {
		if t.Entries[i].hasDetail() {
			t.Entries[i].ViewWidth = 0
		}
	}
}

func (t *Transcript) ToolCall(act agent.ToolActivity) {
	t.EndLive(false)
	t.Entries = append(t.Entries, Entry{Kind: KindTool, tool: act, Turn: t.Answered()})
}

func (t *Transcript) ToolResult(act agent.ToolActivity) {
	for i := len(t.Entries) - 1; i >= 0; i-- {
		e := &t.Entries[i]
		if e.Kind == KindTool && !e.toolDone && (e.tool.ID == act.ID || act.ID == "" && e.tool.Name == act.Name) {
			e.tool, e.toolDone, e.ViewWidth = act, true, 0
			if i == len(t.Entries)-1 {
				t.Entries = foldAlike(t.Entries[:i], *e)
			}
			return
		}
	}
	t.Entries = foldAlike(t.Entries, Entry{Kind: KindTool, tool: act, toolDone: true, Turn: t.Turns.Current()})
}

// foldAlike appends a finished tool call's entry, or counts it in the one
// before when both failed the same way (whatever tool they called): a
// reply of 200 calls, 184 of them over the limit, is one line for those.
func foldAlike(entries []Entry, e Entry) []Entry {
	if n := len(entries); n > 0 && e.Kind == KindTool && e.tool.Error != "" {
		if prev := &entries[n-1]; prev.Kind == KindTool && prev.toolDone && e.tool.FailedLike(prev.tool) {
			prev.alike++
			prev.ViewWidth = 0
			return entries
		}
	}
	return append(entries, e)
}

func (t *Transcript) Wheel(msg tea.MouseWheelMsg) {
	switch msg.Button {
	case tea.MouseWheelUp:
		t.wheelUp()
	case tea.MouseWheelDown:
		t.wheelDown()
	}
}

// Refresh draws the page again after entries changed. The page follows
// new text when it was at the bottom (or follow is set).
func (t *Transcript) Refresh(now time.Time, follow bool) {
	t.now = now
	if t.width <= 0 {
		return
	}
	if n := len(t.Entries); n > 0 && t.Entries[n-1].streaming {
		t.Entries[n-1].ViewWidth = 0 // the live answer may render differently now
	}
	if follow || t.Follow {
		t.Bottom()
		return
	}
	t.scrollTo(t.Pos)
}

func (t *Transcript) View() string { return t.page }

func (t *Transcript) render(e *Entry, now time.Time) string {
	w := max(t.width, minContentWidth)
	switch e.Kind {
	case KindUser:
		if e.Highlight {
			return t.st.UserHighlight.Width(w).Render(sanitize.Text(e.Text))
		}
		return t.st.User.Width(w).Render(sanitize.Text(e.Text))
	case KindAssistant:
		return t.renderAssistant(e, now)
	case KindTool:
		line := render.ToolLine(t.st, e.tool, e.toolDone, w, t.details)
		if e.alike > 0 {
			line += "\n" + t.st.Notice.Width(w).Render("  "+agent.Alike(e.alike))
		}
		return line
	case KindRecall:
		return render.RecallLine(t.st, e.memories, w, t.details)
	case KindNotice:
		return t.st.Notice.Width(w).Render("• " + sanitize.Text(e.Text))
	case KindError:
		return t.st.Error.Width(w).Render("✗ " + sanitize.Text(e.Text))
	case KindCompaction:
		return t.renderCompaction(e, w)
	case KindSources:
		return render.Sources(t.st, e.cites, w, "")
	}
	return ""
}

func (t *Transcript) renderAssistant(e *Entry, now time.Time) string {
	w := max(t.width, minContentWidth)
	var parts []string
	if e.thinking != "" {
		parts = append(parts, render.Thinking(t.st, e.thinking, e.streaming && strings.TrimSpace(e.Text) == "", w, t.details))
	}
	if strings.TrimSpace(e.Text) != "" {
		if e.streaming {
			parts = append(parts, t.renderLive(e, now))
		} else {
			parts = append(parts, t.markdown(e.Text))
		}
	}
	switch {
	case e.Elsewhere:
		parts = append(parts, t.st.Interrupted.Render("(still being written by another mneme…)"))
	case e.Interrupted:
		parts = append(parts, t.st.Interrupted.Render("(interrupted)"))
	case e.empty:
		parts = append(parts, t.st.Interrupted.Render("(no answer: the model's reply was empty; ask again, or try another model with /model)"))
	}
	return strings.Join(parts, "\n")
}

// renderLive renders a streaming answer as markdown while it grows: the
// stable prefix (rendered again only when a block is complete) and the
// open block after it, with an unclosed code fence closed so that the code
// being written shows as code. Glamour runs at most every
// liveRenderInterval; in between, the last rendering stays.
func (t *Transcript) renderLive(e *Entry, now time.Time) string {
	if e.liveSrc != e.Text && (e.liveSrc == "" || now.Sub(t.lastLive) >= LiveRenderInterval) {
		if stable := render.StablePrefix(e.Text); stable != e.stableSrc {
			e.stableSrc, e.stableView = stable, t.markdown(stable)
		}
		e.openView = t.markdown(render.CloseOpenBlock(e.Text[len(e.stableSrc):]))
		e.liveSrc, t.lastLive = e.Text, now
	}
	switch {
	case e.stableView == "":
		return e.openView
	case e.openView == "":
		return e.stableView
	}
	return e.stableView + "\n\n" + e.openView
}

// LiveStale reports whether the streaming answer has text not rendered
// yet (held back by liveRenderInterval).
func (t *Transcript) LiveStale() bool {
	n := len(t.Entries)
	return n > 0 && t.Entries[n-1].streaming && t.Entries[n-1].liveSrc != t.Entries[n-1].Text
}

// clearLive forgets the renderings of a streaming answer.
func (e *Entry) clearLive() {
	e.stableSrc, e.stableView, e.liveSrc, e.openView = "", "", "", ""
}

// markdown renders finished markdown, falling back to plain text.
func (t *Transcript) markdown(src string) string {
	if strings.TrimSpace(src) == "" {
		return ""
	}
	out, err := t.md.Render(src, t.width)
	if err != nil {
		t.log.Warn("markdown rendering failed", "err", err)
		return t.st.Assistant.Width(max(t.width, minContentWidth)).Render(sanitize.Text(src))
	}
	return out
}

// hasDetail reports whether an entry expands with the details key.
func (e *Entry) hasDetail() bool {
	switch e.Kind {
	case KindTool, KindRecall, KindCompaction:
		return true
	case KindAssistant:
		return strings.TrimSpace(e.thinking) != ""
	}
	return false
}

// compact kinds are one-line entries kept together without blank lines.
func compact(k Kind) bool { return k == KindTool || k == KindRecall || k == KindSources }

// entriesFromHistory turns stored messages into transcript entries,
// numbered by turn with the counter that goes on numbering live entries.
// Tool results are paired with the calls that asked for them.
func FromHistory(msgs []memory.Message) ([]Entry, memory.TurnCounter) {
	var (
		out   []Entry
		calls = map[string]memory.ToolCall{}
		turns memory.TurnCounter
		cites sourcesOfTurn
	)
	for _, m := range msgs {
		if m.Role == memory.RoleUser {
			out = cites.flush(out)
		}
		first, turn := len(out), turns.Add(m)
		switch m.Role {
		case memory.RoleUser:
			out = append(out, Entry{Kind: KindUser, Text: m.Content})
		case memory.RoleAssistant:
			for _, c := range m.ToolCalls {
				calls[c.ID] = c
			}
			interrupted := m.Status == memory.StatusInterrupted
			switch {
			case strings.TrimSpace(m.Content) != "" || strings.TrimSpace(m.Thinking) != "" || interrupted:
				out = append(out, Entry{Kind: KindAssistant, Text: m.Content, thinking: m.Thinking, Interrupted: interrupted})
			case len(m.ToolCalls) == 0: // a final reply that was empty
				out = append(out, Entry{Kind: KindAssistant, empty: true})
			}
			cites.answer(m.Content)
		case memory.RoleTool:
			act := agent.ToolActivity{ID: m.ToolCallID, Name: m.ToolName}
			if c, ok := calls[m.ToolCallID]; ok {
				act.Args = string(c.Arguments)
				if act.Name == "" {
					act.Name = c.Name
				}
			}
			act.Result, act.Error = agent.ToolOutcome(m.Content)
			out = foldAlike(out, Entry{Kind: KindTool, tool: act, toolDone: true})
			cites.add(agent.StoredCitations(act.Name, m.Content))
		}
		for i := first; i < len(out); i++ {
			out[i].Turn, out[i].seq = turn, m.Seq
		}
	}
	return cites.flush(out), turns
}

// LastAnswer is the text of the last answer in the transcript.
func (t *Transcript) LastAnswer() string {
	for i := len(t.Entries) - 1; i >= 0; i-- {
		if e := t.Entries[i]; e.Kind == KindAssistant && strings.TrimSpace(e.Text) != "" {
			return e.Text
		}
	}
	return ""
}

// Restyle renders every entry again in the current styles.
func (t *Transcript) Restyle() {
	t.md = render.NewMarkdown(t.st.Markdown)
	for i := range t.Entries {
		t.Entries[i].ViewWidth, t.Entries[i].stableSrc, t.Entries[i].stableView = 0, "", ""
	}
	t.lastLive = time.Time{}
	t.Refresh(t.now, false)
}
