package keyword

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// The time-words field holds tokens of the time a document was written,
// never words: a query can only match it through a temporal expression it
// names (see queryTime), so ordinary words ("may", "even", "3", "2024")
// never match a document's date.
//
//	y2023      year             mo05   month (any year)   wdmonday  weekday
//	dm08       day of month     pdevening  part of day
//	d20230508  day              m202305    month of a year   md0508  day and month
func whenTokens(t time.Time) []string {
	y, m, d := t.Date()
	return []string{
		yearToken(y), monthToken(m), weekdayToken(t.Weekday()),
		fmt.Sprintf("dm%02d", d), "pd" + partOfDay(t.Hour()),
		dayToken(t), monthOfYearToken(y, m), fmt.Sprintf("md%02d%02d", m, d),
	}
}

func yearToken(y int) string                      { return fmt.Sprintf("y%04d", y) }
func monthToken(m time.Month) string              { return fmt.Sprintf("mo%02d", m) }
func weekdayToken(d time.Weekday) string          { return "wd" + strings.ToLower(d.String()) }
func monthOfYearToken(y int, m time.Month) string { return fmt.Sprintf("m%04d%02d", y, m) }

func dayToken(t time.Time) string {
	y, m, d := t.Date()
	return fmt.Sprintf("d%04d%02d%02d", y, m, d)
}

func partOfDay(h int) string {
	switch {
	case h < 5:
		return "night"
	case h < 12:
		return "morning"
	case h < 18:
		return "afternoon"
	case h < 22:
		return "evening"
	}
	return "night"
}

// timeQuery is what a query says about time, as time-words tokens: loose
// ones that many documents share (a year, a month, a weekday, a part of
// day) and exact ones (a day, a month of a year).
type timeQuery struct {
	loose, exact []string
}

func (tq timeQuery) empty() bool { return len(tq.loose) == 0 && len(tq.exact) == 0 }

// monthLead: "in May", "since March", "early June": may/march and
// abbreviated months count alone only after these words.
func monthLead(w string) bool {
	switch w {
	case "in", "during", "since", "until", "till", "through", "throughout", "early", "late", "mid", "of", "last", "next", "by":
		return true
	}
	return false
}

// yearLead: "in 2023", "since 2021", "the year 2019": a year counts alone
// only after these words (or in a query that asks for or names a time).
func yearLead(w string) bool {
	switch w {
	case "in", "during", "since", "until", "till", "from", "of", "before", "after", "by", "through", "throughout", "early", "late", "mid", "year", "around":
		return true
	}
	return false
}

// partLead: "this evening", "friday night": a part of day counts after these words.
func partLead(w string) bool {
	switch w {
	case "this", "last", "yesterday", "that", "tomorrow":
		return true
	}
	return weekdayNumber(w) >= 0
}

// countWord is the number "3", "three" or "a" stands for, else 0.
func countWord(w string) int {
	if n, err := strconv.Atoi(w); err == nil && n > 0 && n <= 1000 {
		return n
	}
	for n, name := range []string{"", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"} {
		if w == name && n > 0 {
			return n
		}
	}
	if w == "a" || w == "an" {
		return 1
	}
	return 0
}

// queryTime finds the temporal expressions of a query and returns the
// time-words tokens they match; relative ones ("yesterday", "last week",
// "3 days ago") are resolved against now, in now's location. Recognised:
//
//   - dates: "8 May, 2023", "May 8th 2023", "the 8th of May", "May 2023", "8 May"
//   - months: a full month name other than May and March ("in June");
//     "may", "march" and abbreviations only after "in", "since", "early", ...
//   - years after "in", "during", "since", "from", ... ("in 2024"); any
//     year when the query asks for a time ("when ...") or names another time
//   - weekdays ("on Friday"; "last Friday" is a day)
//   - parts of day after "this", "last", "yesterday", a weekday, "in the"
//   - "on the 3rd"
//   - "today", "yesterday", "this/last week|month|year", "past week",
//     "last night", "N days|weeks|months|years ago"
//
// A word alone that only looks like a time ("may I ask", "even", "python
// 3", a bare "2024") is not one.
func queryTime(text string, now time.Time, asksTime bool) timeQuery {
	p := timeParser{words: lowerWords(text), now: now, seen: map[string]bool{}}
	p.used = make([]bool, len(p.words))
	p.dates()
	p.relative()
	p.years(asksTime)
	return p.tq
}

