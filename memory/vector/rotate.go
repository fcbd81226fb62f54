package vector

import (
	"math"
	"math/rand/v2"
)

// rotation is a fixed random orthogonal transform: random sign flips
// followed by normalised Walsh-Hadamard transforms. For a dimension that
// is not a power of two, two overlapping transforms of the largest power
// of two p <= dim are applied (on [0,p) and on [dim-p,dim)), which still
// spreads every coordinate over at least p outputs. It costs O(dim log dim)
// per vector, against O(dim²) for a dense random rotation.
//
// Rotating before taking sign bits makes the 1-bit code insensitive to
// embedding models that concentrate variance in a few coordinates.
type rotation struct {
	dim    int
	p      int       // power-of-two block length
	signs1 []float32 // applied before the first transform
	signs2 []float32 // applied before the second transform (nil if p == dim)
	norm   float32   // 1/sqrt(p)
}

func newRotation(dim int) *rotation {
	p := 1
	for p*2 <= dim {
		p *= 2
	}
	r := rand.New(rand.NewPCG(uint64(dim), 0x6d6e656d65))
	rot := &rotation{dim: dim, p: p, signs1: randomSigns(r, dim), norm: float32(1 / math.Sqrt(float64(p)))}
	if p != dim {
		rot.signs2 = randomSigns(r, dim)
	}
	return rot
}

func randomSigns(r *rand.Rand, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = 1
		if r.Uint32()&1 == 1 {
			s[i] = -1
		}
	}
	return s
}

// apply rotates src into dst (both of length dim). dst may alias src.
func (r *rotation) apply(dst, src []float32) {
	dst = dst[:r.dim]
	for i, s := range r.signs1 {
		dst[i] = src[i] * s
	}
	fwht(dst[:r.p], r.norm)
	if r.signs2 == nil {
		return
	}
	for i, s := range r.signs2 {
		dst[i] *= s
	}
	fwht(dst[r.dim-r.p:], r.norm)
}

// fwht is an in-place fast Walsh-Hadamard transform of a power-of-two
// length slice, multiplied by scale.
func fwht(x []float32, scale float32) {
	n := len(x)
	for h := 1; h < n; h *= 2 {
		for i := 0; i < n; i += 2 * h {
			a, b := x[i:i+h], x[i+h:i+2*h]
			for j := range a {
				u, v := a[j], b[j]
				a[j], b[j] = u+v, u-v
			}
		}
	}
	for i := range x {
		x[i] *= scale
	}
}
