package vector

import (
	"encoding/binary"
	"math/bits"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// Alternative scan kernels measured against the chosen ones (see doc.go).
// Each benchmark scans n=100k vectors of dim 768 on one goroutine; ns/op is
// one full scan.

const altN, altDim = 100_000, 768

// dotInt8 returns the inner product of two int8 vectors (len(b) >= len(a)).
// An int32 accumulator cannot overflow for len(a) < 133,000.
func dotInt8(a, b []int8) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		aa, bb := a[i:i+8:i+8], b[i:i+8:i+8]
		s0 += int32(aa[0])*int32(bb[0]) + int32(aa[4])*int32(bb[4])
		s1 += int32(aa[1])*int32(bb[1]) + int32(aa[5])*int32(bb[5])
		s2 += int32(aa[2])*int32(bb[2]) + int32(aa[6])*int32(bb[6])
		s3 += int32(aa[3])*int32(bb[3]) + int32(aa[7])*int32(bb[7])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// dotInt8Q returns the inner product of a query widened to int32 and an
// int8 code (len(b) >= len(a)). Widening the query once per search saves
// a sign extension per element, which makes this ~1.4x faster than
// dotInt8; the caller keeps |a[i]|·127·len(a) < 2³¹.
func dotInt8Q(a []int32, b []int8) int32 {
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
	for ; i < len(a); i++ {
		s0 += a[i] * int32(b[i])
	}
	return (s0 + s1) + (s2 + s3)
}

// lutSum (the previous phase-1 kernel) adds one table entry per code byte: table j is indexed by byte j
// of the code (len(lut) >= len(code)). Eight code bytes are loaded at once;
// indexing a [256] array with a byte needs no bounds check.
func lutSum(lut [][256]float32, code []byte) float32 {
	lut = lut[:len(code)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= len(code); i += 8 {
		t := (*[8][256]float32)(lut[i : i+8])
		x := binary.LittleEndian.Uint64(code[i:])
		s0 += t[0][byte(x)] + t[4][byte(x>>32)]
		s1 += t[1][byte(x>>8)] + t[5][byte(x>>40)]
		s2 += t[2][byte(x>>16)] + t[6][byte(x>>48)]
		s3 += t[3][byte(x>>24)] + t[7][byte(x>>56)]
	}
	for ; i < len(code); i++ {
		s0 += lut[i][code[i]]
	}
	return (s0 + s1) + (s2 + s3)
}

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

func lutSumI16(lut [][256]int16, code []byte) int32 {
	lut = lut[:len(code)]
	var s0, s1, s2, s3 int32
	for i := 0; i+4 <= len(code); i += 4 {
		c := code[i : i+4 : i+4]
		s0 += int32(lut[i][c[0]])
		s1 += int32(lut[i+1][c[1]])
		s2 += int32(lut[i+2][c[2]])
		s3 += int32(lut[i+3][c[3]])
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

// BenchmarkKernel times one full sequential scan of 100k vectors of dim
// 768 on one goroutine per kernel, and reports ns per vector.
func BenchmarkKernel(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	nb := altDim / 8
	f32 := make([]float32, altN*altDim)
	for i := range f32 {
		f32[i] = float32(r.NormFloat64())
	}
	i8 := make([]int8, altN*altDim)
	u8 := make([]byte, altN*altDim)
	for i := range i8 {
		i8[i] = int8(r.IntN(255) - 127)
		u8[i] = byte(i8[i]) ^ 0x80
	}
	q32 := make([]int32, altDim)
	for i := range q32 {
		q32[i] = int32(r.IntN(16383) - 8191)
	}
	packed := make([]uint64, altDim/2)
	for i := range packed {
		packed[i] = uint64(r.IntN(16383)) | uint64(r.IntN(16383))<<32
	}
	planes := make([]uint64, 4*nb/8)
	for i := range planes {
		planes[i] = r.Uint64()
	}
	words := make([]uint64, altN*nb/8)
	codes := make([]byte, altN*nb)
	for i := range words {
		words[i] = r.Uint64()
	}
	for i := range codes {
		codes[i] = byte(r.Uint32())
	}
	lut := make([][256]float32, nb)
	lut16 := make([][256]int16, nb)
	lut4 := make([][16]int16, 2*nb)
	for j := range lut {
		for k := range lut[j] {
			lut[j][k] = r.Float32()
			lut16[j][k] = int16(r.IntN(2000) - 1000)
		}
	}
	for j := range lut4 {
		for k := range lut4[j] {
			lut4[j][k] = int16(r.IntN(2000) - 1000)
		}
	}
	var sf float32
	var si int32
	var su uint32
	var sh int
	kernels := []struct {
		name string
		fn   func(v int)
	}{
		{"float32-dot", func(v int) { sf += dotF32(f32[:altDim], f32[v*altDim:(v+1)*altDim]) }},
		{"int8-dot", func(v int) { si += dotInt8(i8[:altDim], i8[v*altDim:(v+1)*altDim]) }},
		{"int8-dot-int32-query", func(v int) { si += dotInt8Q(q32, i8[v*altDim:(v+1)*altDim]) }},
		{"int8-dot-packed", func(v int) { su += dotPacked(packed, u8[v*altDim:(v+1)*altDim]) }},
		{"hamming-xor-popcount", func(v int) { sh += hamming(words[:nb/8], words[v*nb/8:(v+1)*nb/8]) }},
		{"1bit-4bit-query-planes", func(v int) { sh += planeDot(planes, words[v*nb/8:(v+1)*nb/8]) }},
		{"1bit-lut8-float32", func(v int) { sf += lutSum(lut, codes[v*nb:(v+1)*nb]) }},
		{"1bit-lut8-int16", func(v int) { si += lutSumI16(lut16, codes[v*nb:(v+1)*nb]) }},
		{"1bit-lut4-int16", func(v int) { si += lutSumNibble(lut4, codes[v*nb:(v+1)*nb]) }},
	}
	for _, k := range kernels {
		b.Run(k.name, func(b *testing.B) {
			for b.Loop() {
				for v := range altN {
					k.fn(v)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*altN), "ns/vec")
		})
	}
	_, _, _, _ = sf, si, su, sh
}

// flatData holds one dataset under every encoding the alternatives need.
type flatData struct {
	n, dim int
	enc    encoder
	f32    []float32 // n·dim
	i8     []byte    // n·padded offset-binary int8
	meta   []meta
	signs  []uint64 // n·words sign bits of the rotated vectors
	words  int
}

func newFlatData(d dataset, n int) *flatData {
	e := newEncoder(d.dim)
	fd := &flatData{n: n, dim: d.dim, enc: e, words: (d.dim + 63) / 64}
	fd.f32 = make([]float32, n*d.dim)
	fd.i8 = make([]byte, n*e.padded)
	fd.meta = make([]meta, n)
	fd.signs = make([]uint64, n*fd.words)
	r := make([]float32, d.dim)
	parallel(n, workersFor(n, 1), func(_, lo, hi int) {
		r := make([]float32, d.dim)
		for i := lo; i < hi; i++ {
			v := d.vec(0, i, fd.f32[i*d.dim:(i+1)*d.dim])
			fd.meta[i].scale, fd.meta[i].sum = quantInt8(fd.i8[i*e.padded:(i+1)*e.padded], v)
			fd.signWords(r, v, fd.signs[i*fd.words:(i+1)*fd.words])
		}
	})
	_ = r
	return fd
}

func (fd *flatData) signWords(r, v []float32, out []uint64) {
	fd.enc.rot.apply(r, v)
	clear(out)
	for i, x := range r {
		if x > 0 {
			out[i/64] |= 1 << (i % 64)
		}
	}
}

// altSearch is one alternative: it returns the data indices of its top 10.
type altSearch func(q []float32) []int

func (fd *flatData) float32Exact(q []float32) []int {
	return fd.scan(func(i int) float32 { return dotF32(q, fd.f32[i*fd.dim:(i+1)*fd.dim]) })
}

func (fd *flatData) int8Query(q []float32) *query {
	qp := &query{pq: make([]uint64, fd.enc.padded/2)}
	qp.step, qp.sum = fd.enc.packQuery(qp.pq, make([]int32, fd.enc.padded), q)
	return qp
}

func (fd *flatData) int8Score(qp *query, i int) float32 {
	p := fd.enc.padded
	return fd.enc.dot8(qp, fd.i8[i*p:(i+1)*p], fd.meta[i])
}

func (fd *flatData) int8Full(q []float32) []int {
	qp := fd.int8Query(q)
	return fd.scan(func(i int) float32 { return fd.int8Score(qp, i) })
}

// hammingThenInt8 ranks by symmetric Hamming distance of sign bits, then
// rescores the m nearest with int8 codes. Distances are small integers, so
// the m nearest are selected with a histogram in O(n), and both passes run
// on all CPUs.
func (fd *flatData) hammingThenInt8(m int) altSearch {
	return func(q []float32) []int {
		w := fd.words
		qw := make([]uint64, w)
		fd.signWords(make([]float32, fd.dim), q, qw)
		dist := make([]uint16, fd.n)
		workers := workersFor(fd.n, minScanPerWorker)
		parallel(fd.n, workers, func(_, lo, hi int) {
			for i := lo; i < hi; i++ {
				dist[i] = uint16(hamming(qw, fd.signs[i*w:(i+1)*w]))
			}
		})
		hist := make([]int, 64*w+1)
		for _, h := range dist {
			hist[h]++
		}
		cut, seen := 0, 0
		for cut < len(hist) && seen+hist[cut] < m {
			seen += hist[cut]
			cut++
		}
		var near []int32
		atCut := m - seen
		for i, h := range dist {
			if int(h) < cut || (int(h) == cut && atCut > 0) {
				if int(h) == cut {
					atCut--
				}
				near = append(near, int32(i))
			}
		}
		qp := fd.int8Query(q)
		tops := make([]topK, workers)
		parallel(len(near), workers, func(wk, lo, hi int) {
			t := newTopK(10)
			for _, i := range near[lo:hi] {
				t.push(scored32{i, fd.int8Score(qp, int(i))})
			}
			tops[wk] = t
		})
		return slotsOf(mergeTopK(10, tops))
	}
}

func (fd *flatData) scan(score func(i int) float32) []int {
	return slotsOf(fd.scanK(10, score))
}

// scanK scores every vector on all CPUs and returns the k best.
func (fd *flatData) scanK(k int, score func(i int) float32) []scored32 {
	workers := workersFor(fd.n, minScanPerWorker)
	tops := make([]topK, workers)
	parallel(fd.n, workers, func(w, lo, hi int) {
		t := newTopK(k)
		for i := lo; i < hi; i++ {
			if s := score(i); s > t.threshold() {
				t.push(scored32{int32(i), s})
			}
		}
		tops[w] = t
	})
	return mergeTopK(k, tops)
}

func slotsOf(s []scored32) []int {
	out := make([]int, len(s))
	for i, x := range s {
		out[i] = int(x.slot)
	}
	return out
}

// BenchmarkAlternatives compares whole-search alternatives to the chosen
// design on 100k random 768-dim vectors (2 goroutines where parallel):
// latency percentiles, recall@10 of the returned top 10, bytes/vector.
func BenchmarkAlternatives(b *testing.B) {
	const n = 100_000
	d := randomData(768)
	fd := newFlatData(d, n)
	qs := queriesOf(d, 100)
	gt := groundTruth(d, n, qs, 10)
	for _, alt := range []struct {
		name  string
		bytes int
		run   altSearch
	}{
		{"float32-exact", 4 * fd.dim, fd.float32Exact},
		{"int8-full-scan", fd.enc.padded + 8, fd.int8Full},
		{"hamming-top2000+int8", fd.enc.padded + 8 + 8*fd.words, fd.hammingThenInt8(2000)},
		{"hamming-top10000+int8", fd.enc.padded + 8 + 8*fd.words, fd.hammingThenInt8(10000)},
		{"hamming-top30000+int8", fd.enc.padded + 8 + 8*fd.words, fd.hammingThenInt8(30000)},
	} {
		b.Run(alt.name, func(b *testing.B) {
			var recall float64
			for i, q := range qs {
				recall += recallAt(alt.run(q), gt[i]) / float64(len(qs))
			}
			var lat []time.Duration
			i := 0
			for b.Loop() {
				t := time.Now()
				alt.run(qs[i%len(qs)])
				lat = append(lat, time.Since(t))
				i++
			}
			slices.Sort(lat)
			b.ReportMetric(float64(lat[len(lat)/2])/1e6, "p50-ms")
			b.ReportMetric(float64(lat[len(lat)*95/100])/1e6, "p95-ms")
			b.ReportMetric(recall, "recall@10")
			b.ReportMetric(float64(alt.bytes), "code-B/vec")
		})
	}
}
