// Package sanitize makes text from a model, a tool, the store or an Ollama
// server safe to show on a terminal, and JSON safe to print: it is the one
// place every human-readable output of mneme (the CLI and the TUI) cleans
// text.
package sanitize

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// TitleMax is how many characters of a title are shown.
const TitleMax = 120

// Text makes text from a model, a tool or the store safe to print on a
// terminal. Escape sequences are removed whole: CSI (cursor moves, screen
// clears, colours), OSC (window title, clipboard writes via OSC 52,
// hyperlinks), DCS, SOS, PM and APC strings, and two-byte ESC sequences.
// Every other C0 and C1 control character is dropped, except newline and
// tab; a carriage return is dropped too, so "\r\n" becomes "\n". Invalid
// UTF-8 becomes U+FFFD. Printable text, including emoji and wide characters,
// is kept as it is. Bidirectional formatting controls (U+202A–U+202E,
// U+2066–U+2069), which reorder what is shown around them, are dropped.
// So are invisible characters, as Line drops them (but for the direction
// marks, which place the neutral characters of right-to-left text where
// they belong): text the user cannot see (tag characters spell "ASCII
// smuggled" words) is not shown either.
//
// A string sequence (OSC, DCS, ...) ends at its terminator (BEL or ST) or,
// as terminals would otherwise swallow what follows, at the next newline,
// which is kept.
func Text(s string) string {
	if !clean(s) {
		s = controls(s)
	}
	if strings.IndexFunc(s, func(r rune) bool { return isInvisible(r) && !isMark(r) || isSelector(r) }) >= 0 {
		s = dropInvisible(s, isMark)
	}
	return s
}

// controls removes escape sequences and control characters (Text).
func controls(s string) string {
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
		case r < 0x20 || (r >= 0x7f && r <= 0x9f) || isBidi(r):
			i += size // other C0, DEL and C1 controls; bidi controls
		default:
			b.WriteString(s[i : i+size])
			i += size
		}
	}
	return b.String()
}

// clean reports whether s is valid UTF-8 without control characters other
// than newline and tab, so that Text can return it unchanged.
func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\n' || c == '\t':
		case c < 0x20 || c == 0x7f:
			return false
		case c == 0xc2 && i+1 < len(s) && s[i+1] >= 0x80 && s[i+1] <= 0x9f:
			return false // a C1 control encoded in UTF-8
		case c == 0xe2 && i+2 < len(s) && bidiBytes(s[i+1], s[i+2]):
			return false // a bidi control
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

// isBidi reports whether r is a bidirectional embedding, override or
// isolate control.
func isBidi(r rune) bool {
	return (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069)
}

// bidiBytes reports whether 0xe2 b1 b2 encodes a bidi control in UTF-8.
func bidiBytes(b1, b2 byte) bool {
	return (b1 == 0x80 && b2 >= 0xaa && b2 <= 0xae) || (b1 == 0x81 && b2 >= 0xa6 && b2 <= 0xa9)
}

// Line is Text on one line: newlines, tabs and runs of spaces become one
// space, so that the text cannot start a row of its own in a listing, and
// the direction marks go too (terminals disagree on their width).
func Line(s string) string {
	s = Text(s)
	if strings.IndexFunc(s, isMark) >= 0 { // Text drops every other invisible character
		s = dropInvisible(s, func(rune) bool { return false })
	}
	return strings.Join(strings.Fields(s), " ")
}

// dropInvisible drops invisible characters (Unicode Cf: zero-width spaces,
// the byte order mark, soft hyphens, direction marks, tag characters; and
// the other default-ignorable ones: the Hangul fillers, the combining
// grapheme joiner): a title of nothing else looked blank, terminals
// disagree on their width, which pushed a listing's columns out of line,
// and tag characters carry words no one sees. A zero-width joiner or
// non-joiner between two visible characters stays: it is part of the text
// (a family emoji, a Persian or Devanagari word); so do the tags of a
// subdivision flag (🏴 and its tags), one variation selector after a
// visible character, and those keep says.
func dropInvisible(s string, keep func(rune) bool) string {
	r := []rune(s)
	var b strings.Builder
	b.Grow(len(s))
	var last rune // the last rune kept
	flagEnd := -1 // the cancel tag ending the subdivision flag being kept
	for i, c := range r {
		joins := isJoiner(c) && i > 0 && i+1 < len(r) && visible(r[i-1]) && visible(r[i+1])
		if isTag(c) && last == 0x1f3f4 {
			flagEnd = subdivisionEnd(r, i)
		}
		flag := isTag(c) && i <= flagEnd
		if isInvisible(c) && !joins && !flag && !keep(c) {
			continue
		}
		if isSelector(c) && (i == 0 || !visible(last) || isSelector(last) || c >= 0xe0100 && !unicode.Is(unicode.Han, last)) {
			continue // one selector a character (❤️, a CJK variant); a run of them spells hidden bytes
		}
		b.WriteRune(c)
		last = c
	}
	return b.String()
}

