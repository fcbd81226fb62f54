// Package choice is the small list of close matches /switch offers above
// the input when no conversation clearly wins: ↑/↓ (or Tab) choose, Enter
// or the match's number opens it, Esc closes the list.
package choice

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/styles"
)

// List is the matches and the chosen one.
type List struct {
	items []index.ConversationMatch
	sel   int
}

// New is a list of the matches, the first chosen.
func New(items []index.ConversationMatch) *List { return &List{items: items} }

// Items are the matches, in their order.
func (l *List) Items() []index.ConversationMatch { return l.items }

// keys are the list's keys.
type keys struct{ up, down, open, cancel key.Binding }

func newKeys() keys {
	return keys{
		up:     key.NewBinding(key.WithKeys("up", "ctrl+p")),
		down:   key.NewBinding(key.WithKeys("down", "ctrl+n", "tab")),
		open:   key.NewBinding(key.WithKeys("enter")),
		cancel: key.NewBinding(key.WithKeys("esc")),
	}
}

// Key handles a key: chosen is the match to open, closed says Esc closed
// the list, handled is false for keys it leaves to the chat (typing,
// scrolling, quitting).
func (l *List) Key(msg tea.KeyPressMsg) (chosen *index.ConversationMatch, closed, handled bool) {
	k := newKeys()
	switch {
	case key.Matches(msg, k.up):
		l.sel = (l.sel + len(l.items) - 1) % len(l.items)
	case key.Matches(msg, k.down):
		l.sel = (l.sel + 1) % len(l.items)
	case key.Matches(msg, k.open):
		return &l.items[l.sel], false, true
	case key.Matches(msg, k.cancel):
		return nil, true, true
	default:
		if r := msg.Text; len(r) == 1 && r[0] >= '1' && int(r[0]-'0') <= len(l.items) {
			return &l.items[r[0]-'1'], false, true
		}
		return nil, false, false
	}
	return nil, false, true
}

// View draws the list in width columns: a heading and one line a match.
func (l *List) View(st *styles.Styles, width int, now time.Time) string {
	rows := []string{st.Hint.Render(ansi.Truncate("Which conversation? ↑/↓ choose · enter open · esc cancel", width, "…"))}
	for i, c := range l.items {
		mark := "  "
		if i == l.sel {
			mark = "› "
		}
		line := fmt.Sprintf("%s%d. %s · %s · %s", mark, i+1, sanitize.Line(panel.DisplayTitle(c.Title)), text.RelativeDate(now, c.Updated), strings.Join(c.MatchedBy, "+"))
		if c.Snippet != "" {
			line += " · " + sanitize.Line(c.Snippet)
		}
		line = ansi.Truncate(line, width, "…")
		if i == l.sel {
			rows = append(rows, st.StatusTitle.Bold(true).Render(line))
		} else {
			rows = append(rows, st.Notice.UnsetPaddingLeft().Render(line))
		}
	}
	return strings.Join(rows, "\n")
}

// Height is how many rows View draws.
func (l *List) Height() int { return len(l.items) + 1 }
