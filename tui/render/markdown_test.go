package render

import (
	"strings"
	"testing"

	"charm.land/glamour/v2/styles"
	"github.com/charmbracelet/x/ansi"
)

// Code written with tabs keeps its indentation on screen: a tab would be
// drawn as nothing, and every line of gofmt'd Go would start at one column.
func TestMarkdownCodeKeepsTabIndentation(t *testing.T) {
	md := NewMarkdown(styles.DarkStyleConfig)
	out, err := md.Render("```go\nfunc main() {\n\tif x {\n\t\tgo()\n\t}\n}\n```\n", 60)
	if err != nil {
		t.Fatal(err)
	}
	indent := map[string]int{}
	for _, line := range strings.Split(ansi.Strip(out), "\n") {
		if strings.Contains(line, "\t") {
			t.Fatalf("a tab reached the screen: %q", line)
		}
		trimmed := strings.TrimLeft(line, " ")
		if word, _, _ := strings.Cut(strings.TrimSpace(trimmed), " "); word != "" {
			indent[word] = len(line) - len(trimmed)
		}
	}
	if !(indent["func"] < indent["if"] && indent["if"] < indent["go()"]) || indent["if"]-indent["func"] != TabWidth {
		t.Fatalf("indentation lost: %v\n%s", indent, ansi.Strip(out))
	}
	if w := ansi.StringWidth(strings.Split(out, "\n")[0]); w > 60 {
		t.Fatalf("a line is %d columns wide, more than 60", w)
	}
}
