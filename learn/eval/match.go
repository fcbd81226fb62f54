package eval

import (
	"sort"
	"strings"
	"unicode"
)

// The matcher: two memories say the same thing when their content words
// overlap enough. Text is lower-cased and split on anything that is not a
// letter or a digit; stop words (articles, pronouns, "is", "has",
// "called", "user", …) and one-letter words are dropped, and a final "s"
// is cut from words of four letters or more ("loves" is "love"). The
// score is the Dice coefficient of the two word sets, 2·|A∩B| / (|A|+|B|),
// and Threshold decides. It is simple on purpose: deterministic, with no
// model, so that any run can be checked by hand. It misses paraphrases
// that share no words ("is a vegetarian" / "does not eat meat").

// Threshold is the score from which two memories are the same.
const Threshold = 0.5

var stopWords = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`a an the and or but of to in on at for with from by as so also about into
		i me my mine we our us you your he him his she her it its they them their theirs this that these those
		user is are am was were be been being has have had having do does did will would can could should
		called named who which what when where very just some any there here than then now`) {
		stopWords[w] = true
	}
}

// Words returns the content words of s, as the matcher sees them.
func Words(s string) map[string]bool {
	set := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		if len([]rune(w)) < 2 || stopWords[w] {
			continue
		}
		if len(w) >= 4 && strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "ss") {
			w = strings.TrimSuffix(w, "s")
		}
		set[w] = true
	}
	return set
}

// Score is the matcher's similarity of two memories, 0 to 1.
func Score(a, b string) float64 {
	return dice(Words(a), Words(b))
}

func dice(a, b map[string]bool) float64 {
	if len(a)+len(b) == 0 {
		return 0
	}
	inter := 0
	for w := range a {
		if b[w] {
			inter++
		}
	}
	return 2 * float64(inter) / float64(len(a)+len(b))
}

// Same reports whether the matcher takes a and b for the same memory.
func Same(a, b string) bool { return Score(a, b) >= Threshold }

// Pair is an expected memory matched to an extracted one, by index.
type Pair struct {
	Expected, Extracted int
	Score               float64
}

// Match pairs expected and extracted memories one to one: the best
// scoring pair at or above Threshold first, then the best of the rest,
// and so on (greedy). Ties go to the earlier memories.
func Match(expected, extracted []string) []Pair {
	var cands []Pair
	for i, e := range expected {
		we := Words(e)
		for j, x := range extracted {
			if s := dice(we, Words(x)); s >= Threshold {
				cands = append(cands, Pair{Expected: i, Extracted: j, Score: s})
			}
		}
	}
	sort.SliceStable(cands, func(a, b int) bool { return cands[a].Score > cands[b].Score })
	usedE, usedX := map[int]bool{}, map[int]bool{}
	var out []Pair
	for _, p := range cands {
		if usedE[p.Expected] || usedX[p.Extracted] {
			continue
		}
		usedE[p.Expected], usedX[p.Extracted] = true, true
		out = append(out, p)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Expected < out[b].Expected })
	return out
}

// DuplicatePairs returns the pairs (i < j) of notes the matcher takes for
// the same memory.
func DuplicatePairs(notes []string) [][2]int {
	words := make([]map[string]bool, len(notes))
	for i, n := range notes {
		words[i] = Words(n)
	}
	var out [][2]int
	for i := range notes {
		for j := i + 1; j < len(notes); j++ {
			if dice(words[i], words[j]) >= Threshold {
				out = append(out, [2]int{i, j})
			}
		}
	}
	return out
}
