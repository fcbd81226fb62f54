package docs

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/memory/docstore"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tui/list"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/render"
	"github.com/mneme-dev/mneme/tui/styles"
)

// Library is the user's documents as the browser reads and removes them.
// The chat wires it to the index (cli/attach_wiring.go), which keeps
// search in step with every removal.
type Library interface {
	ListDocuments(ctx context.Context, userID string) ([]docstore.Document, error)
	SearchDocs(ctx context.Context, q index.DocQuery) ([]index.DocHit, error)
	DocumentChunks(ctx context.Context, userID, docID string) ([]docstore.Chunk, error)
	RemoveDocuments(ctx context.Context, userID string, ids []string) error
}

// Config is what the document browser needs.
type Config struct {
	Library Library
	UserID  string
	// Context bounds every call (the program's lifetime).
	Context  context.Context
	Debounce time.Duration // before a search (default 150ms)
	Now      func() time.Time
	Tick     func(time.Duration, func(time.Time) tea.Msg) tea.Cmd
}

// Browser timeouts and sizes.
const (
	ioTimeout   = 15 * time.Second
	searchLimit = 30
)

// Browser lists the user's documents (title, path, type, passages, when
// added); / searches their passages by words and meaning, showing
// snippets; Enter reads the document, or the passage found, in the
// viewer; d removes a document after a y.
type Browser struct {
	st     styles.Panel
	keys   BrowserKeyMap
	clock  panel.Clock
	lib    Library
	userID string
	delay  time.Duration
	id     int64

	filter    textinput.Model
	filtering bool // the search box has the keys
	seq       int  // bumped by every change of the search
	searching bool
	query     string // the search the list shows ("": the documents)
	hits      []index.DocHit

	loading bool
	loadErr error
	docs    []docstore.Document
	list    list.Model

	confirm *docstore.Document // asking whether to remove it
	hint    string
	hintErr bool

	viewing bool
	viewer  viewer
	reading string // the document whose text is being read

	width, height int
}

// Messages of the browser's commands.
type (
	listedMsg struct {
		panel.To
		docs []docstore.Document
		err  error
	}
	debounceMsg struct {
		panel.To
		seq int
	}
	foundMsg struct {
		panel.To
		seq   int
		query string
		hits  []index.DocHit
		err   error
	}
	readMsg struct {
		panel.To
		docID  string
		chunks []docstore.Chunk
		err    error
	}
	removedMsg struct {
		panel.To
		doc docstore.Document
		err error
	}
	refreshMsg struct{ panel.To }
)

// Refresh reads the documents again (and the search, if one is shown):
// the root sends it when the store changed, perhaps in another process.
func (b Browser) Refresh() tea.Cmd {
	id := b.id
	return func() tea.Msg { return refreshMsg{To: panel.To{ID: id}} }
}

// NewBrowser returns a closed document browser drawn with st.
func NewBrowser(st *styles.Styles, cfg Config) Browser {
	pst := styles.NewPanel(st)
	b := Browser{
		st: pst, keys: DefaultBrowserKeyMap(), clock: panel.NewClock(cfg.Context, cfg.Now, cfg.Tick),
		lib: cfg.Library, userID: cfg.UserID, delay: cfg.Debounce, id: panel.NextID(),
		filter: panel.NewInput(pst, "/ ", "search the documents"),
		viewer: viewer{keys: DefaultViewerKeyMap()},
	}
	b.list = list.New(b.keys.KeyMap)
	if b.delay <= 0 {
		b.delay = panel.DefaultDebounce
	}
	return b
}

// KeyMap returns the browser's bindings, for the full help.
func (b Browser) KeyMap() BrowserKeyMap { return b.keys }

// SetKeyMap replaces the browser's and its viewer's bindings.
func (b *Browser) SetKeyMap(k BrowserKeyMap, v ViewerKeyMap) {
	b.keys, b.viewer.keys = k, v
	b.list.SetKeyMap(k.KeyMap)
}

// Documents are the documents listed.
func (b Browser) Documents() []docstore.Document { return b.docs }

// InputFocused reports whether typing goes to the search box.
func (b Browser) InputFocused() bool { return b.filtering }

// Open shows every document, by path.
func (b Browser) Open() (Browser, tea.Cmd) {
	b.filtering, b.viewing, b.confirm = false, false, nil
	b.filter.Reset()
	b.filter.Blur()
	b.query, b.hits, b.searching = "", nil, false
	b.hint, b.hintErr = "", false
	b.list.Reset()
	b.seq++
	return b, b.load()
}

// Owns reports whether msg is one of the browser's own messages.
func (b Browser) Owns(msg tea.Msg) bool { return panel.Addressed(msg, b.id) }

