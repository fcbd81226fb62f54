package tui

import (
	"strings"
	"unicode/utf8"
)

// Sanitize makes text from a model, a tool or the store safe to print on a
// terminal. Escape sequences are removed whole: CSI (cursor moves, screen
// clears, colours), OSC (window title, clipboard writes via OSC 52,
// hyperlinks), DCS, SOS, PM and APC strings, and two-byte ESC sequences.
// Every other C0 and C1 control character is dropped, except newline and
// tab; a carriage return is dropped too, so "\r\n" becomes "\n". Invalid
// UTF-8 becomes U+FFFD. Printable text, including emoji and wide characters,
// is kept as it is.
//
// A string sequence (OSC, DCS, ...) ends at its terminator (BEL or ST) or,
// as terminals would otherwise swallow what follows, at the next newline,
// which is kept.
func Sanitize(s string) string {
	if clean(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b.WriteRune(utf8.RuneError)
			i++
			continue
		}
		switch {
		case r == '\n' || r == '\t':
			b.WriteRune(r)
			i += size
		case r == 0x1b: // ESC
			i = skipEscape(s, i+size)
		case r == 0x9b: // C1 CSI
			i = skipCSI(s, i+size)
		case r == 0x90 || r == 0x98 || r == 0x9d || r == 0x9e || r == 0x9f: // C1 DCS, SOS, OSC, PM, APC
			i = skipString(s, i+size)
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			i += size // other C0, DEL and C1 controls
		default:
			b.WriteString(s[i : i+size])
			i += size
		}
	}
	return b.String()
}

// clean reports whether s is valid UTF-8 without control characters other
// than newline and tab, so that Sanitize can return it unchanged.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n' || c == '\t':
		case c < 0x20 || c == 0x7f:
			return false
		case c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f:
			return false // a C1 control encoded in UTF-8
		}
	}
	return utf8.ValidString(s)
}

// skipEscape skips the rest of an escape sequence whose ESC ended before i
// and returns the index after it.
func skipEscape(s string, i int) int {
	if i >= len(s) {
		return i
	}
	switch s[i] {
	case '[':
		return skipCSI(s, i+1)
	case ']', 'P', 'X', '^', '_':
		return skipString(s, i+1)
	}
	// nF sequences: intermediate bytes, then one final byte.
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x30 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipCSI skips the parameters, intermediates and final byte of a control
// sequence. A byte that cannot belong to one ends it and is kept.
func skipCSI(s string, i int) int {
	for i < len(s) && s[i] >= 0x30 && s[i] <= 0x3f {
		i++
	}
	for i < len(s) && s[i] >= 0x20 && s[i] <= 0x2f {
		i++
	}
	if i < len(s) && s[i] >= 0x40 && s[i] <= 0x7e {
		i++
	}
	return i
}

// skipString skips a control string up to and including its terminator:
// BEL, ESC \ or C1 ST. It stops before a newline.
func skipString(s string, i int) int {
	for i < len(s) {
		switch {
		case s[i] == 0x07:
			return i + 1
		case s[i] == '\n':
			return i
		case s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\':
			return i + 2
		case s[i] == 0xc2 && i+1 < len(s) && s[i+1] == 0x9c:
			return i + 2
		}
		i++
	}
	return i
}
