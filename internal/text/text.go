// Package text holds small helpers for text shown to a person: numbers,
// cutting, folding to one line, relative dates. Making text safe to show is
// internal/sanitize's job.
package text

import (
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

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

// Cut returns s whole when it has at most n runes, else its first n-1
// runes and "…", so that the result is n runes long.
func Cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-1]) + "…"
}

// Prefix returns at most the first n runes of s, unmarked.
func Prefix(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n])
}

// ExpandTabs replaces each tab in s with the spaces that reach the next
// tab stop (every stop columns, counted in cells from each line's start),
// as a terminal would: a tab has no width a layout can measure.
func ExpandTabs(s string, stop int) string {
	if !strings.Contains(s, "\t") || stop <= 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + len(s)/4)
	col := 0
	for _, r := range s {
		switch r {
		case '\t':
			n := stop - col%stop
			b.WriteString(strings.Repeat(" ", n))
			col += n
		case '\n':
			b.WriteRune(r)
			col = 0
		default:
			b.WriteRune(r)
			if r < 0x300 {
				col++
			} else {
				col += ansi.StringWidth(string(r)) // wide, or combining
			}
		}
	}
	return b.String()
}

// OneLine folds every run of white space in s, new lines included, into
// one space, and trims both ends.
func OneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// RelativeDate renders t relative to now, briefly: "just now", "5m ago",
// "3h ago", "yesterday", "4d ago", then the date ("2 Jan", or "2 Jan 2006"
// in another year). The zero time is "".
func RelativeDate(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	case d < 48*time.Hour:
		return "yesterday"
	case d < 7*24*time.Hour:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	case t.Year() == now.Year():
		return t.Format("2 Jan")
	}
	return t.Format("2 Jan 2006")
}

// Count writes n and the noun for it: "1 message", "2,000 messages".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return Thousands(n) + " " + many
}

// Bytes renders a size the way Ollama's CLI does: "274 MB", "50 MB",
// "2.0 GB".
func Bytes(n int64) string {
	const unit = 1000
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, exp := float64(n)/unit, 0
	for v >= unit && exp < 4 {
		v /= unit
		exp++
	}
	suffix := []string{"KB", "MB", "GB", "TB", "PB"}[exp]
	if v >= 10 {
		return fmt.Sprintf("%.0f %s", v, suffix)
	}
	return fmt.Sprintf("%.1f %s", v, suffix)
}