// SetSize sets the size the browser draws in.
func (b *Browser) SetSize(width, height int) {
	b.width, b.height = width, height
	b.viewer.width, b.viewer.height = width, height
	panel.FitInput(&b.filter, width)
	b.list.Clamp(b.rows(), b.visible())
}

// Cursor is the search box's while it has the keys.
func (b Browser) Cursor() *tea.Cursor {
	if !b.filtering || b.viewing {
		return nil
	}
	return panel.OffsetCursor(b.filter.Cursor(), 0, 1)
}

// Update handles keys, pastes and the results of the browser's commands.
func (b Browser) Update(msg tea.Msg) (Browser, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return b.handleKey(msg)
	case tea.PasteMsg:
		if b.filtering {
			msg.Content = sanitize.Line(msg.Content)
			return b.edit(msg)
		}
	case listedMsg:
		b.loading, b.loadErr = false, msg.err
		if msg.err == nil {
			b.docs = msg.docs
			b.list.Clamp(b.rows(), b.visible())
		}
	case debounceMsg:
		if msg.seq == b.seq {
			return b, b.search()
		}
	case foundMsg:
		if msg.seq != b.seq {
			return b, nil // an older search
		}
		b.searching = false
		if msg.err != nil {
			b.setHint("Search failed: "+msg.err.Error(), true)
			return b, nil
		}
		b.query, b.hits = msg.query, msg.hits
		b.list.Reset()
	case readMsg:
		if msg.docID == b.reading {
			b.viewer.loading, b.viewer.err = false, msg.err
			b.viewer.p.Text = wholeText(msg.chunks)
		}
	case removedMsg:
		return b.handleRemoved(msg)
	case refreshMsg:
		return b, b.reload()
	}
	return b, nil
}

// reload lists the documents again and repeats the search shown.
func (b *Browser) reload() tea.Cmd {
	cmds := []tea.Cmd{b.load()}
	if b.query != "" {
		b.seq++
		cmds = append(cmds, b.search())
	}
	return tea.Batch(cmds...)
}

func (b Browser) handleRemoved(msg removedMsg) (Browser, tea.Cmd) {
	name := sanitize.Line(displayName(msg.doc))
	if msg.err != nil {
		b.setHint("Could not remove “"+name+"”: "+msg.err.Error(), true)
		return b, nil
	}
	b.setHint("Removed “"+name+"”.", false)
	return b, b.reload()
}

func (b *Browser) setHint(s string, isErr bool) { b.hint, b.hintErr = s, isErr }

func (b Browser) handleKey(msg tea.KeyPressMsg) (Browser, tea.Cmd) {
	switch {
	case b.viewing:
		b.viewing = !b.viewer.key(msg)
		return b, nil
	case b.confirm != nil:
		return b.confirmKey(msg)
	case b.filtering:
		return b.filterKey(msg)
	}
	b.hint = ""
	switch {
	case key.Matches(msg, b.keys.Back):
		if b.query != "" || b.filter.Value() != "" {
			b.clearSearch()
			return b, nil
		}
		return b, panel.Close
	case key.Matches(msg, b.keys.Filter):
		b.filtering = true
		return b, b.filter.Focus()
	case key.Matches(msg, b.keys.View):
		return b.open()
	case key.Matches(msg, b.keys.Delete):
		if d, ok := b.selectedDoc(); ok {
			b.confirm = &d
		}
	default:
		b.list.Update(msg, b.rows(), b.visible())
	}
	return b, nil
}

func (b Browser) confirmKey(msg tea.KeyPressMsg) (Browser, tea.Cmd) {
	switch {
	case key.Matches(msg, b.keys.Yes):
		d := *b.confirm
		b.confirm = nil
		b.setHint("Removing “"+sanitize.Line(displayName(d))+"”…", false)
		return b, b.remove(d)
	case key.Matches(msg, b.keys.No):
		b.confirm = nil
	}
	return b, nil
}

// filterKey edits the search; the arrows move through what it found,
// Enter and Esc leave the box (Esc on an empty box shows every document).
func (b Browser) filterKey(msg tea.KeyPressMsg) (Browser, tea.Cmd) {
	switch msg.String() {
	case "esc", "enter":
		b.filtering = false
		b.filter.Blur()
		if strings.TrimSpace(b.filter.Value()) == "" {
			b.clearSearch()
			return b, nil
		}
		if msg.String() == "enter" && (b.searching || strings.TrimSpace(b.filter.Value()) != b.query) {
			b.seq++
			return b, b.search()
		}
		return b, nil
	case "up", "down", "pgup", "pgdown", "ctrl+p", "ctrl+n":
		b.list.Update(msg, b.rows(), b.visible())
		return b, nil
	}
	return b.edit(msg)
}

func (b *Browser) clearSearch() {
	b.filter.Reset()
	b.filtering = false
	b.filter.Blur()
	b.seq++
	b.query, b.hits, b.searching = "", nil, false
	b.list.Reset()
}

