package vector

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
)

// dataset generates unit vectors deterministically by index, so that large
// benchmarks can stream vectors into an Index without keeping a float32
// copy alive, and regenerate them for exact ground truth.
type dataset struct {
	name string
	dim  int
	seed uint64
	// gen writes vector i of the stream into v (not yet normalised).
	gen func(r *rand.Rand, v []float32)
}

// vec returns vector i of stream (0 = indexed data, 1 = queries), unit length.
func (d dataset) vec(stream, i int, v []float32) []float32 {
	v = v[:d.dim]
	r := rand.New(rand.NewPCG(d.seed^uint64(stream)<<56, uint64(i)))
	d.gen(r, v)
	normalize(v)
	return v
}

func normalize(v []float32) {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
}

func gauss(r *rand.Rand, v []float32, sigma float32) {
	for i := range v {
		v[i] = float32(r.NormFloat64()) * sigma
	}
}

// randomData: uniformly random directions, the hardest case for any
// quantiser because neighbour similarities are nearly all alike.
func randomData(dim int) dataset {
	return dataset{name: "random", dim: dim, seed: 1, gen: func(r *rand.Rand, v []float32) { gauss(r, v, 1) }}
}

// clusteredData: a mixture of `topics` random unit centroids plus isotropic
// noise of the same norm (same-topic cosine ≈ 0.5), like turns about a
// limited set of subjects.
func clusteredData(dim, topics int) dataset {
	r := rand.New(rand.NewPCG(7, 7))
	cents := make([][]float32, topics)
	for i := range cents {
		cents[i] = make([]float32, dim)
		gauss(r, cents[i], 1)
		normalize(cents[i])
	}
	sigma := float32(1 / math.Sqrt(float64(dim)))
	return dataset{name: "clustered", dim: dim, seed: 2, gen: func(r *rand.Rand, v []float32) {
		c := cents[r.IntN(topics)]
		gauss(r, v, sigma)
		for i := range v {
			v[i] += c[i]
		}
	}}
}

// skewedData: clustered data as a real embedding model produces it: a
// shared offset direction (typical cosine between unrelated texts ≈ 0.4)
// and variance concentrated in a few coordinates (power-law spectrum).
func skewedData(dim, topics int) dataset {
	base := clusteredData(dim, topics)
	r := rand.New(rand.NewPCG(9, 9))
	offset := make([]float32, dim)
	gauss(r, offset, 1)
	normalize(offset)
	w := make([]float32, dim)
	var sw float64
	for i := range w {
		w[i] = float32(1 / math.Sqrt(float64(1+r.IntN(dim)))) // random coordinates get large weights
		sw += float64(w[i]) * float64(w[i])
	}
	for i := range w {
		w[i] /= float32(math.Sqrt(sw / float64(dim)))
	}
	return dataset{name: "skewed", dim: dim, seed: 3, gen: func(r *rand.Rand, v []float32) {
		base.gen(r, v)
		normalize(v)
		for i := range v {
			v[i] = v[i]*w[i] + 0.8*offset[i]
		}
	}}
}

// groundTruth returns the exact top-k ids (data indices) for each query by
// float32 brute force, regenerating the data vectors in parallel.
func groundTruth(d dataset, n int, queries [][]float32, k int) [][]int {
	workers := runtime.GOMAXPROCS(0)
	partial := make([][][]scored, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			tops := make([][]scored, len(queries))
			v := make([]float32, d.dim)
			for i := w; i < n; i += workers {
				d.vec(0, i, v)
				for qi, q := range queries {
					tops[qi] = pushTop(tops[qi], scored{i, dotF32(q, v)}, k)
				}
			}
			partial[w] = tops
		})
	}
	wg.Wait()
	out := make([][]int, len(queries))
	for qi := range queries {
		var all []scored
		for w := range workers {
			all = append(all, partial[w][qi]...)
		}
		slices.SortFunc(all, func(a, b scored) int { return cmpDesc(a.s, b.s) })
		for _, s := range all[:min(k, len(all))] {
			out[qi] = append(out[qi], s.i)
		}
	}
	return out
}

type scored struct {
	i int
	s float32
}

func cmpDesc(a, b float32) int {
	switch {
	case a > b:
		return -1
	case a < b:
		return 1
	}
	return 0
}

// pushTop keeps the k best in an unsorted slice (fine for small k).
func pushTop(top []scored, s scored, k int) []scored {
	if len(top) < k {
		return append(top, s)
	}
	worst := 0
	for j := range top {
		if top[j].s < top[worst].s {
			worst = j
		}
	}
	if s.s > top[worst].s {
		top[worst] = s
	}
	return top
}

func queriesOf(d dataset, nq int) [][]float32 {
	qs := make([][]float32, nq)
	for i := range qs {
		qs[i] = d.vec(1, i, make([]float32, d.dim))
	}
	return qs
}

// recallAt returns |got ∩ want| / len(want).
func recallAt(got, want []int) float64 {
	hit := 0
	for _, w := range want {
		if slices.Contains(got, w) {
			hit++
		}
	}
	return float64(hit) / float64(len(want))
}
