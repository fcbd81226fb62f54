package sidebar

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/mneme-dev/mneme/internal/sanitize/hostile"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/tui/styles"
)

// sgr matches the colour and style sequences the TUI itself draws with.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

// requireSafeView checks a rendered view: apart from the TUI's own colours
// it holds no control a terminal acts on, it shows want (line breaks
// aside: the view wraps) and none of hidden.
func requireSafeView(t *testing.T, where, view, want, hidden string) {
	t.Helper()
	if bad := hostile.Unsafe(sgr.ReplaceAllString(view, "")); bad != "" {
		t.Fatalf("%s: %s", where, bad)
	}
	flat := strings.Join(strings.Fields(sgr.ReplaceAllString(view, "")), "")
	if !strings.Contains(flat, want) {
		t.Errorf("%s: %q is not shown:\n%s", where, want, plain(view))
	}
	if hidden != "" && strings.Contains(flat, hidden) {
		t.Errorf("%s: the sequence's %q is shown:\n%s", where, hidden, plain(view))
	}
}

// TestHostileTextIsShownSafely is the sidebar's part of the terminal-safety
// test: the payloads as conversation titles.
func TestHostileTextIsShownSafely(t *testing.T) {
	for _, p := range hostile.Payloads {
		t.Run(p.Name, func(t *testing.T) {
			st := styles.New(true)
			sb := New(context.Background(), &st, DefaultSidebarKeyMap(), &fakeConversations{}, testUser, func() time.Time { return sidebarNow })
			sb.SetSize(50, 8)
			sb.Reload()
			sb, _ = sb.Update(listMsg{seq: sb.seq, convs: []memory.Conversation{
				{ID: "c1", Title: p.Raw + "\nforged row", Updated: sidebarNow.Add(-time.Minute)},
				{ID: "c2", Title: "second", Updated: sidebarNow.Add(-time.Hour)},
			}})
			view := sb.View(false)
			requireSafeView(t, "sidebar", view, p.Readable, p.Hidden)
			for _, l := range strings.Split(plain(view), "\n") {
				if strings.HasPrefix(strings.TrimSpace(l), "forged row") {
					t.Errorf("a title forged a sidebar row:\n%s", plain(view))
				}
			}
		})
	}
}

// TestInvisibleTitlesAreLeftOut: zero-width and other invisible format
// characters never reach the list (terminals disagree on their width, which
// pushed a row's columns out of line), and a title of nothing else shows
// as untitled rather than blank.
func TestInvisibleTitlesAreLeftOut(t *testing.T) {
	st := styles.New(true)
	sb := New(context.Background(), &st, DefaultSidebarKeyMap(), &fakeConversations{}, testUser, func() time.Time { return sidebarNow })
	sb.SetSize(50, 8)
	sb.Reload()
	sb, _ = sb.Update(listMsg{seq: sb.seq, convs: []memory.Conversation{
		{ID: "c1", Title: "\ufeff\u2060\u200b\u200c\u200d\u061c\u200e\u200f\u00ad", Updated: sidebarNow.Add(-time.Minute)},
		{ID: "c2", Title: "zero\u200bwidth\u200d plans", Updated: sidebarNow.Add(-time.Hour)},
	}})
	view := plain(sb.View(false))
	if i := strings.IndexFunc(view, func(r rune) bool { return r > 0x7f && unicode.Is(unicode.Cf, r) }); i >= 0 {
		t.Fatalf("an invisible character reached the list at byte %d:\n%s", i, view)
	}
	if !strings.Contains(view, "untitled") || !strings.Contains(view, "zerowidth plans") {
		t.Fatalf("the titles are not shown as untitled and %q:\n%s", "zerowidth plans", view)
	}
}
