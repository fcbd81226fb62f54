package docs

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/sanitize/hostile"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/styles"
)

var boilerCites = []agent.Citation{
	{N: 1, DocumentID: "d1", Path: "/home/alice/manuals/boiler.pdf", Title: "Boiler manual", Page: 3, Heading: "Reset", Chunk: 4,
		Passage: "To reset the boiler, hold the red button for ten seconds until the light blinks twice."},
	{N: 2, DocumentID: "d2", Path: "/home/alice/notes.md", Title: "Notes", Heading: "Install", Chunk: 0,
		Passage: "Install the thermostat on an inside wall, away from radiators."},
	{N: 3, DocumentID: "d1", Path: "/home/alice/manuals/boiler.pdf", Title: "Boiler manual", Page: 3, Heading: "Reset", Chunk: 4,
		Passage: "To reset the boiler, hold the red button for ten seconds until the light blinks twice."}, // the same passage again
}

func newSources(t *testing.T, cites []agent.Citation, w, h int) *component[Sources] {
	st := styles.New(true)
	s := NewSources(&st)
	s.SetSize(w, h)
	c := newComponent(t, s, Sources.Update, Sources.Owns)
	var cmd tea.Cmd
	c.M, cmd = c.M.Open(cites)
	c.Push(cmd)
	return c
}

// TestSourcesListAndPassage: the sources of the last answer are listed by
// their numbers, one of each passage; Enter reads the passage with where
// it is from; Esc goes back to the list, and again closes it.
func TestSourcesListAndPassage(t *testing.T) {
	c := newSources(t, boilerCites, 70, 14)
	v := c.M.View()
	requireSize(t, v, 70, 14)
	requireShows(t, v, "Sources", "2 passages", "[1] boiler.pdf · p. 3 · Reset", "[2] notes.md › Install", "To reset the boiler")
	if strings.Contains(plain(v), "[3]") {
		t.Fatalf("the same passage is listed twice:\n%s", plain(v))
	}
	requireGolden(t, "docs_sources_70x14", v)

	c.Send(keyDown)
	c.Send(keyEnter)
	v = c.M.View()
	requireSize(t, v, 70, 14)
	requireShows(t, v, "[2] Notes", "Install", "/home/alice/notes.md", "Install the thermostat on an inside wall")
	c.Send(keyEsc)
	c.Send(keyDown) // still on the list, on its last row
	c.Send(keyRune('k'))
	c.Send(keyEnter)
	v = c.M.View()
	requireShows(t, v, "[1] Boiler manual", "p. 3 · Reset", "/home/alice/manuals/boiler.pdf", "hold the red button")
	requireGolden(t, "docs_passage_70x14", v)
	c.Send(keyEsc)
	if c.M.Viewing() || len(c.Queue) != 0 {
		t.Fatal("Esc in the passage did not go back to the list")
	}
	c.Send(keyEsc)
	c.RunAll()
	if len(sent[panel.CloseOverlayMsg](c)) != 1 {
		t.Fatalf("Esc on the list did not close it: %v", c.Out)
	}
}

// TestPassageScrolls: a long passage is wrapped to the width and scrolls,
// saying how much more there is.
func TestPassageScrolls(t *testing.T) {
	var words []string
	for i := 1; i <= 120; i++ {
		words = append(words, "word"+strconv.Itoa(i))
	}
	long := agent.Citation{N: 1, DocumentID: "d", Path: "/long.txt", Passage: strings.Join(words, " ")}
	c := newSources(t, []agent.Citation{long}, 40, 10)
	c.Send(keyEnter)
	v := c.M.View()
	requireSize(t, v, 40, 10)
	requireShows(t, v, "word1 ", "more lines")
	if strings.Contains(plain(v), "word120") {
		t.Fatalf("the end shows before scrolling:\n%s", plain(v))
	}
	c.Send(tea.KeyPressMsg{Code: tea.KeyEnd})
	v = c.M.View()
	requireShows(t, v, "word120")
	if strings.Contains(plain(v), "more lines") || strings.Contains(plain(v), "word1 ") {
		t.Fatalf("the end of the passage:\n%s", plain(v))
	}
}

var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// TestSourcesHostileText: escapes and bidi controls in a path, a heading,
// a title or a passage are never drawn; their words are.
func TestSourcesHostileText(t *testing.T) {
	for _, p := range hostile.Payloads {
		t.Run(p.Name, func(t *testing.T) {
			c := newSources(t, []agent.Citation{{N: 1, DocumentID: "d", Path: "/docs/f-" + p.Raw + ".pdf", Title: "t-" + p.Raw,
				Heading: "h-" + p.Raw, Page: 2, Passage: "passage " + p.Raw}}, 200, 12)
			check := func(where, want string) {
				t.Helper()
				view := sgr.ReplaceAllString(c.M.View(), "")
				if bad := hostile.Unsafe(view); bad != "" {
					t.Fatalf("%s: %s", where, bad)
				}
				flat := strings.Join(strings.Fields(view), "")
				if !strings.Contains(flat, want) {
					t.Errorf("%s: %q not shown:\n%s", where, want, view)
				}
				if p.Hidden != "" && strings.Contains(flat, p.Hidden) {
					t.Errorf("%s: %q shown:\n%s", where, p.Hidden, view)
				}
			}
			check("list", "f-"+p.Readable+".pdf")
			c.Send(keyEnter)
			check("passage title", "t-"+p.Readable)
			check("passage heading", "h-"+p.Readable)
			check("passage path", "/docs/f-"+p.Readable+".pdf")
			check("passage text", "passage"+p.Readable)
		})
	}
}
