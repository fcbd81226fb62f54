// Package docs is the chat's documents: the list of an answer's sources
// (ctrl+r, /sources), the document browser (/docs) with its search, and
// the viewer both open a passage in.
package docs

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/tui/list"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/render"
	"github.com/mneme-dev/mneme/tui/styles"
)

// Sources lists the sources of the last answer, by the number the answer
// cites them with; Enter reads the passage in the viewer, Esc goes back.
// It does no I/O: the passages came with the answer.
type Sources struct {
	st      styles.Panel
	keys    SourcesKeyMap
	id      int64
	cites   []agent.Citation
	list    list.Model
	viewing bool
	viewer  viewer

	width, height int
}

// NewSources returns a closed sources list drawn with st.
func NewSources(st *styles.Styles) Sources {
	s := Sources{st: styles.NewPanel(st), keys: DefaultSourcesKeyMap(), id: panel.NextID(),
		viewer: viewer{keys: DefaultViewerKeyMap()}}
	s.list = list.New(s.keys.KeyMap)
	return s
}

// KeyMap returns the list's bindings, for the full help.
func (s Sources) KeyMap() SourcesKeyMap { return s.keys }

// SetKeyMap replaces the list's and the viewer's bindings.
func (s *Sources) SetKeyMap(k SourcesKeyMap, v ViewerKeyMap) {
	s.keys, s.viewer.keys = k, v
	s.list.SetKeyMap(k.KeyMap)
}

// Open lists cites (one of each passage, by number), the first selected.
func (s Sources) Open(cites []agent.Citation) (Sources, tea.Cmd) {
	s.cites = render.Dedupe(cites)
	s.list.Reset()
	s.viewing = false
	return s, nil
}

// Viewing reports whether a passage is open.
func (s Sources) Viewing() bool { return s.viewing }

// Owns reports whether msg is one of the list's own messages (it sends
// none: it is here for the Panel interface).
func (s Sources) Owns(msg tea.Msg) bool { return panel.Addressed(msg, s.id) }

// SetSize sets the size the list draws in.
func (s *Sources) SetSize(width, height int) {
	s.width, s.height = width, height
	s.viewer.width, s.viewer.height = width, height
	s.list.Clamp(len(s.cites), s.visible())
}

// Cursor is hidden: nothing is typed here.
func (s Sources) Cursor() *tea.Cursor { return nil }

// Update handles keys.
func (s Sources) Update(msg tea.Msg) (Sources, tea.Cmd) {
	k, ok := msg.(tea.KeyPressMsg)
	if !ok {
		return s, nil
	}
	if s.viewing {
		s.viewing = !s.viewer.key(k)
		return s, nil
	}
	switch {
	case key.Matches(k, s.keys.Back):
		return s, panel.Close
	case key.Matches(k, s.keys.View):
		if s.list.Index() < len(s.cites) {
			s.view(s.list.Index())
		}
	default:
		s.list.Update(k, len(s.cites), s.visible())
	}
	return s, nil
}

func (s *Sources) view(i int) {
	s.viewer.open(PassageOf(s.cites[i]))
	s.viewing = true
}

// rowsPerSource: the label, then the start of the passage.
const rowsPerSource = 2

// sourcesChrome: the title and the rule above, the help line below.
const sourcesChrome = 3

func (s Sources) visible() int { return max(1, (s.height-sourcesChrome)/rowsPerSource) }

// View draws the list, or the passage open, in exactly its size.
func (s Sources) View() string {
	if s.width <= 0 || s.height <= 0 {
		return ""
	}
	if s.viewing {
		return s.viewer.view(s.st)
	}
	w := s.width
	count := fmt.Sprintf("%d passages", len(s.cites))
	if len(s.cites) == 1 {
		count = "1 passage"
	}
	rows := []string{
		panel.TitleLine(w, s.st.Title.Render("Sources")+s.st.Dim.Render(" · of the last answer"), s.st.Count.Render(count)),
		s.st.Rule.Render(strings.Repeat("─", w)),
	}
	body := s.height - sourcesChrome
	if len(s.cites) == 0 {
		rows = append(rows, s.st.Dim.Width(w).Render("The last answer cites no document. Add documents with /attach PATH; the model searches them."))
	}
	rows = append(rows, s.list.Rows(len(s.cites), body/rowsPerSource, func(i int, selected bool) string {
		c := s.cites[i]
		marker, style := s.st.List.Prefix(selected)
		head := marker + style.Render(ansi.Truncate(render.SourceItem(c), max(1, w-2), "…"))
		return head + "\n" + s.st.Dim.Render("    "+ansi.Truncate(sanitize.Line(c.Passage), max(1, w-4), "…"))
	})...)
	return panel.Block(rows, w, s.height-1) + "\n" + panel.HelpLine(s.st, w, s.keys.ShortHelp())
}
