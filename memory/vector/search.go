package vector

import (
	"math"
	"runtime"
	"sync"
)

// defaultEpsilon is the half-width, in estimator standard deviations, of
// the confidence interval around each 1-bit estimate: vectors whose
// interval may reach the k-th best score are rescored with int8 codes.
// Larger is slower and more exact; doc.go has the measured trade-off.
const defaultEpsilon = 1.9

// minScanPerWorker is the smallest slice of the index worth a goroutine.
const minScanPerWorker = 4096

// minRescorePerWorker is the smallest number of int8 rescorings worth a
// goroutine.
const minRescorePerWorker = 512

// query is a prepared query: everything derived from q once per search.
type query struct {
	// The rotated query q̃ = Rq quantised to 4 bits per coordinate,
	// q̄ᵢ = lo + delta·uᵢ, stored as bit planes: planes[4w+p] holds bit p
	// of uᵢ for the 64 coordinates of word w.
	planes          []uint64
	twoLo, twoDelta float32  // 2·lo, 2·delta
	base            float32  // Σ q̄ᵢ
	qerr2           float32  // ‖q̃ − q̄‖², the quantisation error's share of the bound
	mu              float32  // ⟨q, μ⟩
	pq              []uint64 // q quantised to ±levels, packed for dotPacked
	sum             int64    // Σ of the quantised q
	step            float32  // q ≈ step·(quantised q)
	eps             float32
	k               int
	keep            func(Key) bool // nil = all
	stats           *searchStats
}

// searchStats reports the work one search did (for tests and benchmarks).
type searchStats struct {
	rescored int // vectors scored with int8 codes
}

// searchScratch is per-search memory reused through Index.scratch.
type searchScratch struct {
	unit   []float32 // the normalised query
	qr     []float32
	planes []uint64
	qi     []int32
	pq     []uint64
}

// Search returns up to k keys whose vectors are most similar to q (cosine),
// best first, restricted to keys accepted by filter (nil = all).
//
// Scores are int8 estimates of the cosine (±0.001 at dim 768). At 100k
// vectors the top 10 has recall@10 0.96-0.98 against exact search; asking
// for 2k and rescoring with the exact float32 vectors (Cosine on the
// F32_BLOB column) gives recall@10 ≥ 0.995.
//
// Workers share a pruning floor, so a vector whose 1-bit bound only just
// misses it may be kept in one run and skipped in another: results can
// differ slightly between identical calls.
//
// filter is called from several goroutines while the index's read lock is
// held: it must be safe for concurrent use and must not modify the index.
// It is only called for vectors that could enter the result, so a cheap
// filter adds little to a search.
func (ix *Index) Search(q []float32, k int, filter func(Key) bool) ([]Candidate, error) {
	return ix.search(q, k, filter, defaultEpsilon, nil)
}

func (ix *Index) search(q []float32, k int, filter func(Key) bool, eps float32, stats *searchStats) ([]Candidate, error) {
	sc := ix.getScratch()
	defer ix.scratch.Put(sc)
	if err := ix.enc.unit(sc.unit, q); err != nil {
		return nil, err
	}
	if k <= 0 {
		return nil, nil
	}

	ix.mu.RLock()
	defer ix.mu.RUnlock()
	if ix.n == 0 {
		return nil, nil
	}
	qp := ix.prepare(sc, min(k, ix.n), eps, filter)
	qp.stats = stats
	best := ix.rescore(qp, ix.scanBits(qp))
	out := make([]Candidate, len(best))
	for i, s := range best {
		b, o := ix.locate(int(s.slot))
		out[i] = Candidate{Key: b.keys[o], Score: s.score}
	}
	return out, nil
}

func (ix *Index) getScratch() *searchScratch {
	if sc, ok := ix.scratch.Get().(*searchScratch); ok {
		return sc
	}
	return &searchScratch{
		unit:   make([]float32, ix.enc.dim),
		qr:     make([]float32, ix.enc.dim),
		planes: make([]uint64, 4*ix.enc.words),
		qi:     make([]int32, ix.enc.padded),
		pq:     make([]uint64, ix.enc.padded/2),
	}
}

// prepare derives both stages' forms of the unit query in sc. Caller
// holds the read lock (for μ).
func (ix *Index) prepare(sc *searchScratch, k int, eps float32, filter func(Key) bool) *query {
	q := sc.unit
	qp := &query{planes: sc.planes, pq: sc.pq, eps: eps, k: k, keep: filter}
	if ix.centre != nil {
		qp.mu = dotF32(q, ix.centre)
	}
	ix.enc.rot.apply(sc.qr, q)
	lo, delta, base, qerr := quantPlanes(qp.planes, sc.qr)
	qp.twoLo, qp.twoDelta, qp.base, qp.qerr2 = 2*lo, 2*delta, base, qerr*qerr
	qp.step, qp.sum = ix.enc.packQuery(qp.pq, sc.qi, q)
	return qp
}

// quantPlanes quantises x to 4 bits per coordinate, x̄ᵢ = lo + delta·uᵢ
// with uᵢ ∈ [0,15], and writes the bit planes of u (see query.planes). It
// returns lo, delta, Σx̄ᵢ and ‖x − x̄‖.
func quantPlanes(planes []uint64, x []float32) (lo, delta, sum, errNorm float32) {
	lo, hi := x[0], x[0]
	for _, v := range x {
		lo, hi = min(lo, v), max(hi, v)
	}
	delta = (hi - lo) / 15
	inv := float32(0)
	if delta > 0 {
		inv = 1 / delta
	}
	clear(planes)
	var e2 float32
	for i, v := range x {
		u := min(uint64((v-lo)*inv+0.5), 15)
		for p := range 4 {
			planes[4*(i>>6)+p] |= (u >> p & 1) << (i & 63)
		}
		dq := lo + delta*float32(u)
		sum += dq
		e2 += (v - dq) * (v - dq)
	}
	return lo, delta, sum, float32(math.Sqrt(float64(e2)))
}

