package vector

import (
	"encoding/binary"
	"math/rand/v2"
	"testing"
	"unsafe"
)

func dotInt8v2(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		_ = a[i+7]
		_ = b[i+7]
		s0 += int32(a[i])*int32(b[i]) + int32(a[i+4])*int32(b[i+4])
		s1 += int32(a[i+1])*int32(b[i+1]) + int32(a[i+5])*int32(b[i+5])
		s2 += int32(a[i+2])*int32(b[i+2]) + int32(a[i+6])*int32(b[i+6])
		s3 += int32(a[i+3])*int32(b[i+3]) + int32(a[i+7])*int32(b[i+7])
	}
	return (s0 + s1) + (s2 + s3)
}

func dotInt8v3(a []int32, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		_ = a[i+7]
		_ = b[i+7]
		s0 += a[i]*int32(b[i]) + a[i+4]*int32(b[i+4])
		s1 += a[i+1]*int32(b[i+1]) + a[i+5]*int32(b[i+5])
		s2 += a[i+2]*int32(b[i+2]) + a[i+6]*int32(b[i+6])
		s3 += a[i+3]*int32(b[i+3]) + a[i+7]*int32(b[i+7])
	}
	return (s0 + s1) + (s2 + s3)
}

func dotInt8v4(a []int32, b []byte) int32 {
	b = b[:len(a)]
	var s0, s1 int32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		aa := a[i : i+8 : i+8]
		s0 += aa[0]*int32(int8(x)) + aa[2]*int32(int8(x>>16)) + aa[4]*int32(int8(x>>32)) + aa[6]*int32(int8(x>>48))
		s1 += aa[1]*int32(int8(x>>8)) + aa[3]*int32(int8(x>>24)) + aa[5]*int32(int8(x>>40)) + aa[7]*int32(int8(x>>56))
	}
	return s0 + s1
}

func dotF32v2(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		_ = a[i+7]
		_ = b[i+7]
		s0 += a[i]*b[i] + a[i+4]*b[i+4]
		s1 += a[i+1]*b[i+1] + a[i+5]*b[i+5]
		s2 += a[i+2]*b[i+2] + a[i+6]*b[i+6]
		s3 += a[i+3]*b[i+3] + a[i+7]*b[i+7]
	}
	return (s0 + s1) + (s2 + s3)
}

func BenchmarkK2(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	const n = 20000
	data := make([]int8, n*altDim)
	for i := range data {
		data[i] = int8(r.IntN(255) - 127)
	}
	q := data[:altDim]
	q32 := make([]int32, altDim)
	for i := range q {
		q32[i] = int32(q[i])
	}
	ub := unsafe.Slice((*byte)(unsafe.Pointer(&data[0])), len(data))
	var sink int32
	b.Run("v1", func(b *testing.B) {
		for b.Loop() {
			for v := 0; v < n; v++ {
				sink += dotInt8(q, data[v*altDim:])
			}
		}
	})
	b.Run("v2", func(b *testing.B) {
		for b.Loop() {
			for v := 0; v < n; v++ {
				sink += dotInt8v2(q, data[v*altDim:])
			}
		}
	})
	b.Run("v3", func(b *testing.B) {
		for b.Loop() {
			for v := 0; v < n; v++ {
				sink += dotInt8v3(q32, data[v*altDim:])
			}
		}
	})
	b.Run("v4", func(b *testing.B) {
		for b.Loop() {
			for v := 0; v < n; v++ {
				sink += dotInt8v4(q32, ub[v*altDim:])
			}
		}
	})
	f := make([]float32, n*altDim)
	for i := range f {
		f[i] = float32(data[i])
	}
	var fs float32
	b.Run("f1", func(b *testing.B) {
		for b.Loop() {
			for v := 0; v < n; v++ {
				fs += dotF32(f[:altDim], f[v*altDim:])
			}
		}
	})
	b.Run("f2", func(b *testing.B) {
		for b.Loop() {
			for v := 0; v < n; v++ {
				fs += dotF32v2(f[:altDim], f[v*altDim:])
			}
		}
	})
	_ = sink
}
