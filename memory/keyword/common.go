package keyword

import (
	"strings"
	"unicode"
)

// commonWords are words of everyday chat that are not stop words (a
// search for "the number" should find "number") but tell nothing about
// which of someone's notes a message is about: "I woke at 7, what time is
// it?" recalled "note number 7 about giraffes", and "my sister is called
// Ana" recalled "my cat is called Tom".
const commonWords = `
time times day days today tonight tomorrow yesterday week weeks month months year years morning evening night
number numbers first second last next new old good bad great best better nice little big long short
call calls called calling name named say says said tell told ask asked answer question thing things stuff
know knew think thought want wanted need needed like liked love make made get got give gave take took
go going come came see saw look looked use used work worked try tried help keep kept put let lets
way ways kind lot lots bit part place point case fact idea problem today's
really actually maybe please thanks thank hello hi hey yes yeah okay ok sure right well still even much many
one two three four five six seven eight nine ten hundred thousand
people person man woman guy thing something anything nothing everything someone anyone everyone
`

// Telling reports whether term, an index term (Terms), says what a text
// is about: not a number, and not a word of everyday chat (commonWords).
func (ix *Index) Telling(term string) bool {
	return !ix.an.common[term] && strings.IndexFunc(term, func(r rune) bool { return !unicode.IsDigit(r) }) >= 0
}

// Terms analyzes text into index terms as documents and queries are.
func (ix *Index) Terms(text string) []string { return ix.an.terms(text) }
