package vector

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Cosine returns the cosine similarity of a and b (0 if either is zero or
// their lengths differ). It is the exact score the caller uses to rescore
// candidates from the F32_BLOB column.
func Cosine(a, b []float32) float32 {
	if len(a) != len(b) {
		return 0
	}
	ab, aa, bb := dotF32(a, b), dotF32(a, a), dotF32(b, b)
	if aa == 0 || bb == 0 {
		return 0
	}
	return float32(float64(ab) / math.Sqrt(float64(aa)*float64(bb)))
}

// EncodeF32 returns v as little-endian float32s, the blob format libSQL's
// vector32() and F32_BLOB columns accept.
func EncodeF32(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeF32 parses a little-endian float32 blob as written by EncodeF32
// or read back from an F32_BLOB column.
func DecodeF32(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("vector: blob length %d is not a multiple of 4", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}