func isInvisible(r rune) bool {
	switch {
	case r >= 0x600 && r <= 0x605, r == 0x6dd, r == 0x70f, r == 0x8e2, r == 0x110bd, r == 0x110cd:
		return false // format characters that are drawn (the Arabic number sign)
	}
	return r > 0x7f && (unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r))
}

// isSelector is a variation selector: one picks a glyph of the character
// before it (❤️ is U+2764 U+FE0F; those from U+E0100, of a CJK ideograph);
// runs of them carry bytes no one sees.
func isSelector(r rune) bool { return r >= 0xfe00 && r <= 0xfe0f || r >= 0xe0100 && r <= 0xe01ef }

// isMark is a direction mark: left-to-right, right-to-left, Arabic letter.
func isMark(r rune) bool { return r == 0x200e || r == 0x200f || r == 0x61c }

// subdivisionEnd is the index of the cancel tag that ends the tags of a
// subdivision flag starting at i (🏴 then 2-6 tag letters or digits, as
// gbsct), or -1: tags after 🏴 that spell anything else are hidden words.
func subdivisionEnd(r []rune, i int) int {
	j := i
	for j < len(r) && j-i <= 6 && (r[j] >= 0xe0030 && r[j] <= 0xe0039 || r[j] >= 0xe0061 && r[j] <= 0xe007a) {
		j++
	}
	if n := j - i; n < 2 || n > 6 || j == len(r) || r[j] != 0xe007f {
		return -1
	}
	return j
}

// isTag is a tag character, which spells a subdivision flag after 🏴.
func isTag(r rune) bool { return r >= 0xe0020 && r <= 0xe007f }

// isJoiner is the zero-width non-joiner or joiner.
func isJoiner(r rune) bool { return r == 0x200c || r == 0x200d }

func visible(r rune) bool { return !unicode.IsSpace(r) && !isInvisible(r) }

// Path is a file's path as shown where it names mneme's own files (doctor's
// config file, data dir, database): as it is, or, when it holds what Line
// would take out (an escape, a control or invisible character), quoted as
// Go writes strings ("/tmp/d\x1b[31mx"), so that what is shown names that
// folder, not a plausible other one (as git's core.quotePath does). A
// document's path is shown cleaned instead: docs rm takes it as shown.
func Path(p string) string {
	if Line(p) == p {
		return p
	}
	return strconv.QuoteToASCII(p) // Quote would keep variation selectors, which it takes for printable
}

// Title is a title as shown: Line, cut to TitleMax characters with "…".
func Title(s string) string {
	s = Line(s)
	if utf8.RuneCountInString(s) <= TitleMax {
		return s
	}
	r := []rune(s)
	return string(r[:TitleMax-1]) + "…"
}

// JSON escapes, in encoded JSON, what encoding/json leaves raw but a
// terminal acts on: C1 controls (U+0080–U+009F) and bidi controls become
// \u escapes. The value decoded is unchanged: outside strings JSON is
// ASCII, and in UTF-8 these bytes can only be the characters themselves.
func JSON(b []byte) []byte {
	if !needsJSONEscape(b) {
		return b
	}
	const hex = "0123456789abcdef"
	out := make([]byte, 0, len(b)+32)
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f:
			out = append(out, '\\', 'u', '0', '0', hex[b[i+1]>>4], hex[b[i+1]&0xf])
			i++
		case c == 0xe2 && i+2 < len(b) && bidiBytes(b[i+1], b[i+2]):
			r, _ := utf8.DecodeRune(b[i:])
			out = append(out, '\\', 'u', hex[r>>12&0xf], hex[r>>8&0xf], hex[r>>4&0xf], hex[r&0xf])
			i += 2
		default:
			out = append(out, c)
		}
	}
	return out
}

func needsJSONEscape(b []byte) bool {
	for i := 0; i+1 < len(b); i++ {
		switch {
		case b[i] == 0xc2 && b[i+1] >= 0x80 && b[i+1] <= 0x9f:
			return true
		case b[i] == 0xe2 && i+2 < len(b) && bidiBytes(b[i+1], b[i+2]):
			return true
		}
	}
	return false
}
