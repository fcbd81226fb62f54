// Package sidebar is the conversation list beside the chat: a filter, the
// user's conversations newest first, and renaming, archiving and deleting
// them. It reports to the root with OpenMsg, NewMsg, BlurMsg and
// ChangedMsg.
package sidebar

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/tui/list"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/styles"
)

// ConversationManager lists and changes the user's conversations for the
// sidebar and the conversation commands. *memory.Store has all but
// DeleteConversation of an index; main joins the two (an index delete
// also drops the conversation from search).
type ConversationManager interface {
	ListConversations(ctx context.Context, userID string, opts memory.ListOptions) ([]memory.Conversation, error)
	RenameConversation(ctx context.Context, userID, id, title string) error
	SetArchived(ctx context.Context, userID, id string, archived bool) error
	DeleteConversation(ctx context.Context, userID, id string) error
	// ConversationNotes are the notes that came from a conversation
	// (learnt or saved there); ForgetConversation deletes the conversation
	// and those notes, and returns how many it forgot.
	ConversationNotes(ctx context.Context, userID, id string) ([]memory.Note, error)
	ForgetConversation(ctx context.Context, userID, id string) (int, error)
}

// sidebarMode is what the sidebar is doing.
type sidebarMode int

const (
	sideList    sidebarMode = iota
	sideRename              // the rename box replaces the chosen row
	sideConfirm             // asking before a delete
)

// Sidebar layout.
const (
	sidebarMinWidth = 20
	sidebarMaxWidth = 32
	// sidebarShare is the part of the window (in tenths) the sidebar takes.
	sidebarShare = 3
	// sidebarHeadRows are the title, the filter and a rule.
	sidebarHeadRows = 3
	// SideBySideMinWidth is the narrowest window that shows the sidebar
	// beside the transcript; a narrower one shows it in the transcript's place.
	SideBySideMinWidth = 56
)

// Width is the sidebar's width in a window width columns wide,
// its border included.
func Width(width int) int {
	if width < SideBySideMinWidth {
		return width
	}
	return max(sidebarMinWidth, min(sidebarMaxWidth, width*sidebarShare/10))
}

// sidebar lists the user's conversations, newest first, with a filter
// that narrows the list as it is typed. It opens, renames, archives and
// deletes (after asking) through commands; each change comes back to the
// root as a ChangedMsg, which also reloads the list.
type Model struct {
	st     *styles.Styles
	keys   SidebarKeyMap
	ctx    context.Context
	convs  ConversationManager
	userID string
	now    func() time.Time

	filter textinput.Model
	rename textinput.Model
	mode   sidebarMode
	// notes is how many notes came from the conversation the delete
	// question is about (-1 while they are counted), for noteCountMsg to
	// match: confirmID; noteTexts are the first of them, shown.
	notes     int
	noteTexts []string
	confirmID string
	// deleting are the conversations this list is deleting, until the
	// chat reads the outcome (Deleted): their going is not another's doing.
	deleting map[string]bool

	all          []memory.Conversation // everything listed, archived too, newest first
	items        []memory.Conversation // what the filter and the archive toggle leave
	showArchived bool
	current      string // the open conversation, marked
	seq          int    // bumped by every reload, so an older listing is dropped
	loaded       bool
	err          error
	list         list.Model

	width, height int
}

// Messages of the sidebar and the conversation commands.
type (
	// listMsg carries a listing of the user's conversations.
	listMsg struct {
		seq   int
		convs []memory.Conversation
		err   error
	}
	// OpenMsg asks the root to switch to a conversation.
	OpenMsg struct{ Conv memory.Conversation }
	// NewMsg asks the root for a new, empty conversation.
	NewMsg struct{}
	// BlurMsg gives the keys back to the input.
	BlurMsg struct{}
	// ChangedMsg reports a rename, an archive or a delete.
	ChangedMsg struct {
		Op   Op
		Conv memory.Conversation // as it is now (its id, for a delete)
		// ForgotNotes is how many notes a delete forgot with the
		// conversation (OpDelete with f).
		ForgotNotes int
		Err         error
	}
	// noteCountMsg carries how many notes came from a conversation.
	noteCountMsg struct {
		id    string
		notes []memory.Note
		err   error
	}
)

// Op is a change to a conversation.
type Op int

