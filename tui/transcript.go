package tui

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
)

// entryKind is what a transcript entry shows.
type entryKind int

const (
	entryUser entryKind = iota
	entryAssistant
	entryTool
	entryNotice
	entryError
	entryRecall     // the saved notes recalled for a prompt (a context receipt)
	entryCompaction // where the model history was compacted (compaction.go)
	entrySources    // the document passages an answer cites (documents.go)
)

// entry is one block of the transcript.
type entry struct {
	kind        entryKind
	text        string // as received; sanitised when rendered
	thinking    string
	tool        agent.ToolActivity
	toolDone    bool
	alike       int              // further tool calls after this one that failed the same way, folded into it
	memories    []agent.Memory   // entryRecall
	summary     memory.Summary   // entryCompaction
	cites       []agent.Citation // entrySources
	seq         int              // the stored message the entry shows (0: not from history)
	interrupted bool
	empty       bool // a final reply that was empty (agent.Result.NoAnswer)
	elsewhere   bool // stored interrupted, but another mneme is still writing it
	passing     bool // a notice of a wait (agent.NoticeEvent.Passing): gone when the run goes on
	streaming   bool // the answer is still arriving
	turn        int  // the turn the entry belongs to (0: not from history)
	highlight   bool // briefly marked after jumping to its turn

	view      string   // rendered block, valid when viewWidth is the current width
	lines     []string // view, one string a row
	viewWidth int

	// While streaming: the glamour rendering of a stable prefix of text,
	// and of the open block after it as of liveSrc (the text rendered).
	stableSrc  string
	stableView string
	liveSrc    string
	openView   string
}

// liveRenderInterval is the least time between two glamour renderings of
// an answer that is still streaming; in between, the last rendering stays
// on screen (and the spinner's tick brings it up to date: liveStale).
const liveRenderInterval = 120 * time.Millisecond

// minContentWidth keeps rendering sane in absurdly narrow terminals.
const minContentWidth = render.MinWidth

// transcript is the scrollable conversation. Entries are rendered when
// they first come into view and cached per width; the streaming answer is
// rendered again as it grows. Scrolling is virtual (scroll.go).
type transcript struct {
	entries  []entry
	turns    memory.TurnCounter // numbers the entries' turns as the store does
	md       *render.Markdown
	st       *Styles
	log      *slog.Logger
	width    int
	height   int
	now      time.Time // of the last refresh, for rendering a streaming answer
	lastLive time.Time // last glamour rendering of a streaming answer
	details  bool      // tool calls, thinking and recalls show their details
	// detailsKey names the key that toggles details, for the hints in
	// collapsed entries.
	detailsKey string

	pos    scrollPos // the first row on screen
	follow bool      // the last row is on screen: new text scrolls into view
	page   string    // the rows on screen, drawn by prepare
}

func newTranscript(st *Styles, log *slog.Logger) transcript {
	return transcript{md: render.NewMarkdown(st.Markdown), st: st, log: log, follow: true}
}

// setSize resizes the page; a new width re-renders the entries in view.
func (t *transcript) setSize(width, height int, now time.Time) {
	height = max(height, 1)
	if width == t.width && height == t.height {
		return
	}
	// A reader scrolled up stays where they were (tmux zoom, a split pane):
	// a row inside an entry is kept at the same share of it at the new
	// width. Only a page that comes to show the last row follows again.
	if width != t.width {
		oldLen := 0
		if t.pos.entry < len(t.entries) && t.width > 0 {
			oldLen = t.blockLen(t.pos.entry)
		}
		t.width = width
		for i := range t.entries {
			t.entries[i].clearLive()
		}
		t.lastLive = time.Time{}
		if oldLen > 0 {
			t.pos.row = t.pos.row * t.blockLen(t.pos.entry) / oldLen
		}
	}
	t.height = height
	t.refresh(now, false)
}

// load replaces the transcript with stored messages.
func (t *transcript) load(msgs []memory.Message) {
	t.entries, t.turns = entriesFromHistory(msgs)
}

// gotoTurn scrolls so that turn n starts at the top and highlights it.
// It reports whether the conversation has that turn.
func (t *transcript) gotoTurn(n int) bool {
	found := -1
	for i := range t.entries {
		e := &t.entries[i]
		if e.turn == n {
			if found < 0 {
				found = i
			}
			e.highlight, e.viewWidth = true, 0
		}
	}
	return found >= 0 && t.scrollToEntry(found)
}

// clearHighlight ends the highlight of a jumped-to turn.
func (t *transcript) clearHighlight() {
	for i := range t.entries {
		if t.entries[i].highlight {
			t.entries[i].highlight, t.entries[i].viewWidth = false, 0
		}
	}
}

// addUser shows a prompt as it is stored, starting a turn numbered as a
// reloaded transcript numbers it.
func (t *transcript) addUser(text string) {
	turn := t.turns.Add(memory.Message{Role: memory.RoleUser, Content: text})
	t.entries = append(t.entries, entry{kind: entryUser, text: text, turn: turn})
}