// edit passes a key or a paste to the search box; a changed search runs
// after the debounce.
func (b Browser) edit(msg tea.Msg) (Browser, tea.Cmd) {
	cmd, changed := panel.Edit(&b.filter, msg)
	if !changed {
		return b, cmd
	}
	b.seq++
	if strings.TrimSpace(b.filter.Value()) == "" {
		b.query, b.hits, b.searching = "", nil, false
		b.list.Reset()
		return b, cmd
	}
	b.searching = true
	id, seq := b.id, b.seq
	return b, tea.Batch(cmd, b.clock.Tick(b.delay, func(time.Time) tea.Msg { return debounceMsg{To: panel.To{ID: id}, seq: seq} }))
}

// open reads the selected document, or the passage found, in the viewer.
func (b Browser) open() (Browser, tea.Cmd) {
	if b.query != "" {
		if i := b.list.Index(); i < len(b.hits) {
			h := b.hits[i]
			b.viewer.open(Passage{Title: h.Title, Path: h.Path, Page: h.Page, Heading: h.Heading, Text: h.Passage})
			b.viewing = true
		}
		return b, nil
	}
	d, ok := b.selectedDoc()
	if !ok {
		return b, nil
	}
	b.viewer.open(Passage{Title: displayName(d), Path: d.Path})
	b.viewer.loading, b.viewing, b.reading = true, true, d.ID
	lib, ctx, user, id := b.lib, b.clock.Context(), b.userID, b.id
	return b, func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, ioTimeout)
		defer cancel()
		chunks, err := lib.DocumentChunks(ctx, user, d.ID)
		return readMsg{To: panel.To{ID: id}, docID: d.ID, chunks: chunks, err: err}
	}
}

// wholeText is a document's text from its chunks, with its pages and
// headings marked where they change.
func wholeText(chunks []docstore.Chunk) string {
	var parts []string
	page, heading := 0, ""
	for _, c := range chunks {
		var marks []string
		if c.Page > 0 && c.Page != page {
			marks = append(marks, fmt.Sprintf("p. %d", c.Page))
		}
		if c.Heading != "" && c.Heading != heading {
			marks = append(marks, c.Heading)
		}
		if len(marks) > 0 {
			parts = append(parts, "— "+strings.Join(marks, " · ")+" —")
		}
		page, heading = c.Page, c.Heading
		parts = append(parts, strings.TrimSpace(c.Text), "")
	}
	return strings.Join(parts, "\n")
}

// selectedDoc is the document selected, or the one of the passage found.
func (b Browser) selectedDoc() (docstore.Document, bool) {
	i := b.list.Index()
	if b.query == "" {
		if i < len(b.docs) {
			return b.docs[i], true
		}
		return docstore.Document{}, false
	}
	if i >= len(b.hits) {
		return docstore.Document{}, false
	}
	h := b.hits[i]
	for _, d := range b.docs {
		if d.ID == h.DocumentID {
			return d, true
		}
	}
	return docstore.Document{ID: h.DocumentID, Path: h.Path, Title: h.Title}, true
}

func (b *Browser) load() tea.Cmd {
	b.loading = true
	lib, ctx, user, id := b.lib, b.clock.Context(), b.userID, b.id
	return func() tea.Msg {
		if lib == nil {
			return listedMsg{To: panel.To{ID: id}, err: errors.New("documents are not available")}
		}
		ctx, cancel := context.WithTimeout(ctx, ioTimeout)
		defer cancel()
		docs, err := lib.ListDocuments(ctx, user)
		return listedMsg{To: panel.To{ID: id}, docs: docs, err: err}
	}
}

func (b *Browser) search() tea.Cmd {
	b.searching = true
	q := strings.TrimSpace(b.filter.Value())
	lib, ctx, id, seq := b.lib, b.clock.Context(), b.id, b.seq
	dq := index.DocQuery{UserID: b.userID, Text: q, Limit: searchLimit}
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, ioTimeout)
		defer cancel()
		hits, err := lib.SearchDocs(ctx, dq)
		return foundMsg{To: panel.To{ID: id}, seq: seq, query: q, hits: hits, err: err}
	}
}

func (b Browser) remove(d docstore.Document) tea.Cmd {
	lib, ctx, user, id := b.lib, b.clock.Context(), b.userID, b.id
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(ctx, ioTimeout)
		defer cancel()
		return removedMsg{To: panel.To{ID: id}, doc: d, err: lib.RemoveDocuments(ctx, user, []string{d.ID})}
	}
}

// displayName is a document's title, else its file's name.
func displayName(d docstore.Document) string {
	if strings.TrimSpace(d.Title) != "" {
		return d.Title
	}
	return render.SourceName(agent.Citation{Path: d.Path})
}
