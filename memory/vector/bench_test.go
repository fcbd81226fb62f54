package vector

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// benchCase is one prepared index with its queries and ground truth.
type benchCase struct {
	ix      *Index
	queries [][]float32
	eval    evaluation
	build   time.Duration
	heap    uint64 // heap bytes held by the index after GC
	rss     uint64 // process RSS after the build (data is streamed: no float32 copy)
}

func prepareBench(b *testing.B, d dataset, n int) *benchCase {
	b.Helper()
	heap0 := heapInUse()
	t0 := time.Now()
	ix := buildIndex(b, d, n)
	bc := &benchCase{ix: ix, build: time.Since(t0)}
	bc.heap = heapInUse() - heap0
	debug.FreeOSMemory() // return the generator's garbage so RSS shows what stays
	bc.rss = rssBytes()
	bc.queries = queriesOf(d, 200)
	gtq := bc.queries[:100]
	bc.eval = evaluate(b, ix, d, gtq, groundTruth(d, n, gtq, 10), defaultEpsilon)
	return bc
}

func heapInUse() uint64 {
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// cpuTime returns the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// rssBytes reads VmRSS from /proc (0 where unavailable).
func rssBytes() uint64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmRSS:"); ok {
			kb, _ := strconv.ParseUint(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

// BenchmarkSearch measures Search(q, 10) latency. Names without a data=
// suffix use uniformly random unit vectors, the hardest case.
func BenchmarkSearch(b *testing.B) {
	cases := []struct {
		name string
		n    int
		d    dataset
	}{
		{"n=10k,dim=768", 10_000, randomData(768)},
		{"n=100k,dim=768", 100_000, randomData(768)},
		{"n=100k,dim=768,data=clustered", 100_000, clusteredData(768, 200)},
		{"n=100k,dim=768,data=skewed", 100_000, skewedData(768, 200)},
	}
	for _, c := range cases {
		var bc *benchCase
		b.Run(c.name, func(b *testing.B) {
			if bc == nil {
				bc = prepareBench(b, c.d, c.n)
			}
			benchSearch(b, bc, c.n)
		})
		bc = nil // release before the next case
		runtime.GC()
	}
}

func benchSearch(b *testing.B, bc *benchCase, n int) {
	lat := make([]time.Duration, 0, 1024)
	var st searchStats
	var rescored int
	i := 0
	cpu0 := cpuTime()
	for b.Loop() {
		t := time.Now()
		if _, err := bc.ix.search(bc.queries[i%len(bc.queries)], 10, nil, defaultEpsilon, &st); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
		rescored += st.rescored
		i++
	}
	cpu := cpuTime() - cpu0
	slices.Sort(lat)
	ms := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))]) / 1e6 }
	b.ReportMetric(ms(0.50), "p50-ms")
	b.ReportMetric(ms(0.95), "p95-ms")
	b.ReportMetric(float64(cpu)/float64(i)/1e6, "cpu-ms/op")
	b.ReportMetric(float64(rescored)/float64(i), "rescored/op")
	b.ReportMetric(bc.eval.recall, "recall@10")
	b.ReportMetric(bc.eval.recallRescored, "recall@10-rescored")
	b.ReportMetric(float64(bc.heap)/float64(n), "heap-B/vec")
	b.ReportMetric(float64(bc.heap)/(1<<20), "heap-MiB")
	b.ReportMetric(float64(bc.rss)/(1<<20), "rss-MiB")
	b.ReportMetric(bc.build.Seconds(), "build-s")
}

// BenchmarkBuild measures Add throughput from pre-generated vectors, from
// one goroutine and from GOMAXPROCS goroutines (encoding runs outside the
// index's lock, so a bulk load scales with cores).
func BenchmarkBuild(b *testing.B) {
	const n = 100_000
	d := randomData(768)
	vecs := make([][]float32, n)
	keys := make([]Key, n)
	for i := range vecs {
		vecs[i] = d.vec(0, i, make([]float32, d.dim))
		keys[i] = keyOf(i)
	}
	for _, par := range []int{1, runtime.GOMAXPROCS(0)} {
		b.Run(fmt.Sprintf("n=100k,dim=768,goroutines=%d", par), func(b *testing.B) {
			for b.Loop() {
				ix := New(d.dim)
				parallel(n, par, func(_, lo, hi int) {
					for i := lo; i < hi; i++ {
						if err := ix.Add(keys[i], vecs[i]); err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/build")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n)/1e3, "µs/vec")
		})
	}
}
