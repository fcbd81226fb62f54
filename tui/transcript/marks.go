// Marks in the transcript: where the model history was compacted, and the
// document passages an answer cites.

package transcript

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/tui/render"
	"github.com/mneme-dev/mneme/tui/styles"
)

// AddCompaction marks a compaction at the end of the transcript.
func (t *Transcript) AddCompaction(s memory.Summary) {
	t.Entries = append(t.Entries, Entry{Kind: KindCompaction, summary: s})
}

// MarkCompactions puts a mark for each summary after the message it was
// made after.
func (t *Transcript) MarkCompactions(sums []memory.Summary) { t.markFrom(0, sums) }

// markFrom puts the marks of sums among the entries from the from-th on.
func (t *Transcript) markFrom(from int, sums []memory.Summary) {
	for _, s := range sums {
		at := len(t.Entries)
		for i := from; i < len(t.Entries); i++ {
			if t.Entries[i].seq > s.AtSeq {
				at = i
				break
			}
		}
		t.Entries = append(t.Entries[:at], append([]Entry{{Kind: KindCompaction, summary: s, seq: s.AtSeq}}, t.Entries[at:]...)...)
	}
}

// renderCompaction draws a compaction mark: one line, or with details
// shown, the summary below it.
func (t *Transcript) renderCompaction(e *Entry, width int) string {
	s := e.summary
	head := fmt.Sprintf("⋯ context compacted: messages %d–%d are a summary for the model", s.FirstSeq, s.LastSeq)
	if !t.details {
		if t.DetailsKey != "" {
			head += " (" + t.DetailsKey + " shows it)"
		}
		return t.st.Notice.Render(ansi.Truncate(head, width-styles.MarkdownMargin, "…"))
	}
	return t.st.Notice.Width(width).Render(head+":") + "\n" + t.st.Thinking.Width(width).Render(sanitize.Text(s.Text))
}

// AddSources lists, under the answer just finished, the passages it cites.
func (t *Transcript) AddSources(cites []agent.Citation) {
	if len(cites) == 0 {
		return
	}
	t.Entries = append(t.Entries, Entry{Kind: KindSources, cites: render.Cited(cites, t.LastAnswer()), Turn: t.Turns.Current()})
}

// LastSources are the sources listed under the last answer that has some.
func (t *Transcript) LastSources() []agent.Citation {
	for i := len(t.Entries) - 1; i >= 0; i-- {
		if t.Entries[i].Kind == KindSources {
			return t.Entries[i].cites
		}
	}
	return nil
}

// sourcesOfTurn gathers the citations of a stored turn's file_search
// results, for the sources under its answer when a conversation is loaded.
type sourcesOfTurn struct {
	cites []agent.Citation
	last  string // the turn's answer so far
}

func (s *sourcesOfTurn) add(c []agent.Citation) { s.cites = append(s.cites, c...) }

func (s *sourcesOfTurn) answer(text string) {
	if strings.TrimSpace(text) != "" {
		s.last = text
	}
}

// flush ends a turn: its sources follow its last entry.
func (s *sourcesOfTurn) flush(out []Entry) []Entry {
	if len(s.cites) > 0 && len(out) > 0 {
		prev := out[len(out)-1]
		out = append(out, Entry{Kind: KindSources, cites: render.Cited(s.cites, s.last), Turn: prev.Turn, seq: prev.seq})
	}
	s.cites, s.last = nil, ""
	return out
}

// ReplaceNotice puts text in place of the last notice that reads old (a
// receipt whose change was taken back), and reports whether there was one.
func (t *Transcript) ReplaceNotice(old, text string) bool {
	for i := len(t.Entries) - 1; i >= 0; i-- {
		if e := &t.Entries[i]; e.Kind == KindNotice && e.Text == old {
			e.Text, e.ViewWidth, e.lines = text, 0, nil
			return true
		}
	}
	return false
}

// ReplaceFrom puts tail, entries drawn again from the store (another
// mneme's answer as it grows), in place of the entries from the i-th on.
// Among those, this screen's notices and errors stay below the tail, and
// the compaction marks stay after the message they were made after: drawn
// from the messages alone, the tail lost them a few seconds after a
// conversation with a stopped answer was opened.
func (t *Transcript) ReplaceFrom(i int, tail []Entry) {
	var own []Entry
	var sums []memory.Summary
	for _, e := range t.Entries[i:] {
		switch e.Kind {
		case KindNotice, KindError:
			own = append(own, e)
		case KindCompaction:
			sums = append(sums, e.summary)
		}
	}
	t.Entries = append(t.Entries[:i], tail...)
	t.markFrom(i, sums)
	t.Entries = append(t.Entries, own...)
}
