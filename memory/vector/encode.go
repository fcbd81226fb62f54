package vector

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
)

// Errors returned for vectors the index cannot use.
var (
	ErrDim     = errors.New("vector: wrong dimension")
	ErrInvalid = errors.New("vector: NaN, Inf or zero vector")
)

// MaxDim bounds the dimension (qwen3-embedding:8b gives 4096) so that the
// int8 stage keeps ≥ 10 bits of query precision, still finer than the
// stored 8-bit codes (see newEncoder).
const MaxDim = 8192

// meta is the per-vector scalar side information.
type meta struct {
	scale float32 // int8 step: x ≈ scale·code
	sum   int32   // Σ of the int8 code, for dotPacked's offset correction
	f     float32 // 1-bit estimator factor ‖r‖²/‖r‖₁, r = R(x−μ)
	err   float32 // 1-bit estimator standard deviation for a unit query
	pop   int32   // number of set bits in the 1-bit code
}

// encoder turns unit vectors into the index's two compact codes. It is
// immutable.
type encoder struct {
	dim    int
	padded int // int8 code length: dim rounded up to a multiple of 8
	words  int // uint64 words of the 1-bit code, ceil(dim/64)
	levels int // the int8 stage quantises the query to ±levels
	rot    *rotation
}

func newEncoder(dim int) encoder {
	padded := (dim + 7) &^ 7
	// dotPacked's upper lane accumulates Σ a'·u ≤ padded·2·levels·255,
	// which must stay below 2³². That allows 14 bits (±8191) at dim 768,
	// 13 bits at 2048 and 10 at 8192: the query's own rounding error is
	// then small next to the stored int8 codes'.
	levels := min(8191, (1<<32-1)/(510*padded)-1)
	return encoder{dim: dim, padded: padded, words: (dim + 63) / 64, levels: levels, rot: newRotation(dim)}
}

// unit validates v and writes it, normalised, into dst (len dim).
func (e encoder) unit(dst, v []float32) error {
	if len(v) != e.dim {
		return fmt.Errorf("%w: got %d, want %d", ErrDim, len(v), e.dim)
	}
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	if s == 0 || math.IsNaN(s) || math.IsInf(s, 0) {
		return ErrInvalid
	}
	inv := 1 / math.Sqrt(s)
	for i, x := range v {
		dst[i] = float32(float64(x) * inv)
	}
	return nil
}

// quantInt8 writes the symmetric per-vector int8 code of x into dst in
// offset-binary form (byte = code+128; dst's padding past len(x) encodes
// 0) and returns its step and the sum of the codes.
func quantInt8(dst []byte, x []float32) (step float32, sum int32) {
	for i := range dst {
		dst[i] = 128
	}
	m := maxAbs(x)
	if m == 0 {
		return 0, 0
	}
	step = m / 127
	inv := 1 / step
	for i, v := range x {
		c := roundInt8(v * inv)
		dst[i] = byte(c) ^ 0x80
		sum += int32(c)
	}
	return step, sum
}

// roundInt8 rounds v ∈ [-127.5, 127.5] half away from zero, without a
// branch (signs are random, so a branch would mispredict half the time).
func roundInt8(v float32) int8 {
	half := math.Float32frombits(math.Float32bits(v)&(1<<31) | math.Float32bits(0.5))
	return int8(v + half)
}

func maxAbs(x []float32) float32 {
	var m float32
	for _, v := range x {
		m = max(m, abs32(v))
	}
	return m
}

func abs32(v float32) float32 { return math.Float32frombits(math.Float32bits(v) &^ (1 << 31)) }

// encodeBits writes the 1-bit code of r = R(x−μ) into words (bit i set
// when coordinate i is positive) and its scalars into m. μ may be nil (no
// centring); scratch must hold dim floats.
//
// The estimator is RaBitQ's (Gao & Long, SIGMOD 2024): with o = r/‖r‖ and
// x̄ = sign(r)/√d, ⟨r,q⟩ ≈ ‖r‖·⟨x̄,q⟩/⟨x̄,o⟩ = ⟨sign(r),q⟩·‖r‖²/‖r‖₁,
// unbiased for a randomly rotated r, with standard deviation
// ‖r‖·‖q‖·√(1/⟨x̄,o⟩²−1)/√(d−1) (err, for ‖q‖ = 1). TestErrorStudy
// confirms that (estimate−exact)/σ is ≈ N(0,1) on random, clustered and
// skewed data.
func (e encoder) encodeBits(m *meta, words []uint64, x, mu, scratch []float32) {
	r := scratch[:e.dim]
	copy(r, x)
	if mu != nil {
		for i, c := range mu[:len(r)] {
			r[i] -= c
		}
	}
	e.rot.apply(r, r)
	m.pop = packSigns(words, r)
	var n2, n1 float32
	for _, v := range r {
		n2 += v * v
		n1 += abs32(v)
	}
	if n1 == 0 {
		m.f, m.err = 0, 0
		return
	}
	a := float64(n1) / math.Sqrt(float64(e.dim)*float64(n2)) // ⟨x̄,o⟩ ∈ (0,1]
	spread := math.Sqrt(max(0, 1/(a*a)-1)) / math.Sqrt(float64(max(1, e.dim-1)))
	m.f, m.err = n2/n1, float32(math.Sqrt(float64(n2))*spread)
}

// packSigns sets bit i of words when r[i] has a clear sign bit (is
// positive or +0) and returns the number of bits set. Bits past len(r)
// are 0.
func packSigns(words []uint64, r []float32) int32 {
	clear(words)
	for i, v := range r {
		words[i>>6] |= uint64(^math.Float32bits(v)>>31) << (i & 63)
	}
	pop := 0
	for _, w := range words {
		pop += bits.OnesCount64(w)
	}
	return int32(pop)
}

// packQuery quantises unit q to ±levels and packs it for dotPacked: for
// each group of 8 coordinates g, pq[4g+p] = a'(8g+4+p) | a'(8g+p)<<32 with
// a' = a+levels ≥ 0. qi is scratch of length padded.
func (e encoder) packQuery(pq []uint64, qi []int32, q []float32) (step float32, sum int64) {
	step = maxAbs(q) / float32(e.levels)
	inv := 1 / step
	clear(qi)
	for i, v := range q {
		qi[i] = int32(math.Round(float64(v * inv)))
		sum += int64(qi[i])
	}
	l := int32(e.levels)
	for g := 0; g < e.padded/8; g++ {
		for p := range 4 {
			lo, hi := uint64(qi[8*g+4+p]+l), uint64(qi[8*g+p]+l)
			pq[4*g+p] = lo | hi<<32
		}
	}
	return step, sum
}

// dot8 returns ⟨quantised q, code⟩ from dotPacked's offset-binary sum:
// Σ(a+L)(b+128) = Σab + 128·Σa + L·Σb + 128·L·padded.
func (e encoder) dot8(qp *query, code []byte, m meta) float32 {
	s := int64(dotPacked(qp.pq, code))
	l := int64(e.levels)
	ab := s - 128*qp.sum - l*int64(m.sum) - 128*l*int64(e.padded)
	return float32(ab) * qp.step * m.scale
}

// dequantInt8 writes step·code into dst (len(dst) coordinates).
func dequantInt8(dst []float32, code []byte, step float32) {
	code = code[:len(dst)]
	for i, c := range code {
		dst[i] = float32(int8(c^0x80)) * step
	}
}
