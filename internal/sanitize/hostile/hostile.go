// Package hostile holds the text the terminal-safety tests feed through
// every output of mneme: escape sequences and controls a model, a server
// or an imported file could send, each around words a user must still see.
package hostile

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Payload is one hostile text and what must be shown of it.
type Payload struct {
	Name     string
	Raw      string // as sent
	Readable string // what a terminal must show of it, cleaned
	Hidden   string // a part of the sequence that must not be shown at all, if any
}

// Payloads have no colon, so that they can be part of a model name.
var Payloads = []Payload{
	{"CSI", "csi-\x1b[2J\x1b[H\x1b[31mred\x1b[0m", "csi-red", "[2J"},
	{"OSC 52", "osc52-\x1b]52;c;ZWNobyBwd25lZA==\x07clip", "osc52-clip", "ZWNobyBwd25lZA"},
	{"OSC 0", "osc0-\x1b]0;pwned-title\x1b\\title", "osc0-title", "pwned"},
	{"OSC 8", "osc8-\x1b]8;;evil.example/x\x1b\\link\x1b]8;;\x1b\\", "osc8-link", "evil.example"},
	{"DCS", "dcs-\x1bPq#0;2;0;0;0#0~~\x1b\\six", "dcs-six", "#0;2"},
	{"C1", "c1-\u009b2J\u009d0;c1title\u009cone", "c1-one", "c1title"},
	{"BS and CR", "bs-abc\b\b\bxyz\rcr", "bs-abcxyzcr", ""},
	{"bidi", "bidi-\u202eexe.txt\u202c-\u2066iso\u2069-\u202a\u202b\u202d\u2067\u2068end", "bidi-exe.txt-iso-end", ""},
}

// Unsafe returns a description of the first character in s a terminal
// would act on rather than show (C0 controls other than newline and tab,
// DEL, C1 controls, bidi controls, invalid UTF-8), or "" if there is none.
func Unsafe(s string) string {
	for i, r := range s {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(s[i:]); size == 1 {
				return fmt.Sprintf("invalid UTF-8 at byte %d: %s", i, context(s, i))
			}
		case r == '\n' || r == '\t':
		case r < 0x20 || (r >= 0x7f && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069):
			return fmt.Sprintf("control %U at byte %d: %s", r, i, context(s, i))
		}
	}
	return ""
}

func context(s string, i int) string {
	lo, hi := max(0, i-30), min(len(s), i+30)
	return strings.ToValidUTF8(strings.Map(func(r rune) rune {
		if r < 0x20 || (r >= 0x7f && r <= 0x9f) || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			return '·'
		}
		return r
	}, s[lo:hi]), "?")
}
