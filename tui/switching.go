package tui

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/tui/internal/recent"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/sidebar"
	"github.com/mneme-dev/mneme/tui/transcript"
)

// Switching conversations: the sidebar, /switch, /new, a search result and
// a note's provenance all open a conversation through openConversation.
// The transcripts of the last few conversations are kept, rendered, so that
// going back to one is instant; the store is still read in the background,
// and the transcript replaced only if the conversation changed meanwhile
// (another device, another mneme). Where the reader was in each
// conversation is remembered for the whole session.

// maxCachedConversations is how many transcripts are kept besides the open one.
const maxCachedConversations = 8

// cachedConversation is a conversation's transcript as it was left.
type cachedConversation struct {
	entries  []transcript.Entry
	turns    memory.TurnCounter
	title    string
	archived bool
	msgCount int // stored messages the entries show
	context  int
}

// convCache keeps the transcripts of recently open conversations, most
// recently left last. It is shared by the copies of a Model.
type convCache struct {
	*recent.List[cachedConversation]
	scrolls map[string]transcript.Position // where the reader was, by conversation
}

func newConvCache() *convCache {
	return &convCache{List: recent.New[cachedConversation](maxCachedConversations), scrolls: map[string]transcript.Position{}}
}

// forget drops everything kept about a deleted conversation.
func (c *convCache) forget(id string) {
	c.Drop(id)
	delete(c.scrolls, id)
}

// stash keeps the open conversation's transcript and position for later.
func (m *Model) stash() {
	if m.convID == "" {
		return
	}
	m.cache.scrolls[m.convID] = m.transcript.Position()
	m.cache.Put(m.convID, cachedConversation{
		entries: m.transcript.Entries, turns: m.transcript.Turns, title: m.title, archived: m.archived,
		msgCount: m.msgCount, context: m.contextPct,
	})
	m.transcript.Entries, m.transcript.Turns = nil, memory.TurnCounter{}
	m.others = othersTail{}
	m.dropRecalled()
}

// clearConversation empties the screen for a conversation not started yet.
func (m *Model) clearConversation() {
	m.convID, m.title, m.archived, m.msgCount, m.contextPct = "", "", false, 0, 0
	m.resumeID, m.resumeTurn, m.loading = "", 0, false
	m.transcript.Entries, m.transcript.Turns = nil, memory.TurnCounter{}
	m.others = othersTail{}
	m.dropRecalled()
	if m.incognito() {
		m.transcript.AddNotice(IncognitoNotice)
	}
	m.transcript.Refresh(m.now(), true)
	m.sidebar.SetCurrent("")
}

// newConversation starts an empty conversation (created on the first send).
func (m *Model) newConversation() tea.Cmd {
	if why := m.commandBusy(); why != "" {
		m.hint = why
		return nil
	}
	if leave := m.leaveIncognito(); leave != nil {
		m.hint = "New conversation: the incognito chat is forgotten."
		return leave
	}
	if m.convID == "" {
		m.hint = "This is a new conversation already."
		return nil
	}
	m.stash()
	m.clearConversation()
	m.hint = "New conversation: it is saved once you send a message."
	return nil
}

// openConversation shows conversation id (titled title, when known),
// scrolled to turn (0: where the reader last was, or the end).
func (m *Model) openConversation(id, title string, turn int) tea.Cmd {
	if why := m.commandBusy(); why != "" {
		m.hint = why
		return nil
	}
	if leave := m.leaveIncognito(); leave != nil {
		return tea.Batch(leave, m.openConversation(id, title, turn))
	}
	m.focus = focusInput
	m.sidebar.Blur()
	if id == m.convID {
		if turn > 0 {
			return m.landOnTurn(turn)
		}
		m.hint = "Already in “" + sanitize.Line(panel.DisplayTitle(m.title)) + "”."
		return nil
	}
	m.stash()
	m.sidebar.SetCurrent(id)
	m.convID, m.resumeID, m.resumeTurn = id, id, turn
	load := loadHistoryCmd(m.life.ctx, m.store, m.userID, id, m.cfg.Answering)
	if cc, ok := m.cache.Take(id); ok {
		m.title, m.archived, m.msgCount, m.contextPct = cc.title, cc.archived, cc.msgCount, cc.context
		m.transcript.Entries, m.transcript.Turns = cc.entries, cc.turns
		m.loading = false
		var cmd tea.Cmd
		if turn > 0 {
			cmd = m.landOnTurn(turn)
			m.resumeTurn = 0
		} else {
			m.restoreScroll(id)
		}
		// Read it again in the background: it may have changed meanwhile.
		return tea.Batch(cmd, load)
	}
	m.title, m.archived, m.msgCount, m.contextPct = title, false, 0, 0
	m.transcript.Entries, m.transcript.Turns = nil, memory.TurnCounter{}
	m.transcript.Refresh(m.now(), true)
	m.loading = true
	return load
}

