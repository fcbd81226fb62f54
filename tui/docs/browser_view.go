package docs

import (
	"fmt"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory/docstore"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/render"
)

// rowsPerItem: a document's or a passage's line, then its path or snippet.
const rowsPerItem = 2

// browserChrome: the title, the search box and the rule above, the help
// (or the question) below.
const browserChrome = 4

func (b Browser) visible() int { return max(1, (b.height-browserChrome)/rowsPerItem) }

// rows is how many items the list shows.
func (b Browser) rows() int {
	if b.query != "" {
		return len(b.hits)
	}
	return len(b.docs)
}

// View draws the browser, or the document or passage open, in exactly its
// size.
func (b Browser) View() string {
	if b.width <= 0 || b.height <= 0 {
		return ""
	}
	if b.viewing {
		return b.viewer.view(b.st)
	}
	w := b.width
	title := b.st.Title.Render("Documents") + b.st.Dim.Render(" · "+plural(len(b.docs), "document"))
	filter := b.filter.View()
	if !b.filtering && b.filter.Value() == "" {
		filter = b.st.Dim.Render("/ search the documents")
	}
	rows := []string{
		panel.TitleLine(w, title, b.status()),
		filter,
		b.st.Rule.Render(strings.Repeat("─", w)),
		b.body(w, max(0, b.height-browserChrome)),
	}
	out := panel.Block(rows, w, b.height-1)
	if b.confirm != nil {
		d := b.confirm
		q := fmt.Sprintf("Remove “%s” (%s) from your documents? y/n", sanitize.Line(displayName(*d)), plural(d.Chunks, "passage"))
		return out + "\n" + b.st.Error.Render(ansi.Truncate(q, w, "…"))
	}
	return out + "\n" + panel.HelpLine(b.st, w, b.keys.ShortHelp())
}

// status is the right of the title line: what is going on, or the hint.
func (b Browser) status() string {
	switch {
	case b.hint != "" && b.hintErr:
		return b.st.Error.Render(sanitize.Line(b.hint))
	case b.hint != "":
		return b.st.Ok.Render(sanitize.Line(b.hint))
	case b.searching:
		return b.st.Hint.Render("searching…")
	case b.loading:
		return b.st.Hint.Render("loading…")
	case b.query != "":
		return b.st.Count.Render(plural(len(b.hits), "passage") + " found")
	}
	return ""
}

func (b Browser) body(w, height int) string {
	msg := func(s string) string { return panel.Block([]string{b.st.Dim.Width(w).Render(s)}, w, height) }
	switch {
	case b.loadErr != nil:
		return panel.Block([]string{b.st.Error.Width(w).Render("Cannot list the documents: " + sanitize.Line(b.loadErr.Error()))}, w, height)
	case b.query != "" && len(b.hits) == 0:
		return msg(fmt.Sprintf("No passage matches “%s”.", sanitize.Line(b.query)))
	case b.query == "" && len(b.docs) == 0 && !b.loading:
		return msg("No documents yet. Add one with /attach PATH here, or `mneme docs add PATH`; the model searches them when you ask.")
	}
	var rows []string
	if b.query != "" {
		words := panel.QueryWords(b.query)
		rows = b.list.Rows(len(b.hits), height/rowsPerItem, func(i int, sel bool) string {
			return b.hitRows(b.hits[i], sel, words, w)
		})
	} else {
		now := b.clock.Now()
		rows = b.list.Rows(len(b.docs), height/rowsPerItem, func(i int, sel bool) string {
			return b.docRows(b.docs[i], sel, now, w)
		})
	}
	return panel.Block(rows, w, height)
}

// docRows: "▸ Boiler manual        pdf · 12 passages · added 2d ago", then
// the path.
func (b Browser) docRows(d docstore.Document, selected bool, now time.Time, w int) string {
	marker, style := b.st.List.Prefix(selected)
	meta := []string{}
	if t := sanitize.Line(d.Type); t != "" {
		meta = append(meta, t)
	}
	meta = append(meta, plural(d.Chunks, "passage"))
	if when := text.RelativeDate(now, d.AddedAt); when != "" {
		meta = append(meta, "added "+when)
	}
	right := b.st.Dim.Render(strings.Join(meta, " · "))
	name := sanitize.Line(displayName(d))
	room := max(1, w-lipgloss.Width(marker)-lipgloss.Width(right)-2)
	head := panel.TitleLine(w, marker+style.Render(ansi.Truncate(name, room, "…")), right)
	return head + "\n" + b.st.Dim.Render("    "+ansi.Truncate(sanitize.Line(d.Path), max(1, w-4), "…"))
}

// hitRows: "▸ Boiler manual · p. 3 · Reset     boiler.pdf", then the
// snippet with the search's words marked.
func (b Browser) hitRows(h index.DocHit, selected bool, words []string, w int) string {
	marker, style := b.st.List.Prefix(selected)
	c := agent.Citation{Path: h.Path, Title: h.Title, Page: h.Page, Heading: h.Heading}
	name := sanitize.Line(h.Title)
	if name == "" {
		name = render.SourceName(c)
	}
	if where := render.SourceWhere(c); where != "" {
		name += " · " + where
	}
	right := b.st.Dim.Render(render.SourceName(c))
	room := max(1, w-lipgloss.Width(marker)-lipgloss.Width(right)-2)
	head := panel.TitleLine(w, marker+style.Render(ansi.Truncate(name, room, "…")), right)
	snippet := h.Snippet
	if strings.TrimSpace(snippet) == "" {
		snippet = h.Passage
	}
	const indent = 4
	s := panel.FocusSnippet(sanitize.Line(snippet), words, max(1, w-indent))
	return head + "\n" + strings.Repeat(" ", indent) + panel.Highlight(s, words, b.st.Text, b.st.Match)
}

// plural: "1 passage", "12 passages".
func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