const (
	OpRename Op = iota
	OpArchive
	OpUnarchive
	OpDelete
)

func (op Op) String() string {
	switch op {
	case OpRename:
		return "rename"
	case OpArchive:
		return "archive"
	case OpUnarchive:
		return "unarchive"
	}
	return "delete"
}

func New(ctx context.Context, st *styles.Styles, keys SidebarKeyMap, convs ConversationManager, userID string, now func() time.Time) Model {
	ost := styles.NewPanel(st)
	s := Model{
		st: st, keys: keys, ctx: ctx, convs: convs, userID: userID, now: now,
		filter: panel.NewInput(ost, "/ ", "type to filter"),
		rename: panel.NewInput(ost, "✎ ", "new title"),
		list:   list.New(keys.KeyMap),
	}
	return s
}

// reload lists the conversations again.
func (s *Model) Reload() tea.Cmd {
	if s.convs == nil {
		return nil
	}
	s.seq++
	ctx, convs, user, seq := s.ctx, s.convs, s.userID, s.seq
	return func() tea.Msg {
		list, err := convs.ListConversations(ctx, user, memory.ListOptions{IncludeArchived: true})
		return listMsg{seq: seq, convs: list, err: err}
	}
}

// focus gives the sidebar the keys (the filter takes typing).
func (s *Model) Focus() tea.Cmd {
	s.mode = sideList
	return s.filter.Focus()
}

func (s *Model) Blur() {
	s.filter.Blur()
	s.rename.Blur()
	s.mode = sideList
}

// clearFilter lists every conversation again.
func (s *Model) ClearFilter() {
	keep, _ := s.Selected()
	s.filter.Reset()
	s.apply(keep.ID)
}

// setCurrent marks the open conversation and chooses it.
func (s *Model) SetCurrent(id string) {
	s.current = id
	for i, c := range s.items {
		if c.ID == id {
			s.list.Select(i)
		}
	}
	s.scroll()
}

func (s *Model) SetSize(width, height int) {
	s.width, s.height = width, height
	panel.FitInput(&s.filter, s.innerWidth())
	panel.FitInput(&s.rename, s.innerWidth())
	s.scroll()
}

// innerWidth is the width inside the border.
func (s *Model) innerWidth() int { return max(1, s.width-1) }

func (s *Model) listRows() int { return max(1, s.height-sidebarHeadRows) }

func (s *Model) scroll() { s.list.Clamp(len(s.items), s.listRows()) }

// selected is the chosen conversation.
func (s *Model) Selected() (memory.Conversation, bool) {
	if i := s.list.Index(); i >= 0 && i < len(s.items) {
		return s.items[i], true
	}
	return memory.Conversation{}, false
}

// owns reports whether msg is one of the sidebar's own messages.
func (s *Model) Owns(msg tea.Msg) bool {
	switch msg.(type) {
	case listMsg, noteCountMsg:
		return true
	}
	return false
}

// update handles the sidebar's own messages, and keys and pastes while it
// has the keys.
func (s Model) Update(msg tea.Msg) (Model, tea.Cmd) {
	switch msg := msg.(type) {
	case noteCountMsg:
		if s.mode == sideConfirm && msg.id == s.confirmID {
			s.notes, s.noteTexts = len(msg.notes), nil
			for _, n := range msg.notes[:min(len(msg.notes), shownNotes)] {
				s.noteTexts = append(s.noteTexts, n.Content)
			}
			if msg.err != nil {
				s.notes = 0 // the question stays; f still forgets what there is
			}
			s.keepQuestionInView()
		}
		return s, nil
	case listMsg:
		if msg.seq != s.seq {
			return s, nil
		}
		s.loaded, s.err = true, msg.err
		if msg.err == nil {
			keep, _ := s.Selected()
			s.all = msg.convs
			s.apply(keep.ID)
		}
	case tea.KeyPressMsg:
		return s.handleKey(msg)
	case tea.PasteMsg:
		msg.Content = sanitize.Line(msg.Content)
		return s.edit(msg)
	}
	return s, nil
}