// scanBits is phase 1: estimate every vector from its 1-bit code and
// return those whose upper bound reaches the k-th best lower bound, with
// that upper bound as their score.
func (ix *Index) scanBits(qp *query) []scored32 {
	workers := workersFor(ix.n, minScanPerWorker)
	scans := make([]rangeScan, workers)
	parallel(ix.n, workers, func(w, lo, hi int) {
		scans[w] = ix.scanRange(qp, lo, hi)
	})
	lows := make([]topK, workers)
	total := 0
	for w, sc := range scans {
		lows[w] = sc.low
		total += len(sc.cand)
	}
	tau := float32(math.Inf(-1))
	if lb := mergeTopK(qp.k, lows); len(lb) == qp.k {
		tau = lb[qp.k-1].score
	}
	cands := make([]scored32, 0, total)
	for _, sc := range scans {
		for _, s := range sc.cand {
			if s.score >= tau {
				cands = append(cands, s)
			}
		}
	}
	return cands
}

// rangeScan is one worker's phase-1 result.
type rangeScan struct {
	low  topK       // k best lower bounds
	cand []scored32 // upper bounds that reached low's running threshold
}

// scanRange scans slots [lo,hi).
func (ix *Index) scanRange(qp *query, lo, hi int) rangeScan {
	sc := rangeScan{low: newTopK(qp.k)}
	w := ix.enc.words
	floor := sc.low.threshold()
	for s := lo; s < hi; {
		b, o := ix.locate(s)
		end := min(blockSize, o+hi-s)
		for ; o < end; o, s = o+1, s+1 {
			m := &b.meta[o]
			est, margin := qp.estimate(planeDot(qp.planes, b.bits[o*w:(o+1)*w]), m)
			if est+margin < floor {
				continue
			}
			if qp.keep != nil && !qp.keep(b.keys[o]) {
				continue
			}
			sc.low.push(scored32{int32(s), est - margin})
			sc.cand = append(sc.cand, scored32{int32(s), est + margin})
			floor = sc.low.threshold()
		}
	}
	return sc
}

// estimate returns the 1-bit estimate of ⟨q, x⟩ and the half-width of
// its confidence interval, given planeDot(qp.planes, code) for x's code
// and x's scalars. It is small enough to be inlined into the scan loop.
func (qp *query) estimate(planeSum int, m *meta) (est, margin float32) {
	// Σ q̄ᵢ·sign(rᵢ) = 2·Σ q̄ᵢ·bitᵢ − Σ q̄ᵢ, with Σ q̄ᵢ·bitᵢ = lo·pop + delta·Σ uᵢ·bitᵢ.
	dot := qp.twoDelta*float32(planeSum) + qp.twoLo*float32(m.pop) - qp.base
	// The query's 4-bit rounding adds an independent error f·‖q̃−q̄‖.
	sd := float32(math.Sqrt(float64(m.err*m.err + m.f*m.f*qp.qerr2)))
	return qp.mu + m.f*dot, qp.eps * sd
}

// rescore is phase 2: score candidates with int8 codes, in decreasing
// order of their 1-bit upper bound, and return the k best, best first.
// Once k vectors are scored, the k-th best score is a floor for the final
// result, and the first candidate whose upper bound is below it ends the
// work. Workers take interleaved ranks and share the floor.
func (ix *Index) rescore(qp *query, cands []scored32) []scored32 {
	sortByScoreDesc(cands)
	workers := workersFor(len(cands), minRescorePerWorker)
	tops := make([]topK, workers)
	counts := make([]int, workers)
	var floor sharedFloor
	floor.init()
	forEachWorker(workers, func(w int) {
		top := newTopK(qp.k)
		n := 0
		raised := top.threshold()
		for i := w; i < len(cands); i += workers {
			c := cands[i]
			if c.score < floor.load() {
				break
			}
			top.push(scored32{c.slot, ix.int8Score(qp, int(c.slot))})
			n++
			if t := top.threshold(); t > raised { // write the shared line only on change
				floor.raise(t)
				raised = t
			}
		}
		tops[w], counts[w] = top, n
	})
	if qp.stats != nil {
		qp.stats.rescored = 0
		for _, c := range counts {
			qp.stats.rescored += c
		}
	}
	return mergeTopK(qp.k, tops)
}

// int8Score returns the int8 estimate of the cosine between the query and
// the vector in slot.
func (ix *Index) int8Score(qp *query, slot int) float32 {
	b, o := ix.locate(slot)
	p := ix.enc.padded
	return ix.enc.dot8(qp, b.i8[o*p:(o+1)*p], b.meta[o])
}

// workersFor returns how many goroutines n items of work deserve.
func workersFor(n, minPer int) int {
	return max(1, min(runtime.GOMAXPROCS(0), n/minPer))
}

// parallel splits [0,n) into `workers` contiguous ranges and runs fn on
// each concurrently.
func parallel(n, workers int, fn func(w, lo, hi int)) {
	forEachWorker(workers, func(w int) { fn(w, n*w/workers, n*(w+1)/workers) })
}

// forEachWorker runs fn(0..workers-1) concurrently, on the calling
// goroutine when there is a single worker.
func forEachWorker(workers int, fn func(w int)) {
	if workers <= 1 {
		fn(0)
		return
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() { fn(w) })
	}
	wg.Wait()
}
