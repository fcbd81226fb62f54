package tui

import (
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/tui/styles"
	"github.com/mneme-dev/mneme/tui/transcript"
)

// halfStreamed is an answer cut off while it writes a code block.
const halfStreamed = "## Plan\n\nThree steps:\n- read the **config**\n- open the `store`\n\n```go\nfunc main() {\n\tcfg := load()\n"

// TestStreamingMarkdownGolden: an answer still streaming is shown as
// markdown, as it will look once complete: the heading and list rendered,
// the code block being written (its fence not closed yet) shown as code.
func TestStreamingMarkdownGolden(t *testing.T) {
	store := openStore(t)
	r := newFakeRunner(store, halfStreamed)
	r.hold = true
	h := newHarness(t, config(store, r, readyProbe))
	h.runUntilShown("Ollama ready")
	h.typeText("how do I start?")
	h.send(keyEnter)
	h.runUntilShown("cfg := load()")
	s := h.screen()
	for _, raw := range []string{"```", "- read", "**config**", "`store`"} {
		if strings.Contains(s, raw) {
			t.Errorf("the streaming answer shows raw markdown %q:\n%s", raw, s)
		}
	}
	live := h.m.transcript.View()
	requireGolden(t, "transcript_streaming_80", live)

	// Stopped there, the answer looks the same, marked interrupted.
	h.send(keyEsc)
	h.runUntilShown("(interrupted)")
	h.runUntilIdle()
	done := strings.Replace(plain(h.m.transcript.View()), "  (interrupted)", "", 1)
	if trimRows(done) != trimRows(plain(live)) {
		t.Errorf("the streamed rendering differs from the finished one:\nstreamed:\n%s\nfinished:\n%s", plain(live), done)
	}
}

// trimRows drops trailing spaces and blank rows.
func trimRows(s string) string {
	rows := strings.Split(s, "\n")
	for i := range rows {
		rows[i] = strings.TrimRight(rows[i], " ")
	}
	return strings.TrimRight(strings.Join(rows, "\n"), "\n")
}

// TestStreamingMarkdownCatchesUp: text that arrives within the render
// interval is held back, and shows at the next refresh after it (the
// spinner's tick), without waiting for more text.
func TestStreamingMarkdownCatchesUp(t *testing.T) {
	st := styles.New(true)
	tr := transcript.New(&st, slog.Default())
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tr.SetSize(60, 20, now)
	tr.AddUser("go on")
	tr.AppendContent("First words")
	tr.Refresh(now, false)
	tr.AppendContent(" and a `tail`")
	now = now.Add(transcript.LiveRenderInterval / 2)
	tr.Refresh(now, false)
	if got := plain(tr.View()); strings.Contains(got, "tail") || !strings.Contains(got, "First words") || !tr.LiveStale() {
		t.Fatalf("text within the render interval was rendered at once:\n%s", got)
	}
	now = now.Add(transcript.LiveRenderInterval)
	tr.Refresh(now, false)
	if got := plain(tr.View()); !strings.Contains(strings.Join(strings.Fields(got), " "), "First words and a tail") || tr.LiveStale() {
		t.Fatalf("the rest did not show after the interval:\n%s", got)
	}
}

// TestStreamingHidesAFenceBeingTyped: a line that is only the first
// backticks of a fence shows nothing until the fence is complete.
func TestStreamingHidesAFenceBeingTyped(t *testing.T) {
	st := styles.New(true)
	tr := transcript.New(&st, slog.Default())
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tr.SetSize(60, 20, now)
	tr.AddUser("code please")
	tr.AppendContent("Here it is:\n\n``")
	tr.Refresh(now, false)
	if got := plain(tr.View()); strings.Contains(got, "`") || !strings.Contains(got, "Here it is:") {
		t.Fatalf("a fence being typed shows:\n%s", got)
	}
	tr.AppendContent("`sh\necho hi")
	now = now.Add(transcript.LiveRenderInterval)
	tr.Refresh(now, false)
	if got := plain(tr.View()); strings.Contains(got, "`") || !strings.Contains(got, "echo hi") {
		t.Fatalf("the code being written does not show as code:\n%s", got)
	}
}

// TestResizeKeepsAReaderWhereTheyWere: scrolled up while an answer streams,
// a resize (tmux zoom, a split) keeps the reader near the same line and
// does not start following the stream.
func TestResizeKeepsAReaderWhereTheyWere(t *testing.T) {
	st := styles.New(true)
	tr := transcript.New(&st, slog.Default())
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tr.SetSize(60, 10, now)
	tr.AddUser("a long one")
	var b strings.Builder
	for i := range 300 {
		fmt.Fprintf(&b, "Line %d of a long answer that wraps at narrow widths, and goes on a little longer than sixty columns.\n\n", i)
	}
	tr.AppendContent(b.String())
	now = now.Add(transcript.LiveRenderInterval)
	tr.Refresh(now, true)
	for range 40 {
		tr.PageUp() // to about the middle
	}
	top := func() int {
		var n int
		for _, l := range strings.Split(plain(tr.View()), "\n") {
			if _, err := fmt.Sscanf(strings.TrimSpace(l), "Line %d", &n); err == nil {
				return n
			}
		}
		t.Fatalf("no line in view:\n%s", plain(tr.View()))
		return 0
	}
	before := top()
	if tr.Follow || before > 250 {
		t.Fatalf("not scrolled up: line %d, follow %v", before, tr.Follow)
	}
	tr.SetSize(140, 40, now)
	tr.AppendContent("More words.\n")
	tr.Refresh(now.Add(transcript.LiveRenderInterval), false)
	if after := top(); tr.Follow || after < before-20 || after > before+20 {
		t.Fatalf("after the resize: line %d (was %d), follow %v", after, before, tr.Follow)
	}
}
