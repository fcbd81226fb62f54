// Package notes is the memory browser: the user's notes with a search box,
// one note with where it was saved and its history, inline and $EDITOR
// edits, deletes, undo of any recorded change, and the review of pending
// notes.
package notes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/history"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tui/list"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/styles"
)

// NoteStore is what the memory browser reads and writes notes with.
// *index.Index satisfies it, and keeps the search indexes in step with
// every change.
type NoteStore interface {
	ListNotes(ctx context.Context, userID string) ([]memory.Note, error)
	SearchNotes(ctx context.Context, q index.NoteQuery) ([]index.NoteResult, error)
	SaveNote(ctx context.Context, userID, content string, src memory.NoteSource) (memory.Note, error)
	UpdateNote(ctx context.Context, userID, id, content string) (memory.Note, error)
	DeleteNote(ctx context.Context, userID, id string) (memory.Note, error)
	SetNoteStatus(ctx context.Context, userID, id, status string) (memory.Note, error)
	NoteHistory(ctx context.Context, userID, id string) ([]history.Change, error)
	Undo(ctx context.Context, userID, ref, noteID string) (history.Change, memory.Note, error)
}

var (
	_ NoteStore          = (*index.Index)(nil)
	_ ConversationLookup = (*memory.Store)(nil)
)

// ConversationLookup finds the conversation a note was saved in, for its
// provenance. Store (and *memory.Store) satisfies it.
type ConversationLookup interface {
	Conversation(ctx context.Context, userID, idOrPrefix string) (memory.Conversation, error)
}

// MemoryConfig is what the memory browser needs.
type MemoryConfig struct {
	Notes         NoteStore
	Conversations ConversationLookup // nil: provenance shows no titles
	UserID        string
	// Context bounds every store call (the program's lifetime).
	Context context.Context
	// TempDir is where notes are written for $EDITOR (default os.TempDir()).
	TempDir  string
	Debounce time.Duration // before a search of the notes (default 150ms)
	Now      func() time.Time
	Tick     func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
}

type memMode int

const (
	memList    memMode = iota
	memView            // one note in full
	memEdit            // editing one note inline
	memHistory         // one note's changes, newest first
)

// memOwner tags the memory browser's $EDITOR requests.
const memOwner = "memory"

// MemoryBrowser lists the user's notes, newest first, with a search box;
// shows a note with where it was saved and its history; edits it inline or
// in $EDITOR; deletes it; undoes its last recorded change (at any time: the
// history is the store's); approves or rejects a pending note. Notes the
// model wrote during the current answer (SetFresh) are marked.
type MemoryBrowser struct {
	st     styles.Panel
	area   textarea.Styles
	keys   MemoryKeyMap
	clock  panel.Clock
	notes  NoteStore
	convs  ConversationLookup
	userID string
	tmp    string
	delay  time.Duration
	id     int64

	mode      memMode
	filter    textinput.Model
	filtering bool // the search box has the keys
	seq       int  // bumped by every change of the search
	loading   bool
	loadErr   error
	query     string // the search the list shows ("" lists all)
	items     []memory.Note
	total     int // the user's notes, from the last full listing
	list      list.Model
	titles    map[string]string // conversation titles by id
	fresh     map[string]bool

	deleted []string // notes deleted here, most recent last: what u brings back first
	busy    bool     // a write is in flight
	hint    string
	hintErr bool

	editor textarea.Model
	editID string // the note being edited inline
	// editFrom is the text the editor began with: the note as shown.
	// Saved unchanged, it writes nothing (the note may hold tabs, escapes
	// or bidi controls the editor never showed).
	editFrom string
	// discardArmed: Esc was pressed once on an edited text; a second Esc
	// throws the edit away, any other key keeps editing.
	discardArmed bool
	viewTop      int // first row of the note's text shown in memView (or of memHistory)

	history     []history.Change // of histNote, newest first
	histNote    string
	histLoading bool
	histErr     error

	width, height int
}

