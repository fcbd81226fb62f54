package text

import "unicode/utf8"

// FirstRunes returns at most n runes of s, cut without a mark.
func FirstRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n])
}