func (s Model) handleKey(msg tea.KeyPressMsg) (Model, tea.Cmd) {
	switch s.mode {
	case sideConfirm:
		switch {
		case key.Matches(msg, s.keys.Confirm), key.Matches(msg, s.keys.Forget):
			s.mode = sideList
			if c, ok := s.Selected(); ok && c.ID == s.confirmID {
				s.deleting = maps.Clone(s.deleting)
				if s.deleting == nil {
					s.deleting = map[string]bool{}
				}
				s.deleting[c.ID] = true
				return s, deleteConversationCmd(s.ctx, s.convs, s.userID, c, key.Matches(msg, s.keys.Forget))
			}
		case key.Matches(msg, s.keys.Deny):
			s.mode = sideList
		}
		return s, nil
	case sideRename:
		switch {
		case key.Matches(msg, s.keys.Open):
			s.mode = sideList
			s.rename.Blur()
			c, ok := s.Selected()
			title := strings.TrimSpace(s.rename.Value())
			if !ok || title == "" || title == c.Title {
				return s, s.filter.Focus()
			}
			return s, tea.Batch(s.filter.Focus(), RenameCmd(s.ctx, s.convs, s.userID, c, title))
		case key.Matches(msg, s.keys.Back):
			s.mode = sideList
			s.rename.Blur()
			return s, s.filter.Focus()
		}
		var cmd tea.Cmd
		s.rename, cmd = s.rename.Update(msg)
		return s, cmd
	}
	switch {
	case s.list.Update(msg, len(s.items), s.listRows()):
	case key.Matches(msg, s.keys.Open):
		if c, ok := s.Selected(); ok {
			return s, panel.Emit(OpenMsg{Conv: c})
		}
	case key.Matches(msg, s.keys.New):
		return s, panel.Emit(NewMsg{})
	case key.Matches(msg, s.keys.Rename):
		if c, ok := s.Selected(); ok {
			s.mode = sideRename
			s.filter.Blur()
			s.rename.SetValue(sanitize.Line(c.Title))
			s.rename.CursorEnd()
			return s, s.rename.Focus()
		}
	case key.Matches(msg, s.keys.Archive):
		if c, ok := s.Selected(); ok {
			return s, ArchiveCmd(s.ctx, s.convs, s.userID, c, !c.Archived)
		}
	case key.Matches(msg, s.keys.Delete):
		if c, ok := s.Selected(); ok {
			s.mode, s.confirmID, s.notes, s.noteTexts = sideConfirm, c.ID, -1, nil
			s.keepQuestionInView()
			return s, noteCountCmd(s.ctx, s.convs, s.userID, c.ID)
		}
	case key.Matches(msg, s.keys.ShowArchived):
		keep, _ := s.Selected()
		s.showArchived = !s.showArchived
		s.apply(keep.ID)
	case key.Matches(msg, s.keys.Back):
		if s.filter.Value() != "" {
			keep, _ := s.Selected()
			s.filter.Reset()
			s.apply(keep.ID)
			return s, nil
		}
		return s, panel.Emit(BlurMsg{})
	default:
		return s.edit(msg)
	}
	return s, nil
}

// edit passes typing to the filter and narrows the list.
func (s Model) edit(msg tea.Msg) (Model, tea.Cmd) {
	cmd, changed := panel.Edit(&s.filter, msg)
	if changed {
		s.apply("")
		s.list.Reset()
	}
	return s, cmd
}

// apply filters the listing, keeping keep chosen when it is still shown.
func (s *Model) apply(keep string) {
	words := strings.Fields(strings.ToLower(s.filter.Value()))
	s.items = s.items[:0:0]
	for _, c := range s.all {
		if c.Archived && !s.showArchived {
			continue
		}
		title := strings.ToLower(panel.DisplayTitle(c.Title))
		ok := true
		for _, w := range words {
			if !strings.Contains(title, w) {
				ok = false
				break
			}
		}
		if ok {
			s.items = append(s.items, c)
		}
	}
	for i, c := range s.items {
		if c.ID == keep {
			s.list.Select(i)
		}
	}
	s.scroll()
}

// cursor places the terminal cursor in the box being typed in.
func (s Model) Cursor() *tea.Cursor {
	switch s.mode {
	case sideList:
		return panel.OffsetCursor(s.filter.Cursor(), 0, 1)
	case sideRename:
		return panel.OffsetCursor(s.rename.Cursor(), 0, sidebarHeadRows+s.list.Index()-s.list.Top())
	}
	return nil
}

