// Package printer holds the printers of mneme's command output, so that
// the commands (cli) keep to flags and flow: a streamed answer with the
// sources it cites (mneme ask), where a passage is in its document, past
// turns found (search), and documents and their passages (docs list,
// docs search), a note's history, and the conversations a description
// is about (conversations --find).
package printer

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tools"
)

// NewAnswer returns a printer of an answer to out, its tool activity to
// errw; quiet (ask --json) prints no streamed text.
func NewAnswer(out, errw io.Writer, quiet bool) *Answer {
	return &Answer{out: out, errw: errw, quiet: quiet}
}

// Closed reports whether stdout failed (a closed pipe), and Err why.
func (p *Answer) Closed() bool { return p.closed }

// Err is why stdout failed, once Closed.
func (p *Answer) Err() error { return p.err }

// Answer streams an answer's text to stdout and its tool activity to
// stderr, for `mneme ask`.
// Once a write to stdout fails (a closed pipe: SIGPIPE is ignored, so the
// write fails with EPIPE) it prints nothing more there, and the run goes on
// so that the whole answer is stored.
type Answer struct {
	out, errw io.Writer
	quiet     bool // --json: no streamed text
	lastByte  byte
	wrote     bool
	closed    bool  // stdout failed: print no more to it
	err       error // why

	// para: a tool call ended the text of a model call; the next text
	// starts a new paragraph, as in the stored answer.
	para bool
	// last is the last call printed, alike how many calls after it failed
	// like it (tools.Activity.FailedLike), not printed: a reply of 200
	// calls, 184 over the limit, is one line for those.
	last  tools.Activity
	alike int
}

// flushAlike says how many calls failed as the last one printed.
func (p *Answer) flushAlike() {
	if p.alike > 0 {
		fmt.Fprintln(p.errw, "⚙ "+tools.Alike(p.alike))
	}
	p.alike = 0
}

// write prints to stdout until it fails.
func (p *Answer) write(s string) {
	if p.closed {
		return
	}
	if _, err := io.WriteString(p.out, s); err != nil {
		p.Fail(err)
	}
}

// Fail stops printing to stdout: a write to it failed with err.
func (p *Answer) Fail(err error) {
	p.closed, p.err = true, err
}

// Emit prints an event of the run as it comes.
func (p *Answer) Emit(ev agent.Event) {
	switch ev := ev.(type) {
	case agent.ToolCallEvent:
		return // said with its result
	case agent.ToolResultEvent:
		if ev.Call.FailedLike(p.last) {
			p.alike++
			return
		}
	}
	p.flushAlike()
	p.last = tools.Activity{}
	switch ev := ev.(type) {
	case agent.ContentDelta:
		if p.quiet {
			return
		}
		text := sanitize.Text(ev.Text)
		if text == "" {
			return
		}
		if p.para && p.wrote {
			if p.lastByte != '\n' {
				p.write("\n")
			}
			p.write("\n")
		}
		p.para = false
		p.write(text)
		p.wrote, p.lastByte = true, text[len(text)-1]
	case agent.ToolResultEvent:
		p.para = true
		// One line per call, worded as in the chat screen.
		fmt.Fprintf(p.errw, "⚙ %s\n", text.Cut(text.OneLine(sanitize.Text(ev.Call.Summary())), 200))
		p.last = ev.Call
	case agent.RecallEvent:
		fmt.Fprintf(p.errw, "↺ %s\n", text.Cut(text.OneLine(sanitize.Text(ev.Summary())), 200))
	case agent.NoticeEvent:
		fmt.Fprintf(p.errw, "mneme: %s\n", afterPrefix(sanitize.Text(ev.Text)))
	case agent.CompactedEvent:
		fmt.Fprintf(p.errw, "⋯ compacted: messages %d–%d are now a summary for the model (all stay saved)\n", ev.FirstSeq, ev.LastSeq)
	}
}

// Finish ends streamed text with a newline.
func (p *Answer) Finish() {
	p.flushAlike()
	if p.wrote && p.lastByte != '\n' {
		p.write("\n")
	}
}

// citedSources are the passages the run's tool calls gave that the answer
// cites as [n], in the order of n, each once.
func citedSources(res agent.Result) []tools.Citation {
	seen := map[int]bool{}
	var out []tools.Citation
	for _, call := range res.ToolCalls {
		for _, c := range call.Citations {
			if !seen[c.N] && strings.Contains(res.Answer, fmt.Sprintf("[%d]", c.N)) {
				seen[c.N] = true
				out = append(out, c)
			}
		}
	}
	slices.SortFunc(out, func(a, b tools.Citation) int { return a.N - b.N })
	return out
}

// Sources lists the answer's cited sources under it: what [n] is, then
// the passages recalled into the prompt that it did not cite, each once.
func (p *Answer) Sources(res agent.Result) {
	cited := citedSources(res)
	type passage struct {
		doc   string
		chunk int
	}
	listed := map[passage]bool{}
	for _, c := range cited {
		listed[passage{c.DocumentID, c.Chunk}] = true
	}
	for _, m := range res.MemoriesUsed {
		// Recalled into the prompt: a source too, not cited by number.
		if c := m.Citation; c != nil && !listed[passage{c.DocumentID, c.Chunk}] {
			listed[passage{c.DocumentID, c.Chunk}] = true
			cited = append(cited, *c)
		}
	}
	if p.quiet || len(cited) == 0 {
		return
	}
	p.write("\nSources:\n")
	for _, c := range cited {
		mark := fmt.Sprintf("[%d]", c.N)
		if c.N == 0 {
			mark = "↺"
		}
		p.write(fmt.Sprintf("  %s %s — %s\n", mark, Where(c.Title, c.Page, c.Heading), sanitize.Line(c.Path)))
	}
}

// Where names a passage for people: "Boiler manual · p. 3 · Reset".
func Where(title string, page int, heading string) string {
	return strings.Join(append([]string{cmp.Or(sanitize.Title(title), "(untitled)")}, Place(page, heading)...), " · ")
}

// Place is where a passage is in its document: its page and heading.
func Place(page int, heading string) []string {
	var parts []string
	if page > 0 {
		parts = append(parts, fmt.Sprintf("p. %d", page))
	}
	if heading != "" {
		parts = append(parts, text.Cut(sanitize.Title(heading), 60))
	}
	return parts
}

// afterPrefix is a notice worded for the chat ("The answer reached…") as
// it reads after "mneme: ": its first letter in lower case, unless it
// begins a name or an acronym ("Ollama", "OK").
func afterPrefix(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	next, _ := utf8.DecodeRuneInString(s[n:])
	if !unicode.IsUpper(r) || !unicode.IsLower(next) || strings.HasPrefix(s, "Ollama") {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}

// SearchResults prints `mneme search`'s results for query, or says
// nothing was found.
func SearchResults(w io.Writer, results []index.SearchResult, query string) {
	if len(results) == 0 {
		fmt.Fprintf(w, "Nothing found for %q.\n", query)
		return
	}
	for i, r := range results {
		title := cmp.Or(sanitize.Title(r.Title), "(untitled)")
		fmt.Fprintf(w, "%2d. %.2f  %s · %s · turn %d · %s\n", i+1, r.Score, title, r.Time.Local().Format("2 Jan 2006"), r.Turn, r.MatchedBy)
		// The index puts the words that matched within the first 100.
		fmt.Fprintf(w, "    %s\n", text.Cut(text.OneLine(sanitize.Text(r.Snippet)), 100))
		fmt.Fprintf(w, "    mneme --resume %s --turn %d\n", sanitize.Line(r.ConversationID), r.Turn)
	}
}