// Messages of the memory browser's commands.
type (
	notesDebounceMsg struct {
		panel.To
		seq int
	}
	notesLoadedMsg struct {
		panel.To
		seq    int
		query  string
		notes  []memory.Note
		titles map[string]string
		all    bool // the full listing, so its length is the total
		err    error
	}
	noteWrittenMsg struct {
		panel.To
		op     noteOp
		note   memory.Note
		change history.Change // the change undone (opUndo)
		err    error
	}
	historyLoadedMsg struct {
		panel.To
		noteID  string
		changes []history.Change
		err     error
	}
	noteEditedMsg struct { // text read back from $EDITOR
		panel.To
		noteID string
		text   string
		err    error
	}
)

type noteOp int

const (
	opUpdate  noteOp = iota
	opSaveNew        // the text of an edit whose note was deleted meanwhile
	opDelete
	opUndo
	opApprove
	opReject
)

// NewMemoryBrowser returns a closed memory browser drawn with st.
func NewMemoryBrowser(st *styles.Styles, cfg MemoryConfig) MemoryBrowser {
	ost := styles.NewPanel(st)
	b := MemoryBrowser{
		st:     ost,
		area:   st.Input,
		keys:   DefaultMemoryKeyMap(),
		clock:  panel.NewClock(cfg.Context, cfg.Now, cfg.Tick),
		notes:  cfg.Notes,
		convs:  cfg.Conversations,
		userID: cfg.UserID,
		tmp:    cfg.TempDir,
		delay:  cfg.Debounce,
		id:     panel.NextID(),
		filter: panel.NewInput(ost, "/ ", "search notes"),
		titles: map[string]string{},
	}
	b.list = list.New(b.listKeys())
	if b.delay <= 0 {
		b.delay = panel.DefaultDebounce
	}
	return b
}

// KeyMap returns the browser's bindings, for the full help.
func (b MemoryBrowser) KeyMap() MemoryKeyMap { return b.keys }

// SetKeyMap replaces the browser's bindings.
func (b *MemoryBrowser) SetKeyMap(k MemoryKeyMap) {
	b.keys = k
	b.list.SetKeyMap(b.listKeys())
}

// listKeys are the bindings that move through the notes.
func (b MemoryBrowser) listKeys() list.KeyMap {
	return b.keys.KeyMap
}

// Restyle draws the browser with st from now on, keeping its state (an
// edit in progress, the notes that undo can bring back).
func (b *MemoryBrowser) Restyle(st *styles.Styles) {
	b.st, b.area = styles.NewPanel(st), st.Input
	b.filter.SetStyles(b.st.Input)
	if b.mode == memEdit {
		b.editor.SetStyles(b.area)
	}
}

// SetClock replaces the clock and the timer (nil keeps the current one).
func (b *MemoryBrowser) SetClock(now func() time.Time, tick func(time.Duration, func(time.Time) tea.Msg) tea.Cmd) {
	b.clock = b.clock.With(now, tick)
}

// Notes are the notes listed.
func (b MemoryBrowser) Notes() []memory.Note { return b.items }

// InputFocused reports whether typing goes to the search box or the editor,
// so that the root leaves printable keys alone.
func (b MemoryBrowser) InputFocused() bool { return b.filtering || b.mode == memEdit }

// SetFresh marks the notes the model wrote during the current answer.
func (b *MemoryBrowser) SetFresh(ids map[string]bool) { b.fresh = ids }

// Open shows the browser on the full list, newest first. Undo works on the
// store's history, so a change made before (here, by the model, from the
// command line) can still be undone.
func (b MemoryBrowser) Open() (MemoryBrowser, tea.Cmd) {
	b.mode, b.filtering = memList, false
	b.filter.Reset()
	b.filter.Blur()
	b.deleted, b.hint, b.hintErr, b.busy = nil, "", false, false
	b.items, b.query = nil, ""
	b.list.Reset()
	b.seq++
	return b, b.load()
}