// view draws the sidebar in exactly its size: a title with the count, the
// filter, a rule, then one row per conversation (title and relative date),
// with a border on the right.
func (s Model) View(focused bool) string {
	if s.width <= 0 || s.height <= 0 {
		return ""
	}
	w := s.innerWidth()
	title := s.st.SidebarTitle.Render("Conversations")
	count := fmt.Sprintf("%d", len(s.items))
	if s.showArchived {
		count = "all " + count
	}
	rows := []string{panel.TitleLine(w, title, s.st.SidebarDate.Render(count))}
	if focused && s.mode != sideRename {
		rows = append(rows, s.filter.View())
	} else if f := s.filter.Value(); f != "" {
		rows = append(rows, s.st.SidebarDate.Render("/ "+sanitize.Line(f)))
	} else {
		rows = append(rows, s.st.SidebarDate.Render("ctrl+s to filter"))
	}
	rows = append(rows, s.st.Rule.Render(strings.Repeat("─", w)))
	switch {
	case s.err != nil:
		rows = append(rows, s.st.Error.UnsetPaddingLeft().Width(w).Render("✗ "+sanitize.Text(s.err.Error())))
	case !s.loaded:
		rows = append(rows, s.st.SidebarDate.Render("Loading…"))
	case len(s.items) == 0 && s.filter.Value() != "":
		rows = append(rows, s.st.SidebarDate.Render("No match."))
	case len(s.items) == 0:
		rows = append(rows, s.st.SidebarDate.Width(w).Render("No conversations yet."))
	}
	now := s.now()
	rows = append(rows, s.list.Rows(len(s.items), s.height-len(rows), func(i int, chosen bool) string {
		return strings.Join(s.row(s.items[i], chosen, focused, now, w), "\n")
	})...)
	body := panel.Block(rows, w, s.height)
	border := strings.TrimSuffix(strings.Repeat(s.st.Rule.Render("│")+"\n", s.height), "\n")
	lines := strings.Split(body, "\n")
	borders := strings.Split(border, "\n")
	for i := range lines {
		pad := w - lipgloss.Width(lines[i])
		lines[i] += strings.Repeat(" ", max(0, pad)) + borders[i]
	}
	return strings.Join(lines, "\n")
}

// row draws one conversation: a marker (› chosen, • open), its title and
// its date flush right; the rename box or the delete question in place of
// the chosen row while they are open.
func (s Model) row(c memory.Conversation, chosen, focused bool, now time.Time, w int) []string {
	if chosen && s.mode == sideRename {
		return []string{s.rename.View()}
	}
	if chosen && s.mode == sideConfirm {
		return s.question(c, w)
	}
	mark := "  "
	switch {
	case chosen && focused:
		mark = "› "
	case c.ID == s.current:
		mark = "• "
	}
	date := shortAgo(now, c.Updated)
	if c.Archived {
		date = "archived"
	}
	room := max(1, w-2-lipgloss.Width(date)-1)
	text := ansi.Truncate(sanitize.Line(panel.DisplayTitle(c.Title)), room, "…")
	style := s.st.SidebarItem
	switch {
	case chosen && focused:
		style = s.st.SidebarChosen
	case c.ID == s.current:
		style = s.st.SidebarCurrent
	case c.Archived:
		style = s.st.SidebarDate
	}
	left := style.Render(mark + text)
	gap := max(1, w-lipgloss.Width(left)-lipgloss.Width(date))
	return []string{left + strings.Repeat(" ", gap) + s.st.SidebarDate.Render(date)}
}

// Restyle rebuilds the sidebar's boxes in the current styles.
func (s *Model) Restyle() {
	ost := styles.NewPanel(s.st)
	s.filter.SetStyles(ost.Input)
	s.rename.SetStyles(ost.Input)
}

// SetNow replaces the clock of the relative dates.
func (s *Model) SetNow(now func() time.Time) { s.now = now }

// shortAgo is a date relative to now in at most six cells: "now", "5m",
// "3h", "2d", then the day ("12 Jan") or, in another year, the year.
func shortAgo(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "now"
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	case d < 7*24*time.Hour:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	case t.Year() == now.Year():
		return t.Format("2 Jan")
	}
	return t.Format("2006")
}

// convTimeout bounds one change to a conversation.
const convTimeout = 30 * time.Second

