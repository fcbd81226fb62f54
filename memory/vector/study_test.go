package vector

// Studies behind the design choices in doc.go. They are slow and print
// tables rather than assert, so they only run when asked:
//
//	go test -run Study -vector.study=100000 ./memory/vector/

import (
	"flag"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"
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

func studyQuant(x []float32) ([]int8, float32) {
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
			c, s := studyQuant(v)
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
				qc, qs := studyQuant(q)
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

func TestEpsilonStudy(t *testing.T) {
	if *studyN == 0 {
		t.Skip("use -vector.study=N")
	}
	n := *studyN
	for _, d := range []dataset{randomData(768), clusteredData(768, 200), skewedData(768, 200)} {
		t0 := time.Now()
		ix := buildIndex(t, d, n)
		build := time.Since(t0)
		qs := queriesOf(d, 200)
		gt := groundTruth(d, n, qs, 10)
		for _, eps := range []float32{1.3, 1.5, 1.7, 1.9, 2.2} {
			ev := evaluate(t, ix, d, qs, gt, eps)
			fmt.Printf("%-9s n=%d build=%v eps=%.1f recall=%.3f rescored-recall=%.3f rescored=%.0f\n", d.name, n, build.Round(time.Millisecond), eps, ev.recall, ev.recallRescored, ev.rescored)
		}
	}
}

// TestErrorStudy measures (estimate − exact)/err for the 1-bit estimator.
func TestErrorStudy(t *testing.T) {
	if *studyN == 0 {
		t.Skip("use -vector.study=N")
	}
	n := *studyN
	for _, d := range []dataset{randomData(768), clusteredData(768, 200), skewedData(768, 200)} {
		ix := buildIndex(t, d, n)
		qs := queriesOf(d, 20)
		v := make([]float32, d.dim)
		var zAll, zTop []float64
		for _, q := range qs {
			sc := ix.getScratch()
			copy(sc.unit, q)
			qp := ix.prepare(sc, 10, 1, nil)
			type pair struct{ exact, z float64 }
			var ps []pair
			for i := range n {
				d.vec(0, i, v)
				b, o := ix.locate(int(ix.slots[keyOf(i)]))
				w := ix.enc.words
				est, sd := qp.estimate(planeDot(qp.planes, b.bits[o*w:(o+1)*w]), &b.meta[o])
				ex := float64(dotF32(q, v))
				ps = append(ps, pair{ex, (float64(est) - ex) / float64(sd)})
			}
			slices.SortFunc(ps, func(a, b pair) int { return cmpDesc(float32(a.exact), float32(b.exact)) })
			for i, p := range ps {
				zAll = append(zAll, p.z)
				if i < 100 {
					zTop = append(zTop, p.z)
				}
			}
		}
		q := func(z []float64, p float64) float64 { slices.Sort(z); return z[int(p*float64(len(z)-1))] }
		sd := func(z []float64) float64 {
			var s, s2 float64
			for _, x := range z {
				s += x
				s2 += x * x
			}
			m := s / float64(len(z))
			return math.Sqrt(s2/float64(len(z)) - m*m)
		}
		fmt.Printf("%-9s all: sd=%.3f q0.001=%.2f q0.01=%.2f q0.99=%.2f | top100: sd=%.3f mean=%.3f q0.001=%.2f q0.01=%.2f q0.05=%.2f\n", d.name,
			sd(zAll), q(zAll, 0.001), q(zAll, 0.01), q(zAll, 0.99), sd(zTop), func() float64 {
				s := 0.0
				for _, x := range zTop {
					s += x
				}
				return s / float64(len(zTop))
			}(), q(zTop, 0.001), q(zTop, 0.01), q(zTop, 0.05))
	}
}

// TestHammingStudy measures how far the symmetric (both sides 1-bit)
// estimate falls below the asymmetric one, in units of the standard
// deviation of their difference: over all vectors and over each query's
// true top 100.
func TestHammingStudy(t *testing.T) {
	if *studyN == 0 {
		t.Skip("use -vector.study=N")
	}
	n := *studyN
	for _, d := range []dataset{randomData(768), clusteredData(768, 200), skewedData(768, 200)} {
		ix := buildIndex(t, d, n)
		v := make([]float32, d.dim)
		qr := make([]float32, d.dim)
		var zAll, zTop []float64
		for _, q := range queriesOf(d, 20) {
			ix.enc.rot.apply(qr, q)
			var l1 float64
			for _, x := range qr {
				l1 += math.Abs(float64(x))
			}
			c := l1 / float64(d.dim) // best scale for sign(q̃)
			var e2 float64
			for _, x := range qr {
				e2 += (math.Abs(float64(x)) - c) * (math.Abs(float64(x)) - c)
			}
			type pair struct{ exact, z float64 }
			var ps []pair
			w := ix.enc.words
			for i := range n {
				b, o := ix.locate(int(ix.slots[keyOf(i)]))
				code := b.bits[o*w : (o+1)*w]
				var asym float64
				agree := 0
				for j, x := range qr {
					s := 2*float64(code[j>>6]>>(j&63)&1) - 1
					asym += float64(x) * s
					if (x > 0) == (s > 0) {
						agree++
					}
				}
				sym := c * float64(2*agree-d.dim)
				ps = append(ps, pair{float64(dotF32(q, d.vec(0, i, v))), (asym - sym) / math.Sqrt(e2)})
			}
			slices.SortFunc(ps, func(a, b pair) int { return cmpDesc(float32(a.exact), float32(b.exact)) })
			for i, p := range ps {
				zAll = append(zAll, p.z)
				if i < 100 {
					zTop = append(zTop, p.z)
				}
			}
		}
		mean := func(z []float64) float64 {
			s := 0.0
			for _, x := range z {
				s += x
			}
			return s / float64(len(z))
		}
		fmt.Printf("%-9s (asymmetric − symmetric)/sd: all vectors mean %.2f, true top 100 mean %.2f\n", d.name, mean(zAll), mean(zTop))
	}
}