// Refresh reloads the list with the current search, for example after the
// model wrote notes.
func (b MemoryBrowser) Refresh() (MemoryBrowser, tea.Cmd) {
	b.seq++
	return b, b.load()
}

// Wrote reports whether msg is a write of a browser's that succeeded (a
// note saved, deleted or restored), and which note a change other than an
// undo was made to ("" for an undo): the chat's ctrl+z can take it back.
func Wrote(msg tea.Msg) (changed string, ok bool) {
	w, ok := msg.(noteWrittenMsg)
	if !ok || w.err != nil {
		return "", false
	}
	if w.op == opUndo {
		return "", true
	}
	return w.note.ID, true
}

// Owns reports whether msg is one of the browser's own messages, which the
// root must pass to Update (including panel.ExternalEditDoneMsg of its editor).
func (b MemoryBrowser) Owns(msg tea.Msg) bool {
	if done, ok := msg.(panel.ExternalEditDoneMsg); ok {
		return done.Owner == b.owner()
	}
	return panel.Addressed(msg, b.id)
}

func (b MemoryBrowser) owner() string { return fmt.Sprintf("%s-%d", memOwner, b.id) }

// SetSize sets the size the browser draws in.
func (b *MemoryBrowser) SetSize(width, height int) {
	b.width, b.height = width, height
	panel.FitInput(&b.filter, width)
	if b.mode == memEdit { // the editor exists while editing only
		b.editor.SetWidth(max(1, width))
		b.editor.SetHeight(b.editRows())
	}
	b.list.Clamp(len(b.items), b.listRows())
}

// Update handles keys, pastes and the results of the browser's commands.
func (b MemoryBrowser) Update(msg tea.Msg) (MemoryBrowser, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return b.handleKey(msg)
	case tea.PasteMsg:
		switch {
		case b.mode == memEdit:
			b.discardArmed = false // a paste is an edit too: Esc asks again
			var cmd tea.Cmd
			b.editor, cmd = b.editor.Update(msg)
			return b, cmd
		case b.filtering:
			msg.Content = sanitize.Line(msg.Content)
			return b.editFilter(msg)
		}
	case notesDebounceMsg:
		if msg.ID == b.id && msg.seq == b.seq {
			return b, b.load()
		}
	case notesLoadedMsg:
		b.handleLoaded(msg)
	case noteWrittenMsg:
		if msg.ID == b.id && msg.op == opUpdate && errors.Is(msg.err, memory.ErrNotFound) {
			// Deleted in another mneme before the list showed it: the text
			// is saved as a new note, as when the list had shown it.
			return b, b.write(opSaveNew, memory.Note{Content: msg.note.Content})
		}
		if msg.ID == b.id {
			b.handleWritten(msg)
			if msg.err == nil && msg.op >= opUndo {
				// An undo or a review may move the note in or out of the
				// list: list again, and the history if it is shown.
				b.seq++
				cmds := []tea.Cmd{b.load()}
				if b.mode == memHistory {
					cmds = append(cmds, b.loadHistory(b.histNote))
				}
				return b, tea.Batch(cmds...)
			}
		}
	case historyLoadedMsg:
		if msg.ID == b.id && msg.noteID == b.histNote {
			b.history, b.histErr, b.histLoading = msg.changes, msg.err, false
		}
	case panel.ExternalEditDoneMsg:
		if msg.Owner != b.owner() {
			return b, nil
		}
		if msg.Err != nil {
			b.setHint(msg.Err.Error(), true)
			return b, removeFileCmd(msg.Path)
		}
		return b, readEditedCmd(b.id, msg.Key, msg.Path)
	case noteEditedMsg:
		if msg.ID != b.id {
			return b, nil
		}
		if msg.err != nil {
			b.setHint(msg.err.Error(), true)
			return b, nil
		}
		n, ok := b.find(msg.noteID)
		switch {
		case !ok:
			return b, b.write(opSaveNew, memory.Note{Content: msg.text})
		case strings.TrimSpace(msg.text) == strings.TrimSpace(n.Content):
			b.setHint("No change.", false)
		default:
			return b, b.write(opUpdate, memory.Note{ID: n.ID, Content: msg.text})
		}
	}
	return b, nil
}

