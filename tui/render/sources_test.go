package render

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/tui/styles"
)

func TestSourceLabels(t *testing.T) {
	for _, tc := range []struct {
		c    agent.Citation
		want string
	}{
		{agent.Citation{Path: "/home/a/boiler.pdf", Page: 3, Heading: "Reset"}, "boiler.pdf · p. 3 · Reset"},
		{agent.Citation{Path: "/home/a/boiler.pdf", Page: 3}, "boiler.pdf · p. 3"},
		{agent.Citation{Path: "/home/a/notes.md", Heading: "Install"}, "notes.md › Install"},
		{agent.Citation{Title: "Untitled scan"}, "Untitled scan"},
		{agent.Citation{Path: "/logs/huge.txt", Chunk: 2}, "huge.txt · passage 3"},
		{agent.Citation{}, "document"},
	} {
		if got := SourceLabel(tc.c); got != tc.want {
			t.Errorf("SourceLabel(%+v) = %q, want %q", tc.c, got, tc.want)
		}
	}
}

// TestCitedKeepsTheAnswersNumbers: the sources are those the answer cites,
// one of each passage, by number; an answer citing none lists them all.
func TestCitedKeepsTheAnswersNumbers(t *testing.T) {
	a := agent.Citation{N: 1, DocumentID: "d1", Chunk: 0}
	b := agent.Citation{N: 2, DocumentID: "d1", Chunk: 1}
	a2 := agent.Citation{N: 3, DocumentID: "d1", Chunk: 0} // a again, from a second search
	c := agent.Citation{N: 4, DocumentID: "d2", Chunk: 0}
	nums := func(cs []agent.Citation) (out []int) {
		for _, c := range cs {
			out = append(out, c.N)
		}
		return out
	}
	if got := nums(Cited([]agent.Citation{c, a2, b, a}, "See [4] and [2].")); len(got) != 2 || got[0] != 2 || got[1] != 4 {
		t.Fatalf("cited %v, want [2 4]", got)
	}
	if got := nums(Cited([]agent.Citation{c, a2, b, a}, "No marks.")); len(got) != 3 || got[0] != 1 || got[1] != 2 || got[2] != 4 {
		t.Fatalf("uncited answer lists %v, want [1 2 4]", got)
	}
}

// TestSourcesWrapBetweenSources: a line too long for the width goes on
// below, a source never cut in two while it fits on a line.
func TestSourcesWrapBetweenSources(t *testing.T) {
	st := styles.New(true)
	cs := []agent.Citation{
		{N: 1, Path: "/a/boiler.pdf", Page: 3, Heading: "Reset"},
		{N: 2, Path: "/a/notes.md", Heading: "Install"},
		{N: 3, Path: "/a/thermostat-guide.pdf", Page: 12},
	}
	out := ansi.Strip(Sources(&st, cs, 80, ""))
	lines := strings.Split(out, "\n")
	if len(lines) != 2 || !strings.Contains(lines[0], "Sources  [1] boiler.pdf · p. 3 · Reset   [2] notes.md › Install") ||
		!strings.Contains(lines[1], "[3] thermostat-guide.pdf · p. 12") {
		t.Fatalf("sources at 80 columns:\n%s", out)
	}
	for _, l := range lines {
		if w := ansi.StringWidth(l); w > 80 {
			t.Fatalf("a line is %d wide:\n%s", w, out)
		}
	}
}

func TestRecallLineNamesNotesAndPassages(t *testing.T) {
	st := styles.New(true)
	got := ansi.Strip(RecallLine(&st, []agent.Memory{{NoteID: "n1", Text: "cat is Tom"}, {Source: "oven.pdf · p. 2", Text: "Pyrolytic cleaning"}}, 120, true))
	if !strings.Contains(got, "cat is Tom [note n1]") || !strings.Contains(got, "Pyrolytic cleaning [oven.pdf · p. 2]") || strings.Contains(got, "[note ]") {
		t.Fatalf("recall line:\n%s", got)
	}
}
