package locomo

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Question is a benchmark question with normalised evidence dia_ids.
type Question struct {
	Sample   string
	Question string
	Answer   string
	Category int
	Evidence []string
}

// CategoryName names a LoCoMo question category; 0 is "all".
func CategoryName(c int) string {
	switch c {
	case 0:
		return "all"
	case 1:
		return "multi-hop"
	case 2:
		return "temporal"
	case 3:
		return "open-domain"
	case 4:
		return "single-hop"
	case 5:
		return "adversarial"
	}
	return "category " + strconv.Itoa(c)
}

// Questions lists every question of the samples with normalised evidence.
func Questions(samples []Sample) []Question {
	var out []Question
	for _, s := range samples {
		for _, q := range s.QA {
			out = append(out, Question{
				Sample:   s.ID,
				Question: q.Question,
				Answer:   q.Answer,
				Category: q.Category,
				Evidence: NormalizeEvidence(q.Evidence),
			})
		}
	}
	return out
}

var diaID = regexp.MustCompile(`^D:?(\d+):(\d+)$`)

// NormalizeEvidence splits and canonicalises evidence strings: "D8:6; D9:17"
// gives two ids, "D:11:26" becomes "D11:26", "D30:05" becomes "D30:5";
// unparseable pieces are dropped and duplicates removed.
func NormalizeEvidence(raw []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, r := range raw {
		for _, piece := range strings.FieldsFunc(r, func(c rune) bool { return c == ';' || c == ',' || c == ' ' }) {
			m := diaID.FindStringSubmatch(strings.TrimSpace(piece))
			if m == nil {
				continue
			}
			session, _ := strconv.Atoi(m[1])
			turn, _ := strconv.Atoi(m[2])
			id := fmt.Sprintf("D%d:%d", session, turn)
			if !seen[id] {
				seen[id] = true
				out = append(out, id)
			}
		}
	}
	return out
}

// Cutoffs returns the ranks k at which Score reports recall: 1, 5, 10, 25.
func Cutoffs() []int { return []int{1, 5, 10, 25} }

// Row is the recall of one category (0 = all questions) at each cut-off, in percent.
type Row struct {
	Category  int
	Questions int
	Recall    []float64
}

// Report is LoCoMo evidence recall per category and overall.
type Report struct {
	Rows []Row // categories in ascending order, then all (Category 0)
}

// Score computes evidence recall: for each question the fraction of its
// evidence dia_ids found among the refs of its top-k ranked turns (1 when it
// has no evidence), averaged per category and overall. rankedRefs[i] lists,
// best first, the refs of the turns retrieved for qs[i].
func Score(qs []Question, rankedRefs [][][]string) Report {
	ks := Cutoffs()
	sums := map[int][]float64{}
	counts := map[int]int{}
	for i, q := range qs {
		var ranked [][]string
		if i < len(rankedRefs) {
			ranked = rankedRefs[i]
		}
		for _, c := range []int{q.Category, 0} {
			if sums[c] == nil {
				sums[c] = make([]float64, len(ks))
			}
			counts[c]++
			for j, k := range ks {
				sums[c][j] += recallAt(q.Evidence, ranked, k)
			}
		}
	}
	var r Report
	for c := 1; c <= maxKey(counts); c++ {
		if counts[c] > 0 {
			r.Rows = append(r.Rows, row(c, counts[c], sums[c]))
		}
	}
	r.Rows = append(r.Rows, row(0, counts[0], sums[0]))
	return r
}

func maxKey(m map[int]int) int {
	best := 0
	for k := range m {
		best = max(best, k)
	}
	return best
}

func row(c, n int, sums []float64) Row {
	r := Row{Category: c, Questions: n, Recall: make([]float64, len(sums))}
	if n == 0 {
		return r
	}
	for j := range sums {
		r.Recall[j] = 100 * sums[j] / float64(n)
	}
	return r
}

func recallAt(evidence []string, ranked [][]string, k int) float64 {
	if len(evidence) == 0 {
		return 1
	}
	found := map[string]bool{}
	for i := 0; i < k && i < len(ranked); i++ {
		for _, ref := range ranked[i] {
			found[ref] = true
		}
	}
	hits := 0
	for _, e := range evidence {
		if found[e] {
			hits++
		}
	}
	return float64(hits) / float64(len(evidence))
}

// Recall returns the recall in percent of category c (0 = all) at cut-off k,
// or -1 when the report has no such row or cut-off.
func (r Report) Recall(c, k int) float64 {
	for _, row := range r.Rows {
		if row.Category != c {
			continue
		}
		for j, kk := range Cutoffs() {
			if kk == k {
				return row.Recall[j]
			}
		}
	}
	return -1
}

// Table renders the report as a markdown table.
func (r Report) Table() string {
	var b strings.Builder
	b.WriteString("| category | n |")
	ks := Cutoffs()
	for _, k := range ks {
		fmt.Fprintf(&b, " R@%d |", k)
	}
	b.WriteString("\n|---|---:|")
	for range ks {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, row := range r.Rows {
		fmt.Fprintf(&b, "| %s | %d |", CategoryName(row.Category), row.Questions)
		for _, v := range row.Recall {
			fmt.Fprintf(&b, " %.1f |", v)
		}
		b.WriteString("\n")
	}
	return b.String()
}
