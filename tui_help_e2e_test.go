package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/fakeollama"
)

// TestTUIHelpAt60x20: F1 in a 60×20 terminal lists every chat key with what
// it does, none cut at the edge; paging is one row; it says how to select
// text, and both conversation-list keys work.
func TestTUIHelpAt60x20(t *testing.T) {
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	term := startTerminal(t, 60, 20, d.env())
	term.waitText("fake-chat")
	term.keys("F1")
	s := term.waitText("Keys and commands")
	for _, row := range []string{`enter +send`, `esc +stop`, `pgup/pgdn +scroll`, `ctrl\+e +\$EDITOR`, `ctrl\+home +top`,
		`ctrl\+end +bottom`, `ctrl\+f +search`, `ctrl\+o +memory`, `ctrl\+l/ctrl\+s +chats`, `ctrl\+t +details`} {
		if !regexp.MustCompile(row).MatchString(s) {
			t.Errorf("F1 at 60 columns lacks %q:\n%s", row, s)
		}
	}
	if strings.Contains(s, "scroll down") {
		t.Errorf("F1 lists paging down on a row of its own:\n%s", s)
	}
	if !strings.Contains(s, "Shift+drag") {
		t.Errorf("F1 does not say how to select text:\n%s", s)
	}
	term.keys("Escape")
	term.waitFor("the help to close", func(s string) bool { return !strings.Contains(s, "Keys and commands") })

	for _, k := range []string{"C-l", "C-s"} {
		term.keys(k)
		term.waitText("Conversations")
		term.keys(k)
		term.waitFor("the list to close", func(s string) bool { return !strings.Contains(s, "Conversations") })
	}
}