// restoreScroll goes back to where the reader was in conversation id, or
// to its end.
func (m *Model) restoreScroll(id string) {
	m.transcript.Refresh(m.now(), false)
	if s, ok := m.cache.scrolls[id]; ok {
		m.transcript.Restore(s)
		return
	}
	m.transcript.Bottom()
}

// landOnTurn scrolls to turn n of the open conversation and highlights it
// for a moment.
func (m *Model) landOnTurn(n int) tea.Cmd {
	m.transcript.ClearHighlight()
	m.transcript.Refresh(m.now(), false)
	if !m.transcript.GotoTurn(n) {
		m.hint = fmt.Sprintf("This conversation has no turn %d.", n)
		return nil
	}
	return m.tick(highlightFor, func(time.Time) tea.Msg { return highlightDoneMsg{} })
}

// historyIsCurrent reports whether a loaded history only confirms the
// transcript already shown (from the cache), so nothing needs replacing.
func (m *Model) historyIsCurrent(msg historyMsg) bool {
	return !m.loading && msg.err == nil && msg.conv.ID == m.convID && len(msg.msgs) == m.msgCount &&
		len(m.transcript.Entries) > 0 && !slices.ContainsFunc(msg.msgs, halfWritten) // one may have been finished since
}

// halfWritten reports whether a message is stored as interrupted: cut
// off, or still being written by another mneme.
func halfWritten(m memory.Message) bool { return m.Status == memory.StatusInterrupted }

// followHalfWritten follows the conversation just drawn from msgs while
// one of its answers may still be being written elsewhere: the next
// changes of the store redraw it (handleOthersAdded), until they stop.
func (m *Model) followHalfWritten(msgs []memory.Message) {
	if slices.ContainsFunc(msgs, halfWritten) {
		m.others = othersTail{active: true, live: true, last: fingerprint(msgs)}
	}
}

// drawnAsWriting draws the last half-written answer of a conversation just
// opened as being written, when another mneme answers in it now (its turn
// lock), and remembers it as read: the next readings follow it.
func (m *Model) drawnAsWriting(msgs []memory.Message) {
	for i := len(msgs) - 1; i >= 0; i-- {
		if x := msgs[i]; x.Role == memory.RoleAssistant && halfWritten(x) {
			m.others.halfID, m.others.halfText, m.others.moving = x.ID, x.Content+"\x00"+x.Thinking, true
			break
		}
	}
	for i := len(m.transcript.Entries) - 1; i >= 0; i-- {
		if e := &m.transcript.Entries[i]; e.Kind == transcript.KindAssistant && e.Interrupted {
			e.Interrupted, e.Elsewhere, e.ViewWidth = false, true, 0
			return
		}
	}
}

// fingerprint tells two readings of a conversation apart.
func fingerprint(msgs []memory.Message) string {
	var b strings.Builder
	for _, x := range msgs {
		fmt.Fprintf(&b, "%s:%s:%d;", x.ID, x.Status, len(x.Content))
	}
	return b.String()
}

