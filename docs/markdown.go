package docs

import (
	"strings"
)

// parseMarkdown splits Markdown at its ATX headings ("# …" to "###### …")
// outside fenced code blocks; each section's heading is the path of
// headings above it. A leading front matter block (between "---" lines) is
// not text; its title: is the title when the document has no H1.
func parseMarkdown(s string) Parsed {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	var p Parsed
	body, fmTitle := frontMatter(s)
	var path []string // path[i] is the current heading of level i+1
	var cur strings.Builder
	heading := ""
	flush := func() {
		p.Sections = append(p.Sections, Section{Heading: heading, Text: cur.String()})
		cur.Reset()
	}
	setHeading := func(level int, title string) {
		flush()
		if level == 1 && p.Title == "" {
			p.Title = title
		}
		if len(path) >= level {
			path = path[:level]
		}
		for len(path) < level {
			path = append(path, "")
		}
		path[level-1] = title
		heading = joinPath(path)
	}
	var fence string // the opening fence while inside a fenced code block
	prev := ""       // the last line of a paragraph, which an underline makes a heading
	for line := range strings.Lines(body) {
		if fence != "" {
			if closesFence(line, fence) {
				fence = ""
			}
			cur.WriteString(line)
			continue
		}
		if f := openingFence(line); f != "" {
			fence, prev = f, ""
			cur.WriteString(line)
			continue
		}
		if level, ok := setextUnderline(line); ok && prev != "" {
			// "Title\n=====" (level 1) or "Title\n-----" (level 2).
			before := strings.TrimSuffix(cur.String(), prev)
			cur.Reset()
			cur.WriteString(before)
			setHeading(level, strings.TrimSpace(prev))
			prev = ""
			continue
		}
		level, title, ok := atxHeading(line)
		if !ok {
			cur.WriteString(line)
			prev = ""
			if plainLine(line) {
				prev = line
			}
			continue
		}
		setHeading(level, title)
		prev = ""
	}
	flush()
	if p.Title == "" {
		p.Title = fmTitle
	}
	return p
}

// joinPath joins the non-empty headings of a path with HeadingSep.
func joinPath(path []string) string {
	var parts []string
	for _, h := range path {
		if h != "" {
			parts = append(parts, h)
		}
	}
	return strings.Join(parts, HeadingSep)
}

// frontMatter splits a leading YAML front matter block off s and returns
// the rest and the block's title: value, unquoted.
func frontMatter(s string) (body, title string) {
	if !strings.HasPrefix(s, "---\n") {
		return s, ""
	}
	rest := s[len("---\n"):]
	var block string
	found := false
	for i := 0; i < len(rest); {
		j := strings.IndexByte(rest[i:], '\n')
		line := rest[i:]
		next := len(rest)
		if j >= 0 {
			line = rest[i : i+j]
			next = i + j + 1
		}
		if t := strings.TrimRight(line, " \t"); t == "---" || t == "..." {
			block, body, found = rest[:i], rest[next:], true
			break
		}
		i = next
	}
	if !found {
		return s, "" // never closed: not front matter
	}
	for line := range strings.Lines(block) {
		if v, ok := strings.CutPrefix(line, "title:"); ok {
			v = strings.TrimSpace(v)
			if len(v) >= 2 && (v[0] == '"' || v[0] == '\'') && v[len(v)-1] == v[0] {
				v = v[1 : len(v)-1]
			}
			title = v
			break
		}
	}
	return body, title
}

// atxHeading parses an ATX heading line: up to three spaces, one to six
// '#', then a space or the end of the line. The closing run of '#' is
// dropped.
func atxHeading(line string) (level int, title string, ok bool) {
	line = strings.TrimRight(line, "\n")
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return 0, "", false
	}
	for level < len(t) && t[level] == '#' {
		level++
	}
	if level == 0 || level > 6 {
		return 0, "", false
	}
	rest := t[level:]
	if rest != "" && rest[0] != ' ' && rest[0] != '\t' {
		return 0, "", false
	}
	rest = strings.TrimSpace(rest)
	if trimmed := strings.TrimRight(rest, "#"); trimmed == "" || strings.HasSuffix(trimmed, " ") || strings.HasSuffix(trimmed, "\t") {
		rest = strings.TrimSpace(trimmed)
	}
	return level, rest, true
}

// openingFence returns the fence (``` or ~~~, three or more) that opens a
// fenced code block on this line, or "".
func openingFence(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 || (t[0] == '`' && strings.Contains(t[n:], "`")) {
		return ""
	}
	return t[:n]
}

// closesFence reports whether line closes a block opened by fence: at
// least as many of the same character and nothing else.
func closesFence(line, fence string) bool {
	t := strings.TrimSpace(line)
	if len(t) < len(fence) || strings.Trim(t, fence[:1]) != "" {
		return false
	}
	return true
}

// setextUnderline reports whether line underlines the paragraph line
// above it as a heading: "===" (level 1) or "---" (level 2), indented by
// at most three spaces.
func setextUnderline(line string) (level int, ok bool) {
	t := strings.TrimRight(line, " \t\n")
	if len(t)-len(strings.TrimLeft(t, " ")) > 3 {
		return 0, false
	}
	t = strings.TrimLeft(t, " ")
	switch {
	case t == "":
		return 0, false
	case strings.Trim(t, "=") == "":
		return 1, true
	case strings.Trim(t, "-") == "":
		return 2, true
	}
	return 0, false
}

// plainLine reports whether line is a paragraph's text: not blank, not a
// list item, quote or table row (under which "---" is a rule, not a
// heading's underline).
func plainLine(line string) bool {
	t := strings.TrimSpace(line)
	if t == "" || strings.ContainsAny(t[:1], "-*+>|") {
		return false
	}
	digits := strings.TrimLeft(t, "0123456789")
	return len(digits) == len(t) || !(strings.HasPrefix(digits, ". ") || strings.HasPrefix(digits, ") "))
}
