package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/memory"
)

// transcriptLines is the conversation on screen: its prompts, answers and
// interrupted marks, in order.
func transcriptLines(screen string) []string {
	var out []string
	for _, l := range strings.Split(screen, "\n") {
		l = strings.TrimSpace(l)
		if strings.HasPrefix(l, "┃") || strings.HasPrefix(l, "You said") || strings.HasPrefix(l, "Half an") || l == "(interrupted)" {
			out = append(out, l)
		}
	}
	return out
}

// checkInterruptedMarkdown checks an export of a conversation with two
// interrupted answers (one before its first word): each turn has one
// heading per side and one mark.
func checkInterruptedMarkdown(t *testing.T, what, md string) {
	t.Helper()
	if n := strings.Count(md, "_(interrupted)_"); n != 2 {
		t.Errorf("%s: %d interrupted marks, want 2:\n%s", what, n, md)
	}
	var headings []string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "## ") {
			headings = append(headings, l)
		}
	}
	if got := strings.Join(headings, ","); got != "## You,## Assistant,## You,## Assistant,## You,## Assistant" {
		t.Errorf("%s: headings %s:\n%s", what, got, md)
	}
	if !strings.Contains(md, "first long question\n\n## Assistant\n\n_(interrupted)_\n") ||
		!strings.Contains(md, "Half an answer\n\n_(interrupted)_\n") {
		t.Errorf("%s: the interrupted answers are not as shown:\n%s", what, md)
	}
}

// TestTUIInterruptedTurnLooksTheSameEverywhere: an answer stopped with
// Esc, before its first word or midway, is marked "(interrupted)" live,
// again after a restart, and once in both markdown exports.
func TestTUIInterruptedTurnLooksTheSameEverywhere(t *testing.T) {
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	term := startTerminal(t, 100, 30, d.env())
	term.waitText("fake-chat")
	term.typeText("hello there")
	term.keys("Enter")
	term.waitText("You said: hello there")
	term.waitIdle()

	srv.Script(fakeollama.Reply{Hold: true}) // stopped before its first word
	term.typeText("first long question")
	term.keys("Enter")
	term.waitText("generating")
	term.keys("Escape")
	term.waitText("(interrupted)")
	term.waitIdle()

	srv.Script(fakeollama.Reply{Content: fakeollama.SplitWords("Half an answer"), Hold: true})
	term.typeText("second long question")
	term.keys("Enter")
	term.waitText("Half an answer")
	term.keys("Escape")
	s := term.waitFor("two interrupted marks", func(s string) bool {
		return strings.Count(s, "(interrupted)") == 2 && !strings.Contains(s, "generating")
	})
	live := transcriptLines(s)
	want := []string{"┃ hello there", "You said: hello there", "┃ first long question", "(interrupted)",
		"┃ second long question", "Half an answer", "(interrupted)"}
	if strings.Join(live, "\n") != strings.Join(want, "\n") {
		t.Fatalf("live transcript %q, want %q; screen:\n%s", live, want, s)
	}

	path := filepath.Join(t.TempDir(), "chat.md")
	term.typeText("/export " + path)
	term.keys("Enter")
	term.waitText("Exported to")
	term.keys("C-c")
	if code := term.exitStatus(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	checkInterruptedMarkdown(t, "/export", string(b))

	term = startTerminal(t, 100, 30, d.env(), "--continue")
	s = term.waitText("Half an answer")
	if got := transcriptLines(s); strings.Join(got, "\n") != strings.Join(live, "\n") {
		t.Fatalf("after a restart %q, live %q; screen:\n%s", got, live, s)
	}
	term.keys("C-c")
	term.exitStatus()

	checkInterruptedMarkdown(t, "mneme export", d.mustOK("", "export", "--format", "markdown").stdout)
}

// TestAskInterruptedSaysWhatWasKept: `mneme ask` stopped with Ctrl+C says
// a partial answer was kept only when there is one.
func TestAskInterruptedSaysWhatWasKept(t *testing.T) {
	for _, tt := range []struct {
		name, content, say, notSay string
	}{
		{"before the first word", "", "interrupted before the answer began; your prompt was kept", "partial answer"},
		{"midway", "Half an answer", "interrupted; the partial answer was kept", "before the answer began"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeollama.New(t)
			srv.Script(fakeollama.Reply{Content: fakeollama.SplitWords(tt.content), Hold: true})
			d := newDevice(t, srv.Host())
			cmd, stderr := d.start(nil, "ask", "question")
			waitStarted(t, srv, stderr)
			if tt.content != "" {
				d.pollExport("the partial answer", func(r []memory.Record) bool { return len(r) == 2 && r[1].Content == tt.content })
			}
			if err := cmd.Process.Signal(os.Interrupt); err != nil {
				t.Fatal(err)
			}
			if code := waitExit(t, cmd, 10*time.Second, stderr); code != 130 {
				t.Fatalf("exit %d; stderr %s", code, stderr.String())
			}
			if e := stderr.String(); !strings.Contains(e, tt.say) || strings.Contains(e, tt.notSay) {
				t.Fatalf("stderr %q, want %q", e, tt.say)
			}
			recs := d.exported()
			if len(recs) != 2 || recs[1].Content != tt.content || recs[1].Status != memory.StatusInterrupted {
				t.Fatalf("export %+v", recs)
			}
		})
	}
}
