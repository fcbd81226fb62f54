package cli

import (
	"strings"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	cases := []struct {
		args []string
		cmd  string
		rest []string
	}{
		{[]string{"ask", "hi"}, "ask", []string{"hi"}},
		{[]string{"--data-dir", "d", "search", "x"}, "search", []string{"x", "--data-dir", "d"}},
		{[]string{"--user=bob", "memory", "add", "y"}, "memory", []string{"add", "y", "--user=bob"}},
		{[]string{"--model", "m", "ask", "--", "-x"}, "ask", []string{"--model", "m", "--", "-x"}},
		{[]string{"--resume", "0123abcd", "--turn", "3"}, "", []string{"--resume", "0123abcd", "--turn", "3"}},
		{[]string{"-c"}, "", []string{"-c"}},
		{[]string{"frobnicate"}, "frobnicate", []string{}},
	}
	for _, c := range cases {
		cmd, rest := splitCommand(c.args)
		if cmd != c.cmd || strings.Join(rest, " ") != strings.Join(c.rest, " ") {
			t.Errorf("splitCommand(%q) = %q, %q; want %q, %q", c.args, cmd, rest, c.cmd, c.rest)
		}
	}
}