func (b *MemoryBrowser) handleLoaded(msg notesLoadedMsg) {
	if msg.ID != b.id || msg.seq != b.seq {
		return // an older search
	}
	b.loading, b.loadErr = false, msg.err
	if msg.err != nil {
		return
	}
	for id, t := range msg.titles {
		b.titles[id] = t
	}
	// Keep the selected note selected when it is still listed, unless the
	// search changed: then its best match is (d and enter act on the row
	// the eye goes to).
	cur, _ := b.selected()
	if msg.query != b.query {
		cur = memory.Note{}
	}
	b.items, b.query = msg.notes, msg.query
	if msg.all {
		b.total = len(msg.notes)
	}
	b.list.Reset()
	b.list.Select(max(0, b.index(cur.ID)))
	if b.index(cur.ID) < 0 && b.mode == memView {
		b.mode = memList
	}
	b.list.Scroll(b.listRows())
}

func (b *MemoryBrowser) handleWritten(msg noteWrittenMsg) {
	b.busy = false
	if msg.err != nil {
		if msg.op == opUndo && errors.Is(msg.err, errNothingToUndo) {
			b.setHint(msg.err.Error(), false)
			return
		}
		if errors.Is(msg.err, memory.ErrNotFound) { // deleted in another mneme meanwhile
			b.setHint(opName(msg.op)+" failed: this note was deleted meanwhile (another mneme?); your text is still here to copy.", true)
			return
		}
		b.setHint(opName(msg.op)+" failed: "+msg.err.Error(), true)
		return
	}
	short := func(n memory.Note) string { return ansi.Truncate(sanitize.Line(n.Content), 30, "…") }
	switch msg.op {
	case opUpdate:
		if i := b.index(msg.note.ID); i >= 0 {
			b.items = slices.Clone(b.items) // earlier copies of the browser share the array
			b.items[i] = msg.note
		}
		if b.mode == memEdit && b.editID == msg.note.ID {
			b.editor.Blur()
			b.mode, b.editID = memView, ""
		}
		b.setHint("Saved.", false)
	case opSaveNew:
		b.items = append([]memory.Note{msg.note}, b.items...)
		b.total++
		b.editor.Blur()
		b.mode, b.editID = memList, ""
		b.list.Clamp(len(b.items), b.listRows())
		b.setHint("The note was deleted elsewhere: your text is saved as a new note.", false)
	case opDelete, opReject:
		if i := b.index(msg.note.ID); i >= 0 {
			b.items = append(b.items[:i:i], b.items[i+1:]...)
		}
		b.total = max(0, b.total-1)
		b.deleted = append(b.deleted, msg.note.ID)
		b.mode = memList
		b.list.Clamp(len(b.items), b.listRows())
		verb := "Deleted"
		if msg.op == opReject {
			verb = "Rejected"
		}
		b.setHint(fmt.Sprintf("%s “%s”. Press u to undo.", verb, short(msg.note)), false)
	case opApprove:
		if old, ok := b.replaced(msg.note); ok {
			b.setHint(fmt.Sprintf("Approved “%s”: it replaces “%s”.", short(msg.note), short(old)), false)
			break
		}
		b.setHint(fmt.Sprintf("Approved “%s”: it is recalled from now on.", short(msg.note)), false)
	case opUndo:
		if i := slices.Index(b.deleted, msg.note.ID); i >= 0 && msg.change.Op == memory.ChangeDelete {
			b.deleted = slices.Delete(b.deleted, i, i+1)
		}
		switch msg.change.Op {
		case memory.ChangeDelete:
			b.setHint(fmt.Sprintf("Restored “%s”.", short(msg.note)), false)
		case memory.ChangeUpdate:
			b.setHint(fmt.Sprintf("Undid %s: “%s” again.", sanitize.Line(msg.change.Named()), short(msg.note)), false)
		case memory.ChangeStatus:
			b.setHint(fmt.Sprintf("Undone: the note is %s again.", msg.note.Status), false)
		default:
			b.setHint("Undone.", false)
		}
	}
}

