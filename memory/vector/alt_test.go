package vector

import (
	"math/bits"
	"math/rand/v2"
	"testing"
)

// Alternative scan kernels measured against the chosen ones (see doc.go).
// Each benchmark scans n=100k vectors of dim 768 on one goroutine; ns/op is
// one full scan.

const altN, altDim = 100_000, 768

func hamming(a, b []uint64) int {
	b = b[:len(a)]
	n := 0
	i := 0
	for ; i+4 <= len(a); i += 4 {
		aa, bb := a[i:i+4:i+4], b[i:i+4:i+4]
		n += bits.OnesCount64(aa[0]^bb[0]) + bits.OnesCount64(aa[1]^bb[1]) +
			bits.OnesCount64(aa[2]^bb[2]) + bits.OnesCount64(aa[3]^bb[3])
	}
	for ; i < len(a); i++ {
		n += bits.OnesCount64(a[i] ^ b[i])
	}
	return n
}

func lutSumF32(lut [][256]float32, code []byte) float32 {
	lut = lut[:len(code)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+4 <= len(code); i += 4 {
		c := code[i : i+4 : i+4]
		s0 += lut[i][c[0]]
		s1 += lut[i+1][c[1]]
		s2 += lut[i+2][c[2]]
		s3 += lut[i+3][c[3]]
	}
	return (s0 + s1) + (s2 + s3)
}

func lutSumNibble(lut [][16]int16, code []byte) int32 {
	lut = lut[:2*len(code)]
	var s0, s1, s2, s3 int32
	for i := 0; i+2 <= len(code); i += 2 {
		c := code[i : i+2 : i+2]
		j := 2 * i
		s0 += int32(lut[j][c[0]&15])
		s1 += int32(lut[j+1][c[0]>>4])
		s2 += int32(lut[j+2][c[1]&15])
		s3 += int32(lut[j+3][c[1]>>4])
	}
	return (s0 + s1) + (s2 + s3)
}

func BenchmarkKernel(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	b.Run("float32", func(b *testing.B) {
		data := make([]float32, altN*altDim)
		for i := range data {
			data[i] = float32(r.NormFloat64())
		}
		q := data[:altDim]
		var sink float32
		for b.Loop() {
			for v := 0; v < altN; v++ {
				sink += dotF32(q, data[v*altDim:])
			}
		}
		_ = sink
	})
	b.Run("int8", func(b *testing.B) {
		data := make([]int8, altN*altDim)
		for i := range data {
			data[i] = int8(r.IntN(255) - 127)
		}
		q := data[:altDim]
		var sink int32
		for b.Loop() {
			for v := 0; v < altN; v++ {
				sink += dotInt8(q, data[v*altDim:])
			}
		}
		_ = sink
	})
	b.Run("hamming", func(b *testing.B) {
		w := altDim / 64
		data := make([]uint64, altN*w)
		for i := range data {
			data[i] = r.Uint64()
		}
		q := data[:w]
		var sink int
		for b.Loop() {
			for v := 0; v < altN; v++ {
				sink += hamming(q, data[v*w:(v+1)*w])
			}
		}
		_ = sink
	})
	nb := altDim / 8
	codes := make([]byte, altN*nb)
	for i := range codes {
		codes[i] = byte(r.Uint32())
	}
	b.Run("lut8-int16", func(b *testing.B) {
		lut := make([][256]int16, nb)
		for j := range lut {
			for k := range lut[j] {
				lut[j][k] = int16(r.IntN(2000) - 1000)
			}
		}
		var sink int32
		for b.Loop() {
			for v := 0; v < altN; v++ {
				sink += lutSum(lut, codes[v*nb:(v+1)*nb])
			}
		}
		_ = sink
	})
	b.Run("lut8-float32", func(b *testing.B) {
		lut := make([][256]float32, nb)
		for j := range lut {
			for k := range lut[j] {
				lut[j][k] = r.Float32()
			}
		}
		var sink float32
		for b.Loop() {
			for v := 0; v < altN; v++ {
				sink += lutSumF32(lut, codes[v*nb:(v+1)*nb])
			}
		}
		_ = sink
	})
	b.Run("lut4-int16", func(b *testing.B) {
		lut := make([][16]int16, 2*nb)
		for j := range lut {
			for k := range lut[j] {
				lut[j][k] = int16(r.IntN(2000) - 1000)
			}
		}
		var sink int32
		for b.Loop() {
			for v := 0; v < altN; v++ {
				sink += lutSumNibble(lut, codes[v*nb:(v+1)*nb])
			}
		}
		_ = sink
	})
}