// handleConvChanged follows a rename, an archive or a delete.
func (m *Model) handleConvChanged(msg sidebar.ChangedMsg) tea.Cmd {
	name := "“" + sanitize.Line(panel.DisplayTitle(msg.Conv.Title)) + "”"
	if msg.Op == sidebar.OpDelete {
		m.sidebar.Deleted(msg.Conv.ID)
	}
	if msg.Err != nil {
		m.log.Warn("conversation change failed", "op", msg.Op, "conversation", msg.Conv.ID, "err", msg.Err)
		m.hint = fmt.Sprintf("Could not %s %s: %s", msg.Op, name, msg.Err.Error())
		return m.sidebar.Reload()
	}
	current := msg.Conv.ID == m.convID
	switch msg.Op {
	case sidebar.OpRename:
		if current {
			m.title = msg.Conv.Title
		}
		m.cache.Update(msg.Conv.ID, func(cc *cachedConversation) { cc.title = msg.Conv.Title })
		m.hint = "Renamed to " + name + "."
	case sidebar.OpArchive, sidebar.OpUnarchive:
		if current {
			m.archived = msg.Conv.Archived
		}
		m.cache.Update(msg.Conv.ID, func(cc *cachedConversation) { cc.archived = msg.Conv.Archived })
		if msg.Op == sidebar.OpArchive {
			m.hint = "Archived " + name + ": hidden from the list (ctrl+v shows it) and from search."
		} else {
			m.hint = "Unarchived " + name + "."
		}
	case sidebar.OpDelete:
		m.cache.forget(msg.Conv.ID)
		if current {
			m.clearConversation()
		}
		m.hint = "Deleted " + name + "."
		switch n := msg.ForgotNotes; {
		case n == 1:
			m.hint = "Deleted " + name + " and forgot the note learnt from it."
		case n > 1:
			m.hint = fmt.Sprintf("Deleted %s and forgot the %d notes learnt from it.", name, n)
		}
	}
	return tea.Batch(m.sidebar.Reload(), m.memoryStatusNow())
}

// renameCurrent renames the open conversation (/rename TITLE).
func (m *Model) renameCurrent(title string) tea.Cmd {
	switch {
	case m.cfg.Conversations == nil || m.incognito():
		m.unavailable("Renaming")
	case m.convID == "":
		m.input.Reset() // said, and done with: the next command starts afresh
		m.hint = "Nothing to rename yet: the conversation has not started."
	case title == "":
		m.hint = "Usage: /rename TITLE"
	default:
		m.input.Reset()
		c := memory.Conversation{ID: m.convID, Title: m.title, Archived: m.archived}
		return sidebar.RenameCmd(m.life.ctx, m.cfg.Conversations, m.userID, c, title)
	}
	return nil
}

// archiveCurrent archives the open conversation, or unarchives it (/archive).
func (m *Model) archiveCurrent() tea.Cmd {
	switch {
	case m.cfg.Conversations == nil || m.incognito():
		m.unavailable("Archiving")
	case m.convID == "":
		m.input.Reset() // said, and done with: the next command starts afresh
		m.hint = "Nothing to archive yet: the conversation has not started."
	default:
		m.input.Reset()
		c := memory.Conversation{ID: m.convID, Title: m.title, Archived: m.archived}
		return sidebar.ArchiveCmd(m.life.ctx, m.cfg.Conversations, m.userID, c, !m.archived)
	}
	return nil
}

// toggleSidebar shows the conversation list and gives it the keys; pressed
// while the list has them, it hides the list.
func (m *Model) toggleSidebar() tea.Cmd {
	if m.cfg.Conversations == nil {
		m.hint = "The conversation list is not available here."
		return nil
	}
	switch {
	case !m.sideOpen:
		m.sideOpen, m.focus = true, focusSidebar
		m.sidebar.SetCurrent(m.convID)
		return tea.Batch(m.sidebar.Reload(), m.sidebar.Focus())
	case m.focus == focusSidebar:
		m.sideOpen, m.focus = false, focusInput
		m.sidebar.Blur()
	default:
		m.focus = focusSidebar
		return m.sidebar.Focus()
	}
	return nil
}

// othersTail is where the transcript shows what another mneme added to
// the open conversation since this screen last wrote to it: the messages
// from index from, drawn from entry on. While the last of them may still
// be written (live), each change of the store reads them again.
type othersTail struct {
	from, entry  int
	active, live bool
	last         string // the fingerprint of the last reading, to tell a live answer still moving
	still        int    // reads in a row that found it unchanged
	// halfID and halfText are the last half-written answer as last read:
	// one new or changed since is being written elsewhere.
	halfID, halfText string
	// counting: an answer of this screen's ended, and msgCount is not yet
	// read again, so this screen's own messages would look like another's.
	counting bool
	// stale: this screen's answer began below one of another mneme's that
	// was still being written.
	stale bool
	// moving: a reading found the conversation changed, so an answer is
	// being written elsewhere (an old interrupted answer alone is not).
	moving bool
}

// staleReads is how many reads in a row must find another mneme's
// interrupted answer unchanged before it is no longer followed.
const staleReads = 3