// replaced is the listed kept note that approving n deletes (Note.Replaces).
func (b MemoryBrowser) replaced(n memory.Note) (memory.Note, bool) {
	if i := b.index(n.Replaces); n.Replaces != "" && i >= 0 && b.items[i].Status != memory.NotePending {
		return b.items[i], true
	}
	return memory.Note{}, false
}

func opName(op noteOp) string {
	switch op {
	case opDelete:
		return "Delete"
	case opUndo:
		return "Undo"
	case opApprove:
		return "Approve"
	case opReject:
		return "Reject"
	}
	return "Save"
}

func (b *MemoryBrowser) setHint(s string, isErr bool) { b.hint, b.hintErr = s, isErr }

func (b MemoryBrowser) index(id string) int {
	for i, n := range b.items {
		if n.ID == id {
			return i
		}
	}
	return -1
}

func (b MemoryBrowser) find(id string) (memory.Note, bool) {
	if i := b.index(id); i >= 0 {
		return b.items[i], true
	}
	return memory.Note{}, false
}

// selected is the note under the cursor (in memView, the note shown).
func (b MemoryBrowser) selected() (memory.Note, bool) {
	if i := b.list.Index(); i >= 0 && i < len(b.items) {
		return b.items[i], true
	}
	return memory.Note{}, false
}

func (b MemoryBrowser) handleKey(msg tea.KeyPressMsg) (MemoryBrowser, tea.Cmd) {
	if b.mode == memEdit {
		return b.editKey(msg)
	}
	if b.filtering {
		switch {
		case key.Matches(msg, b.keys.Back):
			// Esc leaves the search box and lists everything again.
			b.filtering = false
			b.filter.Blur()
			if b.filter.Value() == "" {
				return b, nil
			}
			b.filter.Reset()
			b.seq++
			return b, b.load()
		case key.Matches(msg, b.keys.View), msg.String() == "tab":
			b.filtering = false
			b.filter.Blur()
			return b, nil
		case key.Matches(msg, b.keys.Up), key.Matches(msg, b.keys.Down):
			if msg.Code == tea.KeyUp || msg.Code == tea.KeyDown {
				b.moveKey(msg)
				return b, nil
			}
		}
		return b.editFilter(msg)
	}
	if !key.Matches(msg, b.keys.Undo) && !key.Matches(msg, b.keys.Delete) && !key.Matches(msg, b.keys.Reject) {
		b.hint = ""
	}
	if b.mode == memHistory {
		return b.historyKey(msg)
	}
	switch {
	case key.Matches(msg, b.keys.Back):
		switch {
		case b.mode == memView:
			b.mode = memList
		case b.filter.Value() != "":
			b.filter.Reset()
			b.seq++
			return b, b.load()
		default:
			return b, panel.Close
		}
	case key.Matches(msg, b.keys.Up, b.keys.Down, b.keys.PageUp, b.keys.PageDown):
		b.moveKey(msg)
	case b.mode == memList && key.Matches(msg, b.keys.Filter):
		b.filtering = true
		return b, b.filter.Focus()
	case b.mode == memList && key.Matches(msg, b.keys.View):
		if _, ok := b.selected(); ok {
			b.mode, b.viewTop = memView, 0
		}
	case key.Matches(msg, b.keys.OpenTurn):
		n, ok := b.selected()
		switch {
		case !ok:
		case n.ConversationID == "":
			b.setHint("This note was not saved in a conversation.", false)
		default:
			return b, panel.Emit(panel.OpenTurnMsg{ConversationID: n.ConversationID, Turn: n.TurnNumber})
		}
	case key.Matches(msg, b.keys.Edit):
		if n, ok := b.selected(); ok && !b.busy {
			return b, b.startEdit(n)
		}
	case key.Matches(msg, b.keys.Editor):
		if n, ok := b.selected(); ok && !b.busy {
			return b, writeEditFileCmd(b.id, b.owner(), b.tmp, n)
		}
	case key.Matches(msg, b.keys.Delete):
		if n, ok := b.selected(); ok && !b.busy {
			return b, b.write(opDelete, n)
		}
	case key.Matches(msg, b.keys.Undo):
		if b.busy {
			return b, nil
		}
		// The note just deleted here first; then the one selected.
		if k := len(b.deleted); k > 0 {
			return b, b.write(opUndo, memory.Note{ID: b.deleted[k-1]})
		}
		if n, ok := b.selected(); ok {
			return b, b.write(opUndo, n)
		}
		b.setHint("Nothing to undo.", false)
	case key.Matches(msg, b.keys.History):
		if n, ok := b.selected(); ok {
			b.mode, b.viewTop, b.histNote, b.history, b.histErr, b.histLoading = memHistory, 0, n.ID, nil, nil, true
			return b, b.loadHistory(n.ID)
		}
	case key.Matches(msg, b.keys.Approve, b.keys.Reject):
		n, ok := b.selected()
		switch {
		case !ok || b.busy:
		case n.Status != memory.NotePending:
			b.setHint("Only a pending note (waiting for your review) is approved or rejected.", false)
		case key.Matches(msg, b.keys.Approve):
			return b, b.write(opApprove, n)
		default:
			return b, b.write(opReject, n)
		}
	}
	return b, nil
}

