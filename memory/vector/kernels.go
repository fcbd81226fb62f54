package vector

// Hand-unrolled inner loops. Go does not auto-vectorise, so each kernel
// keeps several independent accumulators to hide add latency and reslices
// its inputs up front so the compiler can drop bounds checks.

// dotF32 returns the inner product of a and b (len(b) >= len(a)).
func dotF32(a, b []float32) float32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float32
	i := 0
	for ; i+8 <= len(a); i += 8 {
		aa, bb := a[i:i+8:i+8], b[i:i+8:i+8]
		s0 += aa[0]*bb[0] + aa[4]*bb[4]
		s1 += aa[1]*bb[1] + aa[5]*bb[5]
		s2 += aa[2]*bb[2] + aa[6]*bb[6]
		s3 += aa[3]*bb[3] + aa[7]*bb[7]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
}

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

// lutSum adds one table entry per code byte: table j is indexed by byte j
// of the code. Indexing a [256] array with a byte needs no bounds check.
func lutSum(lut [][256]int16, code []byte) int32 {
	lut = lut[:len(code)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(code); i += 4 {
		c := code[i : i+4 : i+4]
		s0 += int32(lut[i][c[0]])
		s1 += int32(lut[i+1][c[1]])
		s2 += int32(lut[i+2][c[2]])
		s3 += int32(lut[i+3][c[3]])
	}
	for ; i < len(code); i++ {
		s0 += int32(lut[i][code[i]])
	}
	return (s0 + s1) + (s2 + s3)
}
