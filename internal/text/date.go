package text

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ErrDate says a date could not be read.
var ErrDate = errors.New(`not a date: give YYYY-MM-DD, RFC 3339, "today", "yesterday", "N days ago" (weeks, months, years) or "last week"`)

// ParseDate reads a date as a person types it (--since, --until):
// YYYY-MM-DD (midnight, local time), RFC 3339, "now", "today", "yesterday", or "N
// days ago" (also weeks, months, years; "a week ago", "last week"), counted from
// today's midnight as git reads them.
func ParseDate(s string, now time.Time) (time.Time, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	switch s {
	case "now":
		return now, nil
	case "today":
		return midnight, nil
	case "yesterday":
		return midnight.AddDate(0, 0, -1), nil
	}
	if t, err := time.ParseInLocation("2006-01-02", s, now.Location()); err == nil {
		return t, nil
	}
	if t, err := time.Parse(time.RFC3339, strings.ToUpper(s)); err == nil {
		return t, nil
	}
	f := strings.Fields(s)
	if len(f) == 2 && f[0] == "last" { // "last week": a week ago
		f = []string{"1", f[1], "ago"}
	}
	if len(f) != 3 || f[2] != "ago" {
		return time.Time{}, fmt.Errorf("%q: %w", s, ErrDate)
	}
	n, err := strconv.Atoi(f[0])
	if f[0] == "a" || f[0] == "an" {
		n, err = 1, nil
	}
	if err != nil || n < 0 || n > 10000 {
		return time.Time{}, fmt.Errorf("%q: %w", s, ErrDate)
	}
	switch strings.TrimSuffix(f[1], "s") {
	case "day":
		return midnight.AddDate(0, 0, -n), nil
	case "week":
		return midnight.AddDate(0, 0, -7*n), nil
	case "month":
		return midnight.AddDate(0, -n, 0), nil
	case "year":
		return midnight.AddDate(-n, 0, 0), nil
	}
	return time.Time{}, fmt.Errorf("%q: %w", s, ErrDate)
}
