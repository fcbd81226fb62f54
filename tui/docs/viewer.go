package docs

import (
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/render"
	"github.com/mneme-dev/mneme/tui/styles"
)

// Passage is what the viewer shows: a passage of a document (or the whole
// document), where it is from and its text. Every field is shown
// sanitised.
type Passage struct {
	N       int // the number the answer cites it by (0: none)
	Title   string
	Path    string
	Page    int
	Heading string
	Text    string
}

// PassageOf is the passage a citation names.
func PassageOf(c agent.Citation) Passage {
	return Passage{N: c.N, Title: c.Title, Path: c.Path, Page: c.Page, Heading: c.Heading, Text: c.Passage}
}

// citation is p as a citation, for the shared wording of sources.
func (p Passage) citation() agent.Citation {
	return agent.Citation{N: p.N, Title: p.Title, Path: p.Path, Page: p.Page, Heading: p.Heading}
}

// viewer shows one passage, wrapped to the width, scrolled by the keys.
type viewer struct {
	keys    ViewerKeyMap
	p       Passage
	loading bool  // the text is being read
	err     error // reading it failed
	top     int   // the first row of the text shown

	width, height int
}

// viewerChrome are the rows around the text: the title, the path, the
// rule, and the help line.
const viewerChrome = 4

func (v *viewer) open(p Passage) { v.p, v.loading, v.err, v.top = p, false, nil, 0 }

// lines are the passage's text, sanitised and wrapped, indented by two.
func (v viewer) lines() []string {
	w := max(1, v.width-2)
	var out []string
	for _, para := range strings.Split(text.ExpandTabs(sanitize.Text(strings.TrimSpace(v.p.Text)), render.TabWidth), "\n") {
		for _, l := range strings.Split(ansi.Wrap(para, w, ""), "\n") {
			out = append(out, "  "+l)
		}
	}
	return out
}

func (v viewer) bodyRows() int { return max(1, v.height-viewerChrome) }

// key scrolls; back is set for the key that leaves the viewer.
func (v *viewer) key(msg tea.KeyPressMsg) (back bool) {
	page := v.bodyRows()
	last := max(0, len(v.lines())-page)
	switch {
	case key.Matches(msg, v.keys.Back):
		return true
	case key.Matches(msg, v.keys.Up):
		v.top--
	case key.Matches(msg, v.keys.Down):
		v.top++
	case key.Matches(msg, v.keys.PageUp):
		v.top -= page
	case key.Matches(msg, v.keys.PageDown):
		v.top += page
	case key.Matches(msg, v.keys.Top):
		v.top = 0
	case key.Matches(msg, v.keys.Bottom):
		v.top = last
	}
	v.top = max(0, min(v.top, last))
	return false
}

// view draws the viewer in exactly its size.
func (v viewer) view(st styles.Panel) string {
	c := v.p.citation()
	title := sanitize.Line(v.p.Title)
	if title == "" {
		title = render.SourceName(c)
	}
	if v.p.N > 0 {
		title = "[" + strconv.Itoa(v.p.N) + "] " + title
	}
	rows := []string{
		panel.TitleLine(v.width, st.Title.Render(title), st.Count.Render(render.SourceWhere(c))),
		st.Dim.Render(sanitize.Line(v.p.Path)),
		st.Rule.Render(strings.Repeat("─", v.width)),
	}
	var body []string
	switch {
	case v.err != nil:
		body = []string{st.Error.Render("Cannot read it: " + sanitize.Line(v.err.Error()))}
	case v.loading:
		body = []string{st.Dim.Render("Reading…")}
	default:
		lines := v.lines()
		for i := v.top; i < len(lines) && len(body) < v.bodyRows(); i++ {
			body = append(body, st.Text.Render(lines[i]))
		}
		if more := len(lines) - v.top - len(body); more > 0 {
			body[len(body)-1] = st.Dim.Render(ansi.Truncate("  ↓ "+strconv.Itoa(more)+" more lines", v.width, "…"))
		}
	}
	rows = append(rows, panel.Block(body, v.width, v.bodyRows()))
	return panel.Block(rows, v.width, v.height-1) + "\n" + panel.HelpLine(st, v.width, v.keys.ShortHelp())
}
