package keyword

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Date tokens put a document's date in its time-words field so that a
// question naming a date matches it exactly: "d20230508" (day), "m202305"
// (month) and "md0508" (day and month, for dates without a year).
func dateTokens(t time.Time) []string {
	y, m, d := t.Date()
	return []string{
		fmt.Sprintf("d%04d%02d%02d", y, m, d),
		fmt.Sprintf("m%04d%02d", y, m),
		fmt.Sprintf("md%02d%02d", m, d),
	}
}

// queryDates finds the dates a query names, "8 May, 2023", "May 8th 2023",
// "May 2023", "8 May", and returns their date tokens. "May" and "March"
// count as months only next to a day or a year.
func queryDates(text string) []string {
	words := lowerWords(text)
	var out []string
	for i, w := range words {
		m := monthNumber(w)
		if m == 0 {
			continue
		}
		day := 0
		if i > 0 {
			day = dayNumber(words[i-1])
		}
		yearAt := i + 1
		if day == 0 && i+1 < len(words) {
			if day = dayNumber(words[i+1]); day > 0 {
				yearAt = i + 2
			}
		}
		year := 0
		if yearAt < len(words) && isYear(words[yearAt]) {
			year, _ = strconv.Atoi(words[yearAt])
		}
		if (w == "may" || w == "march") && day == 0 && year == 0 {
			continue
		}
		out = append(out, dateQueryTokens(year, m, day)...)
	}
	return out
}

func dateQueryTokens(year, month, day int) []string {
	switch {
	case year > 0 && day > 0:
		return []string{fmt.Sprintf("d%04d%02d%02d", year, month, day)}
	case year > 0:
		return []string{fmt.Sprintf("m%04d%02d", year, month)}
	case day > 0:
		return []string{fmt.Sprintf("md%02d%02d", month, day)}
	}
	return nil
}

// monthNumber is 1-12 for a month name or its usual abbreviation, else 0.
func monthNumber(w string) int {
	if len(w) < 3 {
		return 0
	}
	for m := time.January; m <= time.December; m++ {
		name := strings.ToLower(m.String())
		if w == name || w == name[:3] || (m == time.September && w == "sept") {
			return int(m)
		}
	}
	return 0
}

// dayNumber is 1-31 for "8", "08" or "8th", else 0.
func dayNumber(w string) int {
	if n, ok := ordinal(w); ok {
		w = n
	}
	if len(w) > 2 || !isNumeric(w) {
		return 0
	}
	d, _ := strconv.Atoi(w)
	if d < 1 || d > 31 {
		return 0
	}
	return d
}
