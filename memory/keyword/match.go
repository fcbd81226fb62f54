package keyword

import (
	"unicode"
	"unicode/utf8"
)

// FirstMatch is the byte offset in text of its first word that the
// keyword ranking matches with a word of query: the same word once
// analysed (lower case, stop words dropped, stemmed: "planned" matches
// "planning"). It is -1 when text holds none.
func (ix *Index) FirstMatch(text, query string) int {
	want := map[string]bool{}
	for _, t := range ix.an.terms(query) {
		want[t] = true
	}
	if len(want) == 0 {
		return -1
	}
	at := -1
	eachWord(text, func(start int, w string) bool {
		for _, t := range ix.an.wordTerms(w) {
			if want[t] {
				at = start
				return false
			}
		}
		return true
	})
	return at
}

// eachWord calls fn with each word of text as words splits it, and the
// byte offset it starts at, until fn returns false.
func eachWord(text string, fn func(start int, w string) bool) {
	var b []byte
	start := 0
	flush := func() bool {
		w := trimQuotes(b)
		b = b[:0]
		return w == "" || fn(start, w)
	}
	for i, r := range text {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r):
			if len(b) == 0 {
				start = i
			}
			b = utf8.AppendRune(b, unicode.ToLower(r))
		case (r == '\'' || r == '\u2019') && len(b) > 0:
			b = append(b, '\'')
		default:
			if !flush() {
				return
			}
		}
	}
	flush()
}

func trimQuotes(b []byte) string {
	for len(b) > 0 && b[0] == '\'' {
		b = b[1:]
	}
	for len(b) > 0 && b[len(b)-1] == '\'' {
		b = b[:len(b)-1]
	}
	return string(b)
}