func RenameCmd(ctx context.Context, convs ConversationManager, userID string, c memory.Conversation, title string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, convTimeout)
		defer cancel()
		err := convs.RenameConversation(ctx, userID, c.ID, title)
		c.Title = title
		return ChangedMsg{Op: OpRename, Conv: c, Err: err}
	}
}

func ArchiveCmd(ctx context.Context, convs ConversationManager, userID string, c memory.Conversation, archived bool) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, convTimeout)
		defer cancel()
		err := convs.SetArchived(ctx, userID, c.ID, archived)
		op := OpArchive
		if !archived {
			op = OpUnarchive
		}
		c.Archived = archived
		return ChangedMsg{Op: op, Conv: c, Err: err}
	}
}

// Confirming reports whether the delete question is asked.
func (s Model) Confirming() bool { return s.mode == sideConfirm }

// NotesToForget reports whether notes came from the conversation the
// delete question is about, so that f may forget them.
func (s Model) NotesToForget() bool { return s.mode == sideConfirm && s.notes > 0 }

// shownNotes is how many of the notes that came from the conversation
// the delete question lists.
const shownNotes = 3

// keepQuestionInView scrolls the list so that the delete question, which
// takes the chosen row and the rows below it, fits: five rows while the
// notes are counted (as many as the longest question without notes, so
// the list does not jump), more once they are listed.
func (s *Model) keepQuestionInView() {
	rows := 5
	if s.notes > 0 {
		rows = 5 + len(s.noteTexts)
		if s.notes > len(s.noteTexts) {
			rows++
		}
	}
	s.list.Clamp(len(s.items), max(1, s.listRows()-rows+1))
}

// question is the delete question in place of the chosen row: the
// conversation, how many notes came from it, and the answers (y deletes
// it and keeps them, f forgets them too, n keeps everything).
func (s Model) question(c memory.Conversation, w int) []string {
	st := s.st.Error.UnsetPaddingLeft()
	line := func(t string) string { return st.Render(ansi.Truncate(t, w, "…")) }
	// The title is cut, not the question: "Delete “A long ti…”?".
	title := ansi.Truncate(panel.DisplayTitle(c.Title), max(1, w-ansi.StringWidth("Delete “”?")), "…")
	out := []string{line("Delete “" + title + "”?")}
	switch {
	case s.notes < 0:
		out = append(out, line("counting its notes…"), line("y delete · n keep"))
	case s.notes == 0:
		out = append(out, line("no note came from it"), line("y delete · n keep"))
	default:
		notes := "1 note came from it"
		if s.notes > 1 {
			notes = fmt.Sprintf("%d notes came from it", s.notes)
		}
		out = append(out, line(notes+":"))
		for _, t := range s.noteTexts {
			out = append(out, line("· "+sanitize.Line(t)))
		}
		if more := s.notes - len(s.noteTexts); more > 0 {
			out = append(out, line(fmt.Sprintf("  and %d more", more)))
		}
		out = append(out, line("y delete, keep notes"), line("f delete, forget notes"), line("n keep"))
	}
	return out
}

// noteCountCmd counts the notes that came from a conversation.
func noteCountCmd(ctx context.Context, convs ConversationManager, userID, id string) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, convTimeout)
		defer cancel()
		notes, err := convs.ConversationNotes(ctx, userID, id)
		return noteCountMsg{id: id, notes: notes, err: err}
	}
}

// Deleting reports whether this list is deleting the conversation id.
func (s Model) Deleting(id string) bool { return s.deleting[id] }

// Deleted is told the outcome of a delete this list asked for.
func (s *Model) Deleted(id string) {
	s.deleting = maps.Clone(s.deleting)
	delete(s.deleting, id)
}

// deleteConversationCmd deletes a conversation, and with forget the notes
// that came from it.
func deleteConversationCmd(ctx context.Context, convs ConversationManager, userID string, c memory.Conversation, forget bool) tea.Cmd {
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, convTimeout)
		defer cancel()
		if forget {
			n, err := convs.ForgetConversation(ctx, userID, c.ID)
			return ChangedMsg{Op: OpDelete, Conv: c, ForgotNotes: n, Err: err}
		}
		err := convs.DeleteConversation(ctx, userID, c.ID)
		return ChangedMsg{Op: OpDelete, Conv: c, Err: err}
	}
}