type timeParser struct {
	words []string
	now   time.Time
	used  []bool // words that are part of a date
	seen  map[string]bool
	tq    timeQuery
}

func (p *timeParser) word(i int) string {
	if i < 0 || i >= len(p.words) {
		return ""
	}
	return p.words[i]
}

func (p *timeParser) loose(toks ...string) {
	for _, t := range toks {
		if !p.seen[t] {
			p.seen[t] = true
			p.tq.loose = append(p.tq.loose, t)
		}
	}
}

func (p *timeParser) exact(toks ...string) {
	for _, t := range toks {
		if !p.seen[t] {
			p.seen[t] = true
			p.tq.exact = append(p.tq.exact, t)
		}
	}
}

func (p *timeParser) days(from time.Time, n int) {
	for i := 0; i < n; i++ {
		p.exact(dayToken(from.AddDate(0, 0, i)))
	}
}

// dates finds month names with their day and year, and months alone.
func (p *timeParser) dates() {
	for i, w := range p.words {
		m := monthNumber(w)
		if m == 0 {
			continue
		}
		at := []int{i}
		dayAt := -1
		day := dayNumber(p.word(i - 1))
		switch {
		case day > 0:
			dayAt = i - 1
		case p.word(i-1) == "of" && dayNumber(p.word(i-2)) > 0: // "the 8th of May"
			day, dayAt = dayNumber(p.word(i-2)), i-2
		}
		yearAt := i + 1
		if day == 0 {
			if day = dayNumber(p.word(i + 1)); day > 0 {
				dayAt, yearAt = i+1, i+2
			}
		}
		year := 0
		if isYear(p.word(yearAt)) {
			year, _ = strconv.Atoi(p.word(yearAt))
			at = append(at, yearAt)
		}
		full := strings.ToLower(time.Month(m).String())
		ambiguous := w != full || w == "may" || w == "march"
		// "python 3 may crash", "march 10 miles": a plain number beside
		// an ambiguous month is a day only with a year, as an ordinal
		// ("May 3rd"), or after "on", "the" or a month lead ("on 3 May").
		if day > 0 && ambiguous && year == 0 {
			_, ord := ordinal(p.word(dayAt))
			before := p.word(min(i, dayAt) - 1)
			if !ord && before != "on" && before != "the" && !monthLead(before) {
				day, dayAt = 0, -1
			}
		}
		if dayAt >= 0 {
			at = append(at, dayAt)
		}
		alone := !ambiguous
		if day == 0 && year == 0 && !alone && !monthLead(p.word(i-1)) {
			continue
		}
		for _, j := range at {
			p.used[j] = true
		}
		month := time.Month(m)
		p.loose(monthToken(month))
		switch {
		case year > 0 && day > 0:
			p.exact(dayToken(time.Date(year, month, day, 12, 0, 0, 0, time.UTC)))
		case year > 0:
			p.exact(monthOfYearToken(year, month))
		case day > 0:
			p.exact(fmt.Sprintf("md%02d%02d", m, day))
		}
		if year > 0 {
			p.loose(yearToken(year))
		}
	}
}