// historyKey handles a key in the history of a note: scroll, undo, back.
func (b MemoryBrowser) historyKey(msg tea.KeyPressMsg) (MemoryBrowser, tea.Cmd) {
	switch {
	case key.Matches(msg, b.keys.Back):
		b.mode = memView
		if b.index(b.histNote) < 0 {
			b.mode = memList
		}
	case key.Matches(msg, b.keys.Up):
		b.viewTop = max(0, b.viewTop-1)
	case key.Matches(msg, b.keys.Down):
		b.viewTop = max(0, min(b.viewTop+1, len(b.historyLines())-1))
	case key.Matches(msg, b.keys.PageUp):
		b.viewTop = max(0, b.viewTop-b.textRows())
	case key.Matches(msg, b.keys.PageDown):
		b.viewTop = max(0, min(b.viewTop+b.textRows(), len(b.historyLines())-1))
	case key.Matches(msg, b.keys.Undo):
		if !b.busy {
			return b, b.write(opUndo, memory.Note{ID: b.histNote})
		}
	}
	return b, nil
}

func (b *MemoryBrowser) moveKey(msg tea.KeyPressMsg) {
	if b.mode != memView {
		b.list.Update(msg, len(b.items), b.listRows())
		return
	}
	delta := 0
	switch {
	case key.Matches(msg, b.keys.Up):
		delta = -1
	case key.Matches(msg, b.keys.Down):
		delta = 1
	case key.Matches(msg, b.keys.PageUp):
		delta = -max(1, b.pageRows())
	case key.Matches(msg, b.keys.PageDown):
		delta = max(1, b.pageRows())
	}
	b.viewTop = max(0, min(b.viewTop+delta, b.viewLines()-1))
}

func (b *MemoryBrowser) pageRows() int { return b.textRows() }

// editFilter passes a key or paste to the search box; a changed search is
// run after the debounce (an emptied one lists everything at once).
func (b MemoryBrowser) editFilter(msg tea.Msg) (MemoryBrowser, tea.Cmd) {
	cmd, changed := panel.Edit(&b.filter, msg)
	if !changed {
		return b, cmd
	}
	b.seq++
	if strings.TrimSpace(b.filter.Value()) == "" {
		return b, tea.Batch(cmd, b.load())
	}
	b.loading = true
	id, seq := b.id, b.seq
	return b, tea.Batch(cmd, b.clock.Tick(b.delay, func(time.Time) tea.Msg { return notesDebounceMsg{To: panel.To{ID: id}, seq: seq} }))
}
