package render

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/tui/styles"
)

// The sources of an answer: the document passages its tool calls gave the
// model (agent.Citation), listed under it by the number the answer cites
// them with: "Sources  [1] boiler.pdf · p. 3 · Reset   [2] notes.md › Install".

// SourceName is the file a passage is from, as a person names it: the
// base name of its path (the title when there is no path), sanitised.
func SourceName(c agent.Citation) string {
	name := sanitize.Line(c.Path)
	if name != "" {
		name = filepath.Base(name)
	}
	if name == "" || name == "." || name == "/" {
		name = sanitize.Line(c.Title)
	}
	if name == "" {
		name = "document"
	}
	return name
}

// SourceWhere is where in its file a passage is: "p. 3 · Reset",
// "p. 3", "Reset" ("" when nothing is known), sanitised.
func SourceWhere(c agent.Citation) string {
	var parts []string
	if c.Page > 0 {
		parts = append(parts, fmt.Sprintf("p. %d", c.Page))
	}
	if h := sanitize.Line(c.Heading); h != "" {
		parts = append(parts, h)
	}
	return strings.Join(parts, " · ")
}

// SourceLabel is one source as listed: "boiler.pdf · p. 3 · Reset",
// "notes.md › Install" (a heading without a page), sanitised.
func SourceLabel(c agent.Citation) string {
	name, h := SourceName(c), sanitize.Line(c.Heading)
	switch {
	case c.Page > 0:
		return name + " · " + SourceWhere(c)
	case h != "":
		return name + " › " + h
	case c.Chunk > 0:
		// Nothing else tells two passages of a plain file apart.
		return fmt.Sprintf("%s · passage %d", name, c.Chunk+1)
	}
	return name
}

// SourceItem is a source as a list names it: "[2] boiler.pdf · p. 3", or
// "↺ notes.md › Install" for a passage recalled into the prompt (not cited
// by number).
func SourceItem(c agent.Citation) string {
	if c.N == 0 {
		return "↺ " + SourceLabel(c)
	}
	return fmt.Sprintf("[%d] %s", c.N, SourceLabel(c))
}

// Dedupe keeps one citation of each passage (document and chunk), the one
// numbered first, in the order of their numbers.
func Dedupe(cites []agent.Citation) []agent.Citation {
	out := slices.Clone(cites)
	slices.SortStableFunc(out, func(a, b agent.Citation) int { return a.N - b.N })
	seen := map[string]bool{}
	return slices.DeleteFunc(out, func(c agent.Citation) bool {
		k := c.DocumentID + "\x00" + strconv.Itoa(c.Chunk)
		if seen[k] {
			return true
		}
		seen[k] = true
		return false
	})
}

var citeMark = regexp.MustCompile(`\[(\d{1,3})\]`)

// Cited are the sources of an answer: the passages it cites by number
// ([2]) when it cites any of them, else every passage it was given; one
// of each, by number; then the passages recalled into its prompt (N 0).
func Cited(cites []agent.Citation, answer string) []agent.Citation {
	recalled := slices.DeleteFunc(slices.Clone(cites), func(c agent.Citation) bool { return c.N != 0 })
	out := citedOf(Dedupe(slices.DeleteFunc(slices.Clone(cites), func(c agent.Citation) bool { return c.N == 0 })), answer)
	for _, r := range Dedupe(recalled) { // after those cited by number, unless one of them
		if !slices.ContainsFunc(out, func(c agent.Citation) bool { return c.DocumentID == r.DocumentID && c.Chunk == r.Chunk }) {
			out = append(out, r)
		}
	}
	return out
}

// citedOf is Cited of numbered passages only.
func citedOf(cites []agent.Citation, answer string) []agent.Citation {
	used := map[int]bool{}
	for _, m := range citeMark.FindAllStringSubmatch(answer, -1) {
		n, _ := strconv.Atoi(m[1])
		used[n] = true
	}
	cited := slices.DeleteFunc(slices.Clone(cites), func(c agent.Citation) bool { return !used[c.N] })
	if len(cited) == 0 {
		return cites
	}
	return cited
}

// sourceGap separates two sources on a line.
const sourceGap = "   "

// Sources is the line (or lines, wrapped between sources) of an answer's
// sources; hint names the key that opens them ("": none).
func Sources(st *styles.Styles, cites []agent.Citation, width int, hint string) string {
	w := max(width, MinWidth) - margin
	head := "Sources  "
	items := make([]string, len(cites))
	for i, c := range cites {
		items[i] = SourceItem(c)
	}
	if hint != "" {
		items = append(items, "("+hint+" opens them)")
	}
	var lines []string
	line := head
	for _, it := range items {
		switch {
		case line == head || line == "":
			line += it
		case ansi.StringWidth(line+sourceGap+it) <= w:
			line += sourceGap + it
		default:
			lines = append(lines, line)
			line = strings.Repeat(" ", len(head)) + it
		}
	}
	lines = append(lines, line)
	for i, l := range lines {
		lines[i] = st.Notice.Render(ansi.Truncate(l, w, "…"))
	}
	return strings.Join(lines, "\n")
}
