package keyword

import (
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/english"
)

// analyzer turns English text into index terms. The index stores its output
// (terms joined by spaces) in fields whose Bleve analyzer only splits on
// whitespace, so documents and queries go through exactly this code.
//
// Steps: Unicode word tokenizer (letters and digits; apostrophes inside
// words kept for the next step, hyphens split), lower case, possessives and
// contractions removed ("anna's" -> "anna", "we're" -> "we", "n't"
// words dropped, French elisions dropped: "l'hôpital" -> "hôpital"),
// accents of Latin letters folded ("café" -> "cafe", "straße" -> "strasse";
// other scripts as written), English stop words removed, irregular verb and noun forms
// mapped to their lemma ("went" -> "go", "children" -> "child"), ordinal
// suffixes removed ("8th" -> "8"), then the Snowball (Porter2) English stemmer.
type analyzer struct {
	stop      map[string]bool
	irregular map[string]string
	common    map[string]bool // the terms of commonWords
	stemmer   func(string) string
	stems     sync.Map     // word -> stem: words repeat, stemming is the costly step
	cached    atomic.Int64 // entries in stems, capped at maxCachedStems
}

// maxCachedStems bounds the stem cache (a few MB).
const maxCachedStems = 200_000

// maxTokenBytes drops longer tokens (base64 blobs, URLs' junk): they only bloat the index.
const maxTokenBytes = 40

func newAnalyzer() *analyzer {
	a := &analyzer{stop: map[string]bool{}, irregular: map[string]string{}, stemmer: snowball}
	for _, w := range strings.Fields(stopWords) {
		a.stop[w] = true
	}
	for _, line := range strings.Split(irregularForms, "\n") {
		f := strings.Fields(line)
		for _, form := range f[min(1, len(f)):] {
			a.irregular[form] = f[0]
		}
	}
	a.common = map[string]bool{}
	for _, t := range a.terms(commonWords) {
		a.common[t] = true
	}
	return a
}

// terms analyzes text into index terms, in order.
func (a *analyzer) terms(text string) []string {
	var out []string
	for _, w := range words(text) {
		out = append(out, a.wordTerms(w)...)
	}
	return out
}

// wordTerms are the terms of one word as words splits text: its term, or,
// for the scripts written without spaces between words (Chinese,
// Japanese; Korean, whose words carry their particles), each pair of
// neighbouring characters, as search engines index them: "東京タワー" is
// 東京 京タ タワ ワー, so that 東京 and タワー find it (as one word, only
// the whole run did).
func (a *analyzer) wordTerms(w string) []string {
	if strings.IndexFunc(w, unspaced) < 0 {
		if t, ok := a.term(w); ok {
			return []string{t}
		}
		return nil
	}
	var out []string
	for len(w) > 0 {
		i := strings.IndexFunc(w, unspaced)
		if i < 0 {
			i = len(w)
		}
		if i > 0 { // letters of another script before the run
			if t, ok := a.term(w[:i]); ok {
				out = append(out, t)
			}
			w = w[i:]
			continue
		}
		end := strings.IndexFunc(w, func(r rune) bool { return !unspaced(r) })
		if end < 0 {
			end = len(w)
		}
		run := []rune(w[:end])
		if len(run) == 1 {
			out = append(out, string(run))
		}
		for j := 0; j+1 < len(run); j++ {
			out = append(out, string(run[j:j+2]))
		}
		w = w[end:]
	}
	return out
}

// unspaced reports whether r belongs to a script written without spaces
// between words (Han, Hiragana, Katakana with its prolonged sound mark,
// Hangul).
func unspaced(r rune) bool {
	return r == 'ー' || r == '々' || unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}

// term normalises one lower-cased word; ok is false for words that are not indexed.
func (a *analyzer) term(w string) (string, bool) {
	if strings.Contains(w, "n't") {
		return "", false
	}
	if i := strings.IndexByte(w, '\''); i >= 0 {
		if elided(w[:i]) && i+1 < len(w) {
			w = w[i+1:] // French "l'hôpital", "d'Azur": the word is after it
			if j := strings.IndexByte(w, '\''); j >= 0 {
				w = w[:j]
			}
		} else {
			w = w[:i]
		}
	}
	w = fold(w)
	if w == "" || len(w) > maxTokenBytes || a.stop[w] {
		return "", false
	}
	if isNumeric(w) {
		return w, true
	}
	if n, ok := ordinal(w); ok {
		return n, true
	}
	if utf8.RuneCountInString(w) < 2 {
		return "", false
	}
	if lemma, ok := a.irregular[w]; ok {
		w = lemma
	}
	return a.stem(w), true
}

