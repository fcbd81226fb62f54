// Package text holds small helpers for text shown to a person.
package text

import "strconv"

// Thousands writes n with commas between groups of three digits: 12,345.
func Thousands(n int) string {
	if n < 0 {
		return "-" + Thousands(-n)
	}
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