// answered counts an assistant message stored for the current prompt (an
// answer, a tool call, an interrupted answer): the next prompt starts a new
// turn.
func (t *transcript) answered() int {
	return t.turns.Add(memory.Message{Role: memory.RoleAssistant})
}

func (t *transcript) addNotice(text string) {
	t.entries = append(t.entries, entry{kind: entryNotice, text: text})
}

// dropPassing removes the notices of a wait that is over.
func (t *transcript) dropPassing() {
	t.entries = slices.DeleteFunc(t.entries, func(e entry) bool { return e.passing })
}

func (t *transcript) addError(text string) {
	t.entries = append(t.entries, entry{kind: entryError, text: text})
}

// live returns the streaming answer, starting one if needed.
func (t *transcript) live() *entry {
	if n := len(t.entries); n > 0 && t.entries[n-1].streaming {
		return &t.entries[n-1]
	}
	t.entries = append(t.entries, entry{kind: entryAssistant, streaming: true, turn: t.answered()})
	return &t.entries[len(t.entries)-1]
}

func (t *transcript) appendContent(s string) {
	e := t.live()
	e.text, e.viewWidth = e.text+s, 0
}

func (t *transcript) appendThinking(s string) {
	e := t.live()
	e.thinking, e.viewWidth = e.thinking+s, 0
}

// endLive finishes the streaming answer, if there is one, and reports
// whether there was. An empty answer that was not interrupted is dropped.
func (t *transcript) endLive(interrupted bool) bool {
	n := len(t.entries)
	if n == 0 || !t.entries[n-1].streaming {
		return false
	}
	e := &t.entries[n-1]
	e.streaming, e.viewWidth = false, 0
	e.clearLive()
	e.interrupted = interrupted
	if e.text == "" && e.thinking == "" && !interrupted {
		t.entries = t.entries[:n-1]
	}
	return true
}

// addNoAnswer marks a run whose model replied nothing.
func (t *transcript) addNoAnswer() {
	t.entries = append(t.entries, entry{kind: entryAssistant, empty: true, turn: t.answered()})
}

// addInterrupted marks a run stopped before it wrote anything.
func (t *transcript) addInterrupted() {
	t.entries = append(t.entries, entry{kind: entryAssistant, interrupted: true, turn: t.answered()})
}

// addRecall shows the notes recalled for the prompt being answered.
func (t *transcript) addRecall(mems []agent.Memory) {
	t.endLive(false)
	t.entries = append(t.entries, entry{kind: entryRecall, memories: mems})
}

// hasDetails reports whether any entry has details to expand.
func (t *transcript) hasDetails() bool {
	for i := range t.entries {
		if t.entries[i].hasDetail() {
			return true
		}
	}
	return false
}

// toggleDetails expands or collapses thinking, tool calls, receipts and
// compaction summaries.
func (t *transcript) toggleDetails() {
	t.details = !t.details
	for i := range t.entries {
		if t.entries[i].hasDetail() {
			t.entries[i].viewWidth = 0
		}
	}
}

func (t *transcript) toolCall(act agent.ToolActivity) {
	t.endLive(false)
	t.entries = append(t.entries, entry{kind: entryTool, tool: act, turn: t.answered()})
}

func (t *transcript) toolResult(act agent.ToolActivity) {
	for i := len(t.entries) - 1; i >= 0; i-- {
		e := &t.entries[i]
		if e.kind == entryTool && !e.toolDone && (e.tool.ID == act.ID || act.ID == "" && e.tool.Name == act.Name) {
			e.tool, e.toolDone, e.viewWidth = act, true, 0
			if i == len(t.entries)-1 {
				t.entries = foldAlike(t.entries[:i], *e)
			}
			return
		}
	}
	t.entries = foldAlike(t.entries, entry{kind: entryTool, tool: act, toolDone: true, turn: t.turns.Current()})
}

// foldAlike appends a finished tool call's entry, or counts it in the one
// before when both failed the same way (whatever tool they called): a
// reply of 200 calls, 184 of them over the limit, is one line for those.
func foldAlike(entries []entry, e entry) []entry {
	if n := len(entries); n > 0 && e.kind == entryTool && e.tool.Error != "" {
		if prev := &entries[n-1]; prev.kind == entryTool && prev.toolDone && e.tool.FailedLike(prev.tool) {
			prev.alike++
			prev.viewWidth = 0
			return entries
		}
	}
	return append(entries, e)
}

func (t *transcript) wheel(msg tea.MouseWheelMsg) {
	switch msg.Button {
	case tea.MouseWheelUp:
		t.wheelUp()
	case tea.MouseWheelDown:
		t.wheelDown()
	}
}

// refresh draws the page again after entries changed. The page follows
// new text when it was at the bottom (or follow is set).
func (t *transcript) refresh(now time.Time, follow bool) {
	t.now = now
	if t.width <= 0 {
		return
	}
	if n := len(t.entries); n > 0 && t.entries[n-1].streaming {
		t.entries[n-1].viewWidth = 0 // the live answer may render differently now
	}
	if follow || t.follow {
		t.bottom()
		return
	}
	t.scrollTo(t.pos)
}

