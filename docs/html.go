package docs

import (
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// skipped are the elements whose contents are never text a person reads,
// and a page's navigation, side bars and footer, which repeat on every page
// of a site and are not what it is about.
var skipped = map[atom.Atom]bool{
	atom.Script: true, atom.Style: true, atom.Noscript: true, atom.Template: true,
	atom.Svg: true, atom.Math: true, atom.Iframe: true, atom.Object: true,
	atom.Head: true, atom.Select: true, atom.Button: true,
	atom.Nav: true, atom.Aside: true, atom.Footer: true,
}

// blocks are the elements that start and end a line; paragraphs those that
// stand apart by a blank line.
var (
	blocks = map[atom.Atom]bool{
		atom.Div: true, atom.Li: true, atom.Tr: true, atom.Dt: true, atom.Dd: true,
		atom.Header: true, atom.Footer: true, atom.Nav: true, atom.Main: true,
		atom.Aside: true, atom.Figure: true, atom.Figcaption: true, atom.Form: true,
		atom.Address: true, atom.Caption: true, atom.Details: true, atom.Summary: true,
		atom.Fieldset: true, atom.Legend: true, atom.Hr: true, atom.Body: true,
	}
	paragraphs = map[atom.Atom]bool{
		atom.P: true, atom.Pre: true, atom.Blockquote: true, atom.Table: true,
		atom.Ul: true, atom.Ol: true, atom.Dl: true, atom.Section: true, atom.Article: true,
	}
	headings = map[atom.Atom]int{
		atom.H1: 1, atom.H2: 2, atom.H3: 3, atom.H4: 4, atom.H5: 5, atom.H6: 6,
	}
)

// parseHTML returns the text of an HTML page: h1-h6 start sections (headed
// by their path), block elements end lines, white space outside <pre> is
// collapsed, and scripts, styles and the like are left out. The title is
// the <title>, else the first h1.
func parseHTML(s string) Parsed {
	doc, err := html.Parse(strings.NewReader(s))
	if err != nil { // (html.Parse fails only when reading fails)
		return Parsed{}
	}
	w := &htmlWriter{}
	w.walk(doc)
	w.flush()
	p := w.p
	p.Title = w.title
	if p.Title == "" {
		p.Title = w.firstH1
	}
	return p
}

// htmlWriter gathers the text of a page into sections.
type htmlWriter struct {
	p        Parsed
	buf      strings.Builder
	heading  string
	path     []string
	title    string
	firstH1  string
	newlines int  // line breaks owed before the next word
	space    bool // a space owed before the next word
	pre      int  // depth of <pre> elements
}

func (w *htmlWriter) walk(n *html.Node) {
	switch n.Type {
	case html.TextNode:
		w.text(n.Data)
		return
	case html.ElementNode:
	default:
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			w.walk(c)
		}
		return
	}
	if n.DataAtom == atom.Title && w.title == "" {
		w.title = strings.Join(strings.Fields(textContent(n)), " ")
		return
	}
	if n.DataAtom == atom.Head {
		// Only the title: look for it in the head, skip the rest.
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if c.Type == html.ElementNode && c.DataAtom == atom.Title {
				w.walk(c)
			}
		}
		return
	}
	if skipped[n.DataAtom] || hasAttr(n, "hidden") || n.Data == "svg" {
		return
	}
	if level, ok := headings[n.DataAtom]; ok {
		w.startSection(level, strings.Join(strings.Fields(textContent(n)), " "))
		return
	}
	switch {
	case n.DataAtom == atom.Br:
		w.newlines = min(w.newlines+1, 2)
		w.space = false
		return
	}
	w.edge(n)
	if n.DataAtom == atom.Pre {
		w.pre++
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		w.walk(c)
	}
	if n.DataAtom == atom.Pre {
		w.pre--
	}
	w.edge(n)
}

// edge separates an element's text from what is around it: a space for
// a table cell, a blank line for a paragraph, a line break for a block.
func (w *htmlWriter) edge(n *html.Node) {
	switch {
	case n.DataAtom == atom.Td || n.DataAtom == atom.Th:
		w.space = true
	case paragraphs[n.DataAtom]:
		w.breakLine(2)
	case blocks[n.DataAtom]:
		w.breakLine(1)
	}
}

// breakLine owes n line breaks (1: a new line, 2: a blank line).
func (w *htmlWriter) breakLine(n int) {
	w.newlines = max(w.newlines, n)
	w.space = false
}

// text writes a text node: inside <pre> as it is, else with each run of
// white space collapsed to one space.
func (w *htmlWriter) text(s string) {
	if w.pre > 0 {
		w.owed()
		w.buf.WriteString(s)
		return
	}
	if s != "" && isSpace(s[0]) {
		w.space = true
	}
	for i, word := range strings.Fields(s) {
		if i > 0 {
			w.space = true
		}
		w.owed()
		w.buf.WriteString(word)
	}
	if s != "" && isSpace(s[len(s)-1]) {
		w.space = true
	}
}

// owed writes the line breaks or space owed before the next word.
func (w *htmlWriter) owed() {
	if w.buf.Len() > 0 {
		switch {
		case w.newlines > 0:
			w.buf.WriteString(strings.Repeat("\n", w.newlines))
		case w.space:
			w.buf.WriteByte(' ')
		}
	}
	w.newlines, w.space = 0, false
}

// startSection ends the current section and starts one under a heading of
// the given level (1 for h1).
func (w *htmlWriter) startSection(level int, title string) {
	w.flush()
	if level == 1 && w.firstH1 == "" {
		w.firstH1 = title
	}
	if len(w.path) >= level {
		w.path = w.path[:level]
	}
	for len(w.path) < level {
		w.path = append(w.path, "")
	}
	w.path[level-1] = title
	w.heading = joinPath(w.path)
}

func (w *htmlWriter) flush() {
	w.p.Sections = append(w.p.Sections, Section{Heading: w.heading, Text: w.buf.String()})
	w.buf.Reset()
	w.newlines, w.space = 0, false
}

// textContent is the text under n, leaving out what walk leaves out.
func textContent(n *html.Node) string {
	var b strings.Builder
	var walk func(*html.Node)
	walk = func(n *html.Node) {
		if n.Type == html.TextNode {
			b.WriteString(n.Data)
			return
		}
		if n.Type == html.ElementNode && (skipped[n.DataAtom] || n.Data == "svg") {
			return
		}
		if n.Type == html.ElementNode && n.DataAtom == atom.Br {
			b.WriteByte(' ')
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(n)
	return b.String()
}

func hasAttr(n *html.Node, key string) bool {
	for _, a := range n.Attr {
		if a.Namespace == "" && a.Key == key {
			return true
		}
	}
	return false
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}