// followOthers reads the open conversation again after the store changed,
// while no answer is being written here: turns another mneme added to it
// (`mneme ask -c` in a script, a second chat) are then shown, and an
// answer it is still writing is redrawn until done (handleOthersAdded).
func (m *Model) followOthers() tea.Cmd {
	if m.convID == "" || m.phase != phaseIdle || m.run != nil || m.loading || m.incognito() || m.others.counting {
		return nil
	}
	ctx, store, user, id, shown := m.life.ctx, m.store, m.userID, m.convID, m.msgCount
	live := m.others.active && m.others.live
	title, archived, answering := m.title, m.archived, m.cfg.Answering
	return func() tea.Msg {
		// Read before the messages: a lock let go after them would leave a
		// whole answer drawn as being written until the next reading.
		held := answering != nil && answering(id)
		c, err := store.Conversation(ctx, user, id)
		if errors.Is(err, memory.ErrNotFound) {
			return othersDeletedMsg{id: id}
		}
		if err != nil {
			return nil
		}
		if c.MessageCount <= shown && !live {
			if c.Title != title || c.Archived != archived { // renamed or archived elsewhere
				return othersAddedMsg{conv: c}
			}
			return nil
		}
		msgs, err := store.Messages(ctx, user, id)
		if err != nil {
			return nil
		}
		return othersAddedMsg{conv: c, msgs: msgs, answering: held, lockKnown: answering != nil}
	}
}

// handleOthersDeleted leaves the conversation another mneme deleted while
// it was open here: a new chat begins, and says why.
func (m *Model) handleOthersDeleted(msg othersDeletedMsg) {
	if msg.id != m.convID || m.phase != phaseIdle || m.run != nil || m.sidebar.Deleting(msg.id) {
		return // left already, a send will find it gone (ErrConversationGone), or the list here is deleting it
	}
	m.cache.forget(msg.id)
	m.clearConversation()
	m.transcript.AddNotice("The conversation open here was deleted in another mneme; this is a new one.")
	m.transcript.Refresh(m.now(), true)
}

// handleOthersAdded draws the messages another mneme added to the open
// conversation below what the transcript showed (its notices stay). An
// answer seen growing between two readings is drawn as still being
// written, and read again shortly (othersTickMsg) until it stops.
func (m *Model) handleOthersAdded(msg othersAddedMsg) tea.Cmd {
	if msg.conv.ID == m.convID {
		m.title, m.archived = msg.conv.Title, msg.conv.Archived
	}
	if msg.conv.ID != m.convID || m.phase != phaseIdle || m.run != nil || m.others.counting || len(msg.msgs) < m.msgCount {
		return nil
	}
	if !m.others.active {
		if len(msg.msgs) <= m.msgCount {
			return nil
		}
		m.others = othersTail{from: m.msgCount, entry: len(m.transcript.Entries), active: true}
	}
	if len(msg.msgs) < m.others.from || m.others.entry > len(m.transcript.Entries) {
		return nil // removed meanwhile: the next load of the conversation shows it
	}
	if len(msg.msgs) > m.msgCount {
		m.hint = "New messages from another mneme were added to this conversation."
	}
	before, _ := transcript.FromHistory(msg.msgs[:m.others.from])
	all, turns := transcript.FromHistory(msg.msgs)
	// An answer stored as interrupted is followed while the conversation
	// still changes: staleReads reads in a row that find it unchanged (its
	// writer was stopped for good) end that. Until then it is drawn as
	// still being written, not as interrupted.
	if mark := fingerprint(msg.msgs); mark == m.others.last {
		m.others.still++
	} else {
		m.others.last, m.others.still, m.others.moving = mark, 0, true
	}
	m.others.live = slices.ContainsFunc(msg.msgs, halfWritten) && m.others.still < staleReads
	tail := all[len(before):]
	writing := m.writingElsewhere(msg.msgs)
	if msg.lockKnown && msg.answering {
		// The turn lock says it: an answer saved once a second was read
		// twice between two saves, and drawn as interrupted mid-stream.
		// (Without the lock, one growing is still being written: synced
		// from another device, which holds no lock here.)
		last := len(msg.msgs) - 1
		writing = writing || last >= m.others.from && msg.msgs[last].Role == memory.RoleAssistant && halfWritten(msg.msgs[last])
		m.others.live = true
	}
	if writing { // its entry is the tail's last interrupted answer
		for i := len(tail) - 1; i >= 0; i-- {
			if tail[i].Kind == transcript.KindAssistant && tail[i].Interrupted {
				tail[i].Interrupted, tail[i].Elsewhere = false, true
				break
			}
		}
	}
	m.transcript.ReplaceFrom(m.others.entry, tail)
	m.transcript.Turns, m.msgCount = turns, len(msg.msgs)
	m.transcript.Refresh(m.now(), false)
	if !writing {
		return nil
	}
	return m.tick(othersReread, func(time.Time) tea.Msg { return othersTickMsg{} })
}

