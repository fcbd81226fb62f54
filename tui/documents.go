package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/tui/docs"
	"github.com/mneme-dev/mneme/tui/paths"
)

// Documents in the chat: the sources under an answer (the passages its
// file_search calls gave the model) and their list (ctrl+r, /sources),
// the document browser (/docs), and /attach, which adds a document and
// tells the next run's model about it. The panels are in tui/docs.

// AttachResult is what Config.Attach did with a file.
type AttachResult struct {
	Title    string // the document's title ("" if none)
	Path     string // as stored (absolute)
	Passages int    // its chunks
	// Outcome is "added", "updated" or "unchanged".
	Outcome string
	// Documents counts the documents a folder or glob gave (1 for a file),
	// Unchanged those of them already there as they are, Skipped the files
	// left out (binary, unsupported, too large…).
	Documents, Unchanged, Skipped int
	IDs                           []string // the documents', for the next prompt's passages
}

// The panels' adapters to Panel (panels.go).
type (
	docsPanel    struct{ docs.Browser }
	sourcesPanel struct{ docs.Sources }
)

func (p *docsPanel) Update(msg tea.Msg) (Panel, tea.Cmd) { return p, updatePanel(&p.Browser, msg) }

func (p *sourcesPanel) Update(msg tea.Msg) (Panel, tea.Cmd) { return p, updatePanel(&p.Sources, msg) }

func newDocsPanel(ctx context.Context, st *Styles, cfg Config, km KeyMap) *docsPanel {
	p := docs.NewBrowser(st, docs.Config{Library: cfg.Docs, UserID: cfg.UserID, Context: ctx})
	p.SetKeyMap(km.DocsKeys, km.PassageKeys)
	return &docsPanel{p}
}

func newSourcesPanel(st *Styles, km KeyMap) *sourcesPanel {
	p := docs.NewSources(st)
	p.SetKeyMap(km.SourcesKeys, km.PassageKeys)
	return &sourcesPanel{p}
}

// openSources lists the sources of the last answer that has some.
func (m *Model) openSources() tea.Cmd {
	cites := m.transcript.LastSources()
	if len(cites) == 0 {
		m.hint = "No answer here cites a document yet."
		return nil
	}
	var cmd tea.Cmd
	m.sources.Sources, cmd = m.sources.Open(cites)
	m.push(m.sources)
	return cmd
}

// openDocs opens the document browser.
func (m *Model) openDocs() tea.Cmd {
	if m.cfg.Docs == nil || m.incognito() {
		m.unavailable("Opening documents")
		return nil
	}
	var cmd tea.Cmd
	m.docs.Browser, cmd = m.docs.Open()
	m.push(m.docs)
	return cmd
}

func (m *Model) slashSources(string) tea.Cmd {
	m.input.Reset()
	return m.openSources()
}

func (m *Model) slashDocs(string) tea.Cmd {
	m.input.Reset()
	return m.openDocs()
}

// attachedMsg reports an /attach.
type attachedMsg struct {
	typed, path string // the arguments as typed, and the path in them
	res         AttachResult
	err         error
}

// refreshDocs reads the open document browser's list again (nil when it
// is closed).
func (m *Model) refreshDocs() tea.Cmd {
	if m.docs == nil || !m.isOpen(m.docs) {
		return nil
	}
	return m.docs.Refresh()
}

// slashAttach adds the document at PATH in a command; its receipt says
// what happened, and the next prompt's run is told the document is there.
func (m *Model) slashAttach(args string) tea.Cmd {
	path := strings.TrimSpace(args)
	if len(path) >= 2 && (path[0] == '"' || path[0] == '\'') && path[len(path)-1] == path[0] {
		path = path[1 : len(path)-1]
	} else if strings.HasPrefix(path, `"`) || strings.HasPrefix(path, "'") {
		path = path[1:] // a quote opened and not closed
	}
	switch {
	case path == "":
		m.hint = "Usage: /attach PATH, e.g. /attach ~/manuals/boiler.pdf"
		return nil
	case m.cfg.Attach == nil || m.incognito():
		m.unavailable("Attaching documents")
		return nil
	}
	m.input.Reset()
	m.hint = "Attaching " + sanitize.Line(filepath.Base(path)) + "…"
	m.attaching++
	attach, ctx := m.cfg.Attach, m.life.ctx
	return func() tea.Msg {
		named, err := paths.Expand(path) // ~/ as completion and /export take it
		if err != nil {
			return attachedMsg{typed: args, path: path, err: err}
		}
		res, err := attach(ctx, named)
		return attachedMsg{typed: args, path: path, res: res, err: err}
	}
}

// handleAttached shows the receipt of an /attach (once no answer
// streams) and keeps the document for the next run's system prompt.
func (m *Model) handleAttached(msg attachedMsg) {
	m.hint, m.attaching = "", m.attaching-1
	name := filepath.Base(sanitize.Line(msg.path))
	if msg.res.Path != "" {
		name = filepath.Base(sanitize.Line(msg.res.Path))
	}
	if msg.err != nil { // the path as typed: which one failed
		name = sanitize.Line(msg.path)
		m.retype("/attach " + msg.typed)
	}
	if msg.err != nil && m.run == nil {
		m.transcript.AddError(fmt.Sprintf("📎 %s: %s", name, msg.err))
		m.transcript.Refresh(m.now(), true)
		return
	}
	if msg.err != nil { // an answer streams: the receipt waits for its end
		m.receipts = append(m.receipts, fmt.Sprintf("📎 %s: %s", name, msg.err))
		return
	}
	passages := text.Count(msg.res.Passages, "passage", "passages")
	switch res := msg.res; {
	case res.Documents > 1 && res.Unchanged > 0 && res.Outcome != "unchanged": // some of a folder or a glob
		name = fmt.Sprintf("%d of %d documents from %s (%d unchanged)", res.Documents-res.Unchanged, res.Documents, name, res.Unchanged)
	case res.Documents > 1: // a folder or a glob: how much of it
		name = fmt.Sprintf("%d documents from %s", res.Documents, name)
	}
	receipt := fmt.Sprintf("📎 %s %s · %s", msg.res.Outcome, name, passages)
	if msg.res.Outcome == "unchanged" {
		receipt = fmt.Sprintf("📎 %s unchanged · %s", name, passages)
	}
	if msg.res.Skipped > 0 {
		receipt += fmt.Sprintf(" · %d skipped (mneme docs add '%s' says why)", msg.res.Skipped, sanitize.Line(msg.path))
	}
	m.receipts = append(m.receipts, receipt)
	m.showReceipts()
	about := msg.res.Path
	if t := strings.TrimSpace(msg.res.Title); t != "" {
		about = t + " (" + msg.res.Path + ")"
	}
	m.attached = append(m.attached, about)
	m.attachedDocs = append(m.attachedDocs, msg.res.IDs...)
}
