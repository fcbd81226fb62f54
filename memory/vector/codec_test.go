package vector

import (
	"bytes"
	"math"
	"math/rand/v2"
	"testing"
)

func TestEncodeDecodeF32(t *testing.T) {
	v := []float32{1, -2.5, 0, float32(math.Inf(1)), 3.4028235e38, -1e-45}
	b := EncodeF32(v)
	if len(b) != 4*len(v) {
		t.Fatalf("len = %d", len(b))
	}
	// libSQL's vector32() reads little-endian IEEE-754: 1.0 = 00 00 80 3f.
	if !bytes.Equal(b[:4], []byte{0, 0, 0x80, 0x3f}) {
		t.Fatalf("1.0 encoded as % x", b[:4])
	}
	got, err := DecodeF32(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range v {
		if math.Float32bits(got[i]) != math.Float32bits(v[i]) {
			t.Errorf("[%d] = %v, want %v", i, got[i], v[i])
		}
	}
	if _, err := DecodeF32([]byte{1, 2, 3}); err == nil {
		t.Error("DecodeF32 accepted a 3-byte blob")
	}
	if v, err := DecodeF32(nil); err != nil || len(v) != 0 {
		t.Errorf("DecodeF32(nil) = %v, %v", v, err)
	}
}

func TestCosine(t *testing.T) {
	for _, tc := range []struct {
		a, b []float32
		want float32
	}{
		{[]float32{1, 0}, []float32{0, 1}, 0},
		{[]float32{1, 2, 3}, []float32{2, 4, 6}, 1},
		{[]float32{1, 2, 3}, []float32{-1, -2, -3}, -1},
		{[]float32{1, 0}, []float32{0, 0}, 0},
		{[]float32{1, 0}, []float32{1}, 0},
	} {
		if got := Cosine(tc.a, tc.b); math.Abs(float64(got-tc.want)) > 1e-6 {
			t.Errorf("Cosine(%v, %v) = %v, want %v", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestDotPacked checks the packed int8 kernel against a plain loop at every
// padding and at the extreme codes that stress its carry-free lanes.
func TestDotPacked(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for _, dim := range []int{1, 7, 8, 9, 100, 768, 1000, 2048, MaxDim} {
		e := newEncoder(dim)
		for trial := range 20 {
			q := make([]float32, dim)
			x := make([]float32, dim)
			for i := range q {
				q[i], x[i] = float32(r.NormFloat64()), float32(r.NormFloat64())
				if trial == 0 { // all codes at +max: largest upper lane
					q[i], x[i] = 1, 1
				}
				if trial == 1 { // alternating extremes
					q[i], x[i] = float32(1-2*(i%2)), float32(1-2*((i/2)%2))
				}
			}
			code := make([]byte, e.padded)
			_, sum := quantInt8(code, x)
			qp := &query{pq: make([]uint64, e.padded/2)}
			qi := make([]int32, e.padded)
			qp.step, qp.sum = e.packQuery(qp.pq, qi, q)
			var want int64
			for i := range dim {
				want += int64(qi[i]) * int64(int8(code[i]^0x80))
			}
			got := e.dot8(qp, code, meta{scale: 1 / qp.step, sum: sum})
			if math.Abs(float64(got)-float64(want)) > 1e-6*math.Abs(float64(want))+1 {
				t.Fatalf("dim %d trial %d: got %v want %d", dim, trial, got, want)
			}
		}
	}
}

func TestRotationIsOrthogonal(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for _, dim := range []int{1, 5, 64, 100, 768, 1536} {
		rot := newRotation(dim)
		a, b := randomUnit(r, dim), randomUnit(r, dim)
		ra, rb := make([]float32, dim), make([]float32, dim)
		rot.apply(ra, a)
		rot.apply(rb, b)
		if d := math.Abs(float64(dotF32(ra, ra) - 1)); d > 1e-4 {
			t.Errorf("dim %d: norm changed by %g", dim, d)
		}
		if d := math.Abs(float64(dotF32(ra, rb) - dotF32(a, b))); d > 1e-4 {
			t.Errorf("dim %d: inner product changed by %g", dim, d)
		}
	}
}