// relative finds times relative to now, weekdays and parts of day.
func (p *timeParser) relative() {
	today := time.Date(p.now.Year(), p.now.Month(), p.now.Day(), 12, 0, 0, 0, p.now.Location())
	for i, w := range p.words {
		prev, next := p.word(i-1), p.word(i+1)
		switch {
		case w == "today":
			p.exact(dayToken(today))
		case w == "yesterday":
			p.exact(dayToken(today.AddDate(0, 0, -1)))
		case w == "ago":
			p.ago(i, today)
		case isPeriodLead(prev) && p.period(prev, w, today):
			// handled by period
		case weekdayNumber(w) >= 0:
			wd := time.Weekday(weekdayNumber(w))
			p.loose(weekdayToken(wd))
			if prev == "last" { // the latest such day before today
				back := (int(today.Weekday())-int(wd)+6)%7 + 1
				p.exact(dayToken(today.AddDate(0, 0, -back)))
			}
		case isPartOfDay(w) && (partLead(prev) || prev == "the" && (p.word(i-2) == "in" || p.word(i-2) == "during")):
			p.loose("pd" + w)
			switch prev {
			case "this":
				p.exact(dayToken(today))
			case "last", "yesterday":
				p.exact(dayToken(today.AddDate(0, 0, -1)))
			}
		case prev == "the" && p.word(i-2) == "on" && !p.used[i] && monthNumber(next) == 0:
			if n, ok := ordinal(w); ok {
				if d := dayNumber(n); d > 0 {
					p.loose(fmt.Sprintf("dm%02d", d))
				}
			}
		}
	}
}

// period handles "last/this/past/previous week|month|year"; false when w is not one.
func (p *timeParser) period(lead, w string, today time.Time) bool {
	last := lead != "this"
	switch w {
	case "week":
		sinceMonday := (int(today.Weekday()) + 6) % 7
		monday := today.AddDate(0, 0, -sinceMonday)
		switch lead {
		case "this":
			p.days(monday, sinceMonday+1)
		case "past":
			p.days(today.AddDate(0, 0, -7), 8)
		default:
			p.days(monday.AddDate(0, 0, -7), 7)
		}
	case "month":
		first := time.Date(today.Year(), today.Month(), 1, 12, 0, 0, 0, today.Location())
		if last {
			first = first.AddDate(0, -1, 0)
		}
		p.exact(monthOfYearToken(first.Year(), first.Month()))
	case "year":
		y := today.Year()
		if last {
			y--
		}
		p.loose(yearToken(y))
	case "night":
		if lead != "last" {
			return false
		}
		p.loose("pdnight")
		p.exact(dayToken(today.AddDate(0, 0, -1)))
	default:
		return false
	}
	return true
}

// ago handles "N days|weeks|months|years ago" with "ago" at i.
func (p *timeParser) ago(i int, today time.Time) {
	unit := strings.TrimSuffix(p.word(i-1), "s")
	n := countWord(p.word(i - 2))
	if n == 0 {
		return
	}
	switch unit {
	case "day":
		p.exact(dayToken(today.AddDate(0, 0, -n)))
	case "week": // give or take three days
		p.days(today.AddDate(0, 0, -7*n-3), 7)
	case "month":
		m := today.AddDate(0, -n, 0)
		p.exact(monthOfYearToken(m.Year(), m.Month()))
	case "year":
		p.loose(yearToken(today.Year() - n))
	}
}

// years adds the years that are not part of a date but follow a word
// such as "in", or stand in a query that asks for a time or names one.
func (p *timeParser) years(asksTime bool) {
	anchored := asksTime || !p.tq.empty()
	for i, w := range p.words {
		if p.used[i] || !isYear(w) {
			continue
		}
		if anchored || yearLead(p.word(i-1)) {
			y, _ := strconv.Atoi(w)
			p.loose(yearToken(y))
		}
	}
}

// weekdayNumber is 0 (Sunday) to 6 for a weekday's name, else -1.
func weekdayNumber(w string) int {
	for d := time.Sunday; d <= time.Saturday; d++ {
		if w == strings.ToLower(d.String()) {
			return int(d)
		}
	}
	return -1
}

func isPeriodLead(w string) bool {
	return w == "last" || w == "this" || w == "past" || w == "previous"
}

func isPartOfDay(w string) bool {
	return w == "morning" || w == "afternoon" || w == "evening" || w == "night"
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