func (t *transcript) view() string { return t.page }

func (t *transcript) render(e *entry, now time.Time) string {
	w := max(t.width, minContentWidth)
	switch e.kind {
	case entryUser:
		if e.highlight {
			return t.st.UserHighlight.Width(w).Render(sanitize.Text(e.text))
		}
		return t.st.User.Width(w).Render(sanitize.Text(e.text))
	case entryAssistant:
		return t.renderAssistant(e, now)
	case entryTool:
		line := render.ToolLine(t.st, e.tool, e.toolDone, w, t.details)
		if e.alike > 0 {
			line += "\n" + t.st.Notice.Width(w).Render("  "+agent.Alike(e.alike))
		}
		return line
	case entryRecall:
		return render.RecallLine(t.st, e.memories, w, t.details)
	case entryNotice:
		return t.st.Notice.Width(w).Render("• " + sanitize.Text(e.text))
	case entryError:
		return t.st.Error.Width(w).Render("✗ " + sanitize.Text(e.text))
	case entryCompaction:
		return t.renderCompaction(e, w)
	case entrySources:
		return render.Sources(t.st, e.cites, w, "")
	}
	return ""
}

func (t *transcript) renderAssistant(e *entry, now time.Time) string {
	w := max(t.width, minContentWidth)
	var parts []string
	if e.thinking != "" {
		parts = append(parts, render.Thinking(t.st, e.thinking, e.streaming && strings.TrimSpace(e.text) == "", w, t.details))
	}
	if strings.TrimSpace(e.text) != "" {
		if e.streaming {
			parts = append(parts, t.renderLive(e, now))
		} else {
			parts = append(parts, t.markdown(e.text))
		}
	}
	switch {
	case e.elsewhere:
		parts = append(parts, t.st.Interrupted.Render("(still being written by another mneme…)"))
	case e.interrupted:
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
func (t *transcript) renderLive(e *entry, now time.Time) string {
	if e.liveSrc != e.text && (e.liveSrc == "" || now.Sub(t.lastLive) >= liveRenderInterval) {
		if stable := render.StablePrefix(e.text); stable != e.stableSrc {
			e.stableSrc, e.stableView = stable, t.markdown(stable)
		}
		e.openView = t.markdown(render.CloseOpenBlock(e.text[len(e.stableSrc):]))
		e.liveSrc, t.lastLive = e.text, now
	}
	switch {
	case e.stableView == "":
		return e.openView
	case e.openView == "":
		return e.stableView
	}
	return e.stableView + "\n\n" + e.openView
}

// liveStale reports whether the streaming answer has text not rendered
// yet (held back by liveRenderInterval).
func (t *transcript) liveStale() bool {
	n := len(t.entries)
	return n > 0 && t.entries[n-1].streaming && t.entries[n-1].liveSrc != t.entries[n-1].text
}

// clearLive forgets the renderings of a streaming answer.
func (e *entry) clearLive() {
	e.stableSrc, e.stableView, e.liveSrc, e.openView = "", "", "", ""
}

// markdown renders finished markdown, falling back to plain text.
func (t *transcript) markdown(src string) string {
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
func (e *entry) hasDetail() bool {
	switch e.kind {
	case entryTool, entryRecall, entryCompaction:
		return true
	case entryAssistant:
		return strings.TrimSpace(e.thinking) != ""
	}
	return false
}

// compact kinds are one-line entries kept together without blank lines.
func compact(k entryKind) bool { return k == entryTool || k == entryRecall || k == entrySources }

// entriesFromHistory turns stored messages into transcript entries,
// numbered by turn with the counter that goes on numbering live entries.
// Tool results are paired with the calls that asked for them.
func entriesFromHistory(msgs []memory.Message) ([]entry, memory.TurnCounter) {
	var (
		out   []entry
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
			out = append(out, entry{kind: entryUser, text: m.Content})
		case memory.RoleAssistant:
			for _, c := range m.ToolCalls {
				calls[c.ID] = c
			}
			interrupted := m.Status == memory.StatusInterrupted
			switch {
			case strings.TrimSpace(m.Content) != "" || strings.TrimSpace(m.Thinking) != "" || interrupted:
				out = append(out, entry{kind: entryAssistant, text: m.Content, thinking: m.Thinking, interrupted: interrupted})
			case len(m.ToolCalls) == 0: // a final reply that was empty
				out = append(out, entry{kind: entryAssistant, empty: true})
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
			out = foldAlike(out, entry{kind: entryTool, tool: act, toolDone: true})
			cites.add(agent.StoredCitations(act.Name, m.Content))
		}
		for i := first; i < len(out); i++ {
			out[i].turn, out[i].seq = turn, m.Seq
		}
	}
	return cites.flush(out), turns
}
