package vector

import (
	"flag"
	"fmt"
	"math"
	"slices"
	"testing"
)

var studyN = flag.Int("vector.study", 0, "run the quantiser recall study with this many vectors")

// quantised copies of one dataset under several encodings.
type studyData struct {
	x      [][]float32
	i8     [][]int8
	i8s    []float32
	mu     []float32
	rot    *rotation
	sign   [][]float32 // ±1 of x (raw)
	signCR [][]float32 // ±1 of R(x-mu)
	fCR    []float32   // ||r||²/||r||_1 of R(x-mu)
	nCR    []float32   // ||x-mu||
}

func quantInt8(x []float32) ([]int8, float32) {
	var m float32
	for _, v := range x {
		m = max(m, float32(math.Abs(float64(v))))
	}
	s := m / 127
	c := make([]int8, len(x))
	for i, v := range x {
		c[i] = int8(math.Round(float64(v / s)))
	}
	return c, s
}

func signs(x []float32) []float32 {
	s := make([]float32, len(x))
	for i, v := range x {
		s[i] = 1
		if v < 0 {
			s[i] = -1
		}
	}
	return s
}

func TestPrefilterStudy(t *testing.T) {
	if *studyN == 0 {
		t.Skip("use -vector.study=N")
	}
	n, dim := *studyN, 768
	for _, d := range []dataset{randomData(dim), clusteredData(dim, 200), skewedData(dim, 200)} {
		sd := studyData{rot: newRotation(dim), mu: make([]float32, dim)}
		for i := range n {
			v := d.vec(0, i, make([]float32, dim))
			sd.x = append(sd.x, v)
			for j := range v {
				sd.mu[j] += v[j] / float32(n)
			}
		}
		var pairCos float64
		for i := 0; i < 1000; i++ {
			pairCos += float64(dotF32(sd.x[i], sd.x[i+1]))
		}
		for _, v := range sd.x {
			c, s := quantInt8(v)
			sd.i8 = append(sd.i8, c)
			sd.i8s = append(sd.i8s, s)
			sd.sign = append(sd.sign, signs(v))
			r := make([]float32, dim)
			for j := range r {
				r[j] = v[j] - sd.mu[j]
			}
			sd.nCR = append(sd.nCR, float32(math.Sqrt(float64(dotF32(r, r)))))
			sd.rot.apply(r, r)
			var l1 float32
			for _, e := range r {
				l1 += float32(math.Abs(float64(e)))
			}
			sd.fCR = append(sd.fCR, dotF32(r, r)/l1)
			sd.signCR = append(sd.signCR, signs(r))
		}
		qs := queriesOf(d, 50)
		gt := groundTruth(d, n, qs, 10)
		ms := []int{20, 50, 100, 200, 500, 1000, 2000, 5000, 10000}
		est := map[string]func(q []float32) []float32{
			"int8": func(q []float32) []float32 {
				qc, qs := quantInt8(q)
				out := make([]float32, n)
				for i := range out {
					out[i] = float32(dotInt8(qc, sd.i8[i])) * qs * sd.i8s[i]
				}
				return out
			},
			"ham-raw": func(q []float32) []float32 {
				qs := signs(q)
				out := make([]float32, n)
				for i := range out {
					out[i] = dotF32(qs, sd.sign[i])
				}
				return out
			},
			"ham-cr": func(q []float32) []float32 {
				r := make([]float32, dim)
				for j := range r {
					r[j] = q[j] - sd.mu[j]
				}
				sd.rot.apply(r, r)
				qs := signs(r)
				out := make([]float32, n)
				for i := range out {
					h := (float32(dim) - dotF32(qs, sd.signCR[i])) / 2
					out[i] = sd.nCR[i] * float32(math.Cos(math.Pi*float64(h)/float64(dim)))
				}
				return out
			},
			"asym-raw": func(q []float32) []float32 {
				out := make([]float32, n)
				for i := range out {
					out[i] = dotF32(q, sd.sign[i])
				}
				return out
			},
			"asym-cr": func(q []float32) []float32 {
				r := make([]float32, dim)
				sd.rot.apply(r, q)
				out := make([]float32, n)
				for i := range out {
					out[i] = dotF32(r, sd.signCR[i]) * sd.fCR[i]
				}
				return out
			},
			"asym-cr-nof": func(q []float32) []float32 {
				r := make([]float32, dim)
				sd.rot.apply(r, q)
				out := make([]float32, n)
				for i := range out {
					out[i] = dotF32(r, sd.signCR[i])
				}
				return out
			},
		}
		names := []string{"int8", "ham-raw", "ham-cr", "asym-raw", "asym-cr", "asym-cr-nof"}
		fmt.Printf("%s n=%d mean pair cos %.3f\n%-12s", d.name, n, pairCos/1000, "M")
		for _, m := range ms {
			fmt.Printf(" %6d", m)
		}
		fmt.Println()
		int8Score := est["int8"]
		for _, name := range names {
			rec := make([]float64, len(ms))
			for qi, q := range qs {
				s := est[name](q)
				i8 := int8Score(q)
				order := make([]int, n)
				for i := range order {
					order[i] = i
				}
				slices.SortFunc(order, func(a, b int) int { return cmpDesc(s[a], s[b]) })
				for mi, m := range ms {
					cand := slices.Clone(order[:min(m, n)])
					slices.SortFunc(cand, func(a, b int) int { return cmpDesc(i8[a], i8[b]) })
					rec[mi] += recallAt(cand[:min(10, len(cand))], gt[qi]) / float64(len(qs))
				}
			}
			fmt.Printf("%-12s", name)
			for _, r := range rec {
				fmt.Printf(" %6.3f", r)
			}
			fmt.Println()
		}
	}
}
