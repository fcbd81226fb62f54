package keyword

import (
	"strings"
	"unicode"
)

// Answer types: what kind of information a question asks for, and which
// documents hold that kind of information.
const (
	typeTime = "time" // "when did ...": the document mentions a time ("yesterday", "last week", "in June")
)

// typer detects answer types in questions and documents by scanning words
// (no regular expressions: it runs on every indexed document).
type typer struct {
	timeWords  map[string]bool // a time by themselves: "yesterday", "june", "friday"
	timeUnits  map[string]bool // a time after a relative word: "week", "summer", "may"
	relative   map[string]bool // "last", "next", "this", ... before a unit
	timeQuests map[string]bool // "time", "date", ... after "what"/"which" in a question
}

func newTyper() *typer {
	set := func(s string) map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(s) {
			m[w] = true
		}
		return m
	}
	months := "january february april june july august september october november december jan feb apr jun jul aug sep sept oct nov dec "
	days := "monday tuesday wednesday thursday friday saturday sunday "
	return &typer{
		timeWords:  set("yesterday today tonight tomorrow ago recently lately earlier " + months + days),
		timeUnits:  set("day days week weeks weekend weekends month months year years night morning afternoon evening summer winter spring fall autumn may march " + months + days),
		relative:   set("last next this past coming other few couple"),
		timeQuests: set("time date day month year week"),
	}
}

// docTypes lists the answer types a document's text can answer.
func (ty *typer) docTypes(text string) string {
	if ty.hasTime(lowerWords(text)) {
		return typeTime
	}
	return ""
}

// hasTime reports whether words hold a temporal expression: a time word, a
// year, a relative word before a unit ("last week"), or "may"/"march" next
// to a number ("8 May").
func (ty *typer) hasTime(words []string) bool {
	for i, w := range words {
		switch {
		case ty.timeWords[w], isYear(w):
			return true
		case ty.relative[w] && i+1 < len(words) && ty.timeUnits[words[i+1]]:
			return true
		case (w == "may" || w == "march") && (i > 0 && isNumeric(words[i-1]) || i+1 < len(words) && isNumeric(words[i+1])):
			return true
		}
	}
	return false
}

func isYear(w string) bool {
	return len(w) == 4 && isNumeric(w) && (w[:2] == "19" || w[:2] == "20")
}

// queryType is the answer type a question asks for, or "": "when ...",
// "what/which time/date/day/month/year/week ...", "how long ago ...".
func (ty *typer) queryType(text string) string {
	words := lowerWords(text)
	for i, w := range words {
		next := ""
		if i+1 < len(words) {
			next = words[i+1]
		}
		switch {
		case w == "when" && i == 0:
			return typeTime
		case (w == "what" || w == "which") && ty.timeQuests[next]:
			return typeTime
		case w == "long" && next == "ago" && i > 0 && words[i-1] == "how":
			return typeTime
		}
	}
	return ""
}

// lowerWords splits text into lower-cased words of letters and digits.
func lowerWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}