// othersReread is how soon an answer seen being written elsewhere is read
// again: when its writer stops (killed, or done with an answer it stores
// as interrupted), staleReads readings later it is drawn as interrupted.
const othersReread = 2 * time.Second

// writingElsewhere reports whether the last half-written answer another
// mneme added is new since the last reading or changed since: it is being
// written. An old one (stopped yesterday) is not. It remembers the answer
// as read, for the next reading (the conversation's fingerprint cannot
// tell: a turn added beside an old stopped answer changes it too).
func (m *Model) writingElsewhere(msgs []memory.Message) bool {
	for i := len(msgs) - 1; i >= m.others.from; i-- {
		x := msgs[i]
		if x.Role != memory.RoleAssistant || !halfWritten(x) {
			continue
		}
		text := x.Content + "\x00" + x.Thinking
		fresh := x.ID != m.others.halfID && i >= m.msgCount // appeared since the last reading
		moved := x.ID == m.others.halfID && text != m.others.halfText
		m.others.halfID, m.others.halfText = x.ID, text
		return (fresh || moved) && m.others.live
	}
	return false
}

// reconcileAfterRun redraws the conversation as stored once this screen's
// answer is over, when the transcript cannot be trusted to match it: the
// store holds prompts the transcript lacks (another mneme added a turn
// while the answer was written) or lacks one it shows (a prompt not sent),
// or an answer of another's was drawn while still being written.
func (m *Model) reconcileAfterRun(msg titleMsg) {
	if msg.msgs == nil || m.phase != phaseIdle || m.run != nil {
		return
	}
	shown, stored := 0, 0
	for _, e := range m.transcript.Entries {
		if e.Kind == transcript.KindUser {
			shown++
		}
	}
	for _, x := range msg.msgs {
		if x.Role == memory.RoleUser {
			stored++
		}
	}
	unsent := m.unsent
	m.unsent = false
	// A half-written answer of another's shown when this run began, and
	// since finished or grown (its writer ended while this run waited its
	// turn), is drawn as stored too: it was left cut, "interrupted".
	stale := m.others.stale || m.others.last != "" && !strings.HasPrefix(fingerprint(msg.msgs), m.others.last)
	if stored == shown && !stale || stored < shown && !unsent {
		return // fewer stored than shown only when a prompt was not sent
	}
	// What this screen said of its own run (a cut answer, a failure) is
	// not stored: it stays, below the answer, which was stored last. A
	// prompt not sent (fewer stored than shown: agent.ErrNotSent) goes
	// with what was said of it.
	var own []transcript.Entry
	for i := len(m.transcript.Entries) - 1; i >= 0 && stored >= shown && m.transcript.Entries[i].Kind != transcript.KindUser; i-- {
		if e := m.transcript.Entries[i]; e.Kind == transcript.KindNotice || e.Kind == transcript.KindError {
			own = append([]transcript.Entry{e}, own...)
		}
	}
	m.others = othersTail{}
	m.transcript.Load(msg.msgs)
	m.transcript.Entries = append(m.transcript.Entries, own...)
	m.transcript.MarkCompactions(msg.sums)
	m.msgCount = len(msg.msgs)
	m.followHalfWritten(msg.msgs)
	m.transcript.Refresh(m.now(), false)
	if stored > shown || m.hint == "" {
		m.hint = "Redrawn as stored: another mneme wrote to this conversation meanwhile."
	}
}

// dropRecalled leaves behind, with the conversation it came from, a prompt
// ↑ recalled and the user has not changed: it is not to be sent elsewhere.
func (m *Model) dropRecalled() {
	if m.recalled != "" && m.input.Value() == m.recalled {
		m.input.Reset()
	}
	m.recalled = ""
}
