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
	dim int
	p   int // power-of-two block length
	// mul1 and mul2 are the random signs applied before each transform,
	// with the transform's 1/√p normalisation folded into the
	// coordinates it covers. mul2 is nil when p == dim.
	mul1, mul2 []float32
}

func newRotation(dim int) *rotation {
	p := 1
	for p*2 <= dim {
		p *= 2
	}
	r := rand.New(rand.NewPCG(uint64(dim), 0x6d6e656d65))
	norm := float32(1 / math.Sqrt(float64(p)))
	rot := &rotation{dim: dim, p: p, mul1: randomSigns(r, dim)}
	scale(rot.mul1[:p], norm)
	if p != dim {
		rot.mul2 = randomSigns(r, dim)
		scale(rot.mul2[dim-p:], norm)
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

func scale(x []float32, c float32) {
	for i := range x {
		x[i] *= c
	}
}

// apply rotates src into dst (both of length dim). dst may alias src.
func (r *rotation) apply(dst, src []float32) {
	dst, src = dst[:r.dim], src[:r.dim]
	for i, m := range r.mul1 {
		dst[i] = src[i] * m
	}
	fwht(dst[:r.p])
	if r.mul2 == nil {
		return
	}
	for i, m := range r.mul2 {
		dst[i] *= m
	}
	fwht(dst[r.dim-r.p:])
}

// fwht is an in-place, unnormalised fast Walsh-Hadamard transform of a
// power-of-two length slice. The first two levels are fused into one
// radix-4 pass, whose inner loop would otherwise be too short.
func fwht(x []float32) {
	n := len(x)
	h := 1
	if n >= 4 {
		for i := 0; i+4 <= n; i += 4 {
			q := x[i : i+4 : i+4]
			a, b := q[0]+q[1], q[0]-q[1]
			c, d := q[2]+q[3], q[2]-q[3]
			q[0], q[1], q[2], q[3] = a+c, b+d, a-c, b-d
		}
		h = 4
	}
	for ; h < n; h *= 2 {
		for i := 0; i < n; i += 2 * h {
			a, b := x[i:i+h], x[i+h:i+2*h]
			b = b[:len(a)]
			for j := range a {
				u, v := a[j], b[j]
				a[j], b[j] = u+v, u-v
			}
		}
	}
}