// stem stems a word through the cache.
func (a *analyzer) stem(w string) string {
	if s, ok := a.stems.Load(w); ok {
		return s.(string)
	}
	s := a.stemmer(w)
	if a.cached.Load() < maxCachedStems {
		if _, loaded := a.stems.LoadOrStore(w, s); !loaded {
			a.cached.Add(1)
		}
	}
	return s
}

// words splits text into lower-cased words of letters, digits and inner apostrophes.
func words(text string) []string {
	var out []string
	eachWord(text, func(_ int, w string) bool {
		out = append(out, w)
		return true
	})
	return out
}

func isNumeric(w string) bool {
	for i := 0; i < len(w); i++ {
		if w[i] < '0' || w[i] > '9' {
			return false
		}
	}
	return true
}

// ordinal maps "8th", "1st", "22nd", "3rd" to the number.
func ordinal(w string) (string, bool) {
	if len(w) < 3 {
		return "", false
	}
	n, suffix := w[:len(w)-2], w[len(w)-2:]
	if !isNumeric(n) {
		return "", false
	}
	switch suffix {
	case "st", "nd", "rd", "th":
		return n, true
	}
	return "", false
}

func snowball(w string) string {
	env := snowballstem.NewEnv(w)
	english.Stem(env)
	return env.Current()
}

// fold takes the accents off the Latin letters of w, so that "cafe" finds
// "café" and "Malmo" finds "Malmö", as people type them without: marks are
// dropped after a Latin letter only (in other scripts they make other
// letters: Cyrillic й is not и), and the letters with no decomposition
// that English keyboards lack are spelt out.
func fold(w string) string {
	ascii := true
	for i := 0; i < len(w); i++ {
		if w[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return w
	}
	var b strings.Builder
	latin := false
	for _, r := range norm.NFD.String(w) {
		switch {
		case unicode.Is(unicode.Mn, r) && latin:
			continue
		case spelt(r) != "":
			b.WriteString(spelt(r))
		default:
			b.WriteRune(r)
		}
		latin = unicode.Is(unicode.Latin, r)
	}
	return norm.NFC.String(b.String()) // the marks kept, on their letters again
}

// spelt is a Latin letter with no decomposition as spelt without it, or "".
func spelt(r rune) string {
	switch r {
	case 'ß':
		return "ss"
	case 'æ':
		return "ae"
	case 'œ':
		return "oe"
	case 'ø':
		return "o"
	case 'ł':
		return "l"
	case 'đ', 'ð':
		return "d"
	case 'þ':
		return "th"
	case 'ı':
		return "i"
	}
	return ""
}

// elided reports whether p is a word French writes before an apostrophe
// in place of a vowel ("l'", "d'", "qu'"): the word that counts comes after.
func elided(p string) bool {
	switch p {
	case "l", "d", "j", "m", "n", "s", "t", "c", "qu":
		return true
	}
	return false
}

// stopWords: the Snowball English list without contractions (handled in
// term), plus modal and filler words common in chat. Month names ("may",
// "march") are kept: they are needed by date questions.
const stopWords = `
i me my myself we us our ours ourselves you your yours yourself yourselves
he him his himself she her hers herself it its itself they them their theirs
themselves what which who whom whose this that these those am is are was were
be been being have has had having do does did doing would should could ought
will shall can might must a an the and but if or because as until while of at
by for with about against between into through during before after above
below to from up down in out on off over under again further then once here
there when where why how all any both each few more most other some such no
nor not only own same so than too very just also cannot let
`

// irregularForms maps irregular English inflections to their lemma: the first
// word of each line is the lemma, the rest are forms. Ambiguous forms ("bit",
// "rose", "lay", "wound", "ground") are left out.
const irregularForms = `go went gone goes
be was were been
begin began begun
become became
break broke broken
bring brought
build built
buy bought
catch caught
choose chose chosen
come came
deal dealt
dig dug
draw drew drawn
dream dreamt
drink drank drunk
drive drove driven
eat ate eaten
fall fell fallen
feed fed
feel felt
fight fought
find found
flee fled
fly flew flown
forget forgot forgotten
forgive forgave forgiven
freeze froze frozen
get got gotten
give gave given
grow grew grown
hang hung
hear heard
hide hid hidden
hold held
keep kept
know knew known
lead led
leave left
lend lent
lose lost
make made
mean meant
meet met
overcome overcame
pay paid
ride rode ridden
ring rang rung
rise risen
run ran
say said
see saw seen
seek sought
sell sold
send sent
shake shook shaken
shoot shot
sing sang sung
sit sat
sleep slept
speak spoke spoken
spend spent
stand stood
steal stole stolen
stick stuck
sting stung
strike struck
swear swore sworn
swim swam swum
swing swung
take took taken
teach taught
tear tore torn
tell told
think thought
throw threw thrown
understand understood
wake woke woken
wear wore worn
weep wept
win won
write wrote written
child children
man men
woman women
foot feet
tooth teeth
mouse mice`
