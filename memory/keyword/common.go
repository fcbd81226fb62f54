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
//
// Words people ask their memory about ("name", "work", "like", "old") are
// not in it: "What is my name?" must recall "My name is Ana".
const commonWords = `
time times today tonight morning evening night
number numbers first second last next good bad great best better nice little big
call calls called calling say says said tell told ask asked answer question thing things stuff
think thought want wanted need needed make made get got give gave take took
go going come came see saw look looked use used try tried help keep kept put let lets
way ways kind lot lots bit part point case fact idea
really actually maybe please thanks thank hello hi hey yes yeah okay ok sure right well still even much many
one two three four five six seven eight nine ten
something anything nothing everything someone anyone everyone
`

// Telling reports whether term, an index term (Terms), says what a text
// is about: not a word of everyday chat (commonWords), and not a number of
// one or two digits ("7"; a PIN, a year or a room number tells).
func (ix *Index) Telling(term string) bool {
	short := len([]rune(term)) < 3 && strings.IndexFunc(term, func(r rune) bool { return !unicode.IsDigit(r) }) < 0
	return !ix.an.common[term] && !short
}

// Terms analyzes text into index terms as documents and queries are.
func (ix *Index) Terms(text string) []string { return ix.an.terms(text) }
