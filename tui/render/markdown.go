// Package render draws the transcript's blocks that need no state of the
// chat: answers as markdown (whole, or as they stream), and the compact
// lines of tool calls, recalls, thinking and sources. Every text goes
// through internal/sanitize.
package render

import (
	"fmt"
	"strings"

	"charm.land/glamour/v2"
	gansi "charm.land/glamour/v2/ansi"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
)

// TabWidth is how many columns apart tab stops are in rendered answers.
const TabWidth = 4

// Markdown renders assistant answers with glamour at one width. It keeps
// one renderer and builds a new one only when the width changes.
type Markdown struct {
	style gansi.StyleConfig
	width int
	r     *glamour.TermRenderer
}

// NewMarkdown returns a renderer in style.
func NewMarkdown(style gansi.StyleConfig) *Markdown {
	return &Markdown{style: style}
}

// Render turns markdown source into terminal text exactly width columns
// wide at most. The source is sanitised first.
func (md *Markdown) Render(src string, width int) (string, error) {
	width = max(width, MinWidth)
	if md.r == nil || md.width != width {
		r, err := glamour.NewTermRenderer(
			glamour.WithStyles(md.style),
			glamour.WithWordWrap(width),
		)
		if err != nil {
			return "", fmt.Errorf("markdown renderer: %w", err)
		}
		md.r, md.width = r, width
	}
	// Tabs become spaces first: the screen would draw them as nothing, and
	// code would lose its indentation.
	out, err := md.r.Render(text.ExpandTabs(sanitize.Text(src), TabWidth))
	if err != nil {
		return "", fmt.Errorf("render markdown: %w", err)
	}
	return trimBlankLines(out), nil
}

// StablePrefix returns the part of a streaming answer that will not change
// meaning when more text arrives: everything up to the last blank line
// that is outside a code fence.
func StablePrefix(src string) string {
	var (
		cut     int
		inFence bool
		fence   string
		pos     int
	)
	for pos < len(src) {
		end := strings.IndexByte(src[pos:], '\n')
		if end < 0 {
			break // the last line is still being written
		}
		line := src[pos : pos+end]
		pos += end + 1
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case len(line)-len(trimmed) <= 3 && (strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~")):
			marker := trimmed[:3]
			if !inFence {
				inFence, fence = true, marker
			} else if marker == fence {
				inFence = false
			}
		case !inFence && strings.TrimSpace(line) == "":
			cut = pos
		}
	}
	return src[:cut]
}

// CloseOpenBlock makes the block being written render as it will once
// complete: an unclosed code fence is closed, and a last line that is only
// the start of a fence marker (one or two backticks or tildes) is left
// out until it is one.
func CloseOpenBlock(src string) string {
	var (
		inFence bool
		fence   string
	)
	lines := strings.Split(src, "\n")
	if last := strings.TrimSpace(lines[len(lines)-1]); last != "" && len(last) < 3 &&
		(strings.Trim(last, "`") == "" || strings.Trim(last, "~") == "") {
		lines = lines[:len(lines)-1]
	}
	for _, line := range lines {
		trimmed := strings.TrimLeft(line, " ")
		if len(line)-len(trimmed) > 3 {
			continue
		}
		marker := fenceMarker(trimmed)
		switch {
		case marker == "":
		case !inFence:
			inFence, fence = true, marker
		case marker[0] == fence[0] && len(marker) >= len(fence) && strings.TrimSpace(trimmed[len(marker):]) == "":
			inFence = false
		}
	}
	out := strings.Join(lines, "\n")
	if inFence {
		out = strings.TrimRight(out, "\n") + "\n" + fence
	}
	return out
}

// fenceMarker returns the run of three or more backticks or tildes a line
// starts with ("" if none).
func fenceMarker(line string) string {
	if !strings.HasPrefix(line, "```") && !strings.HasPrefix(line, "~~~") {
		return ""
	}
	n := len(line) - len(strings.TrimLeft(line, line[:1]))
	return line[:n]
}

// trimBlankLines drops blank lines (spaces and styling only) at the start
// and end of rendered text.
func trimBlankLines(s string) string {
	lines := strings.Split(s, "\n")
	blank := func(l string) bool { return strings.TrimSpace(ansi.Strip(l)) == "" }
	for len(lines) > 0 && blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}
