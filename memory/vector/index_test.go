package vector

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"
)

func randomUnit(r *rand.Rand, dim int) []float32 {
	v := make([]float32, dim)
	gauss(r, v, 1)
	normalize(v)
	return v
}

// TestRecall checks recall@10 against exact float32 brute force, both for
// the int8-ranked results and after exact rescoring of 2k candidates.
func TestRecall(t *testing.T) {
	n, nq := 20_000, 50
	if testing.Short() || raceEnabled {
		n, nq = 8_000, 30
	}
	for _, d := range []dataset{randomData(768), clusteredData(768, 200), skewedData(768, 200)} {
		t.Run(d.name, func(t *testing.T) {
			t.Parallel()
			ix := buildIndex(t, d, n)
			qs := queriesOf(d, nq)
			ev := evaluate(t, ix, d, qs, groundTruth(d, n, qs, 10), defaultEpsilon)
			t.Logf("n=%d recall@10=%.3f rescored=%.3f int8-rescorings/query=%.0f", n, ev.recall, ev.recallRescored, ev.rescored)
			if ev.recall < 0.95 {
				t.Errorf("recall@10 = %.3f < 0.95", ev.recall)
			}
			if ev.recallRescored < 0.98 {
				t.Errorf("recall@10 after rescoring = %.3f < 0.98", ev.recallRescored)
			}
		})
	}
}

// TestSelfQuery checks, for many dimensions (padding, non-power-of-two
// rotation, tiny), that every stored vector is its own best match after
// adds, replacements and removals.
func TestSelfQuery(t *testing.T) {
	for _, dim := range []int{1, 2, 3, 8, 17, 64, 100, 384, 768, 1000, 1536, 2048, 4096} {
		t.Run(fmt.Sprint("dim=", dim), func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(dim), 1))
			ix := New(dim)
			n := 300
			vecs := map[Key][]float32{}
			for i := range n {
				k := keyOf(i)
				vecs[k] = randomUnit(r, dim)
				mustAdd(t, ix, k, vecs[k])
			}
			for i := 0; i < n; i += 7 { // replace some
				k := keyOf(i)
				vecs[k] = randomUnit(r, dim)
				mustAdd(t, ix, k, vecs[k])
			}
			for i := 1; i < n; i += 5 { // remove some
				ix.Remove(keyOf(i))
				delete(vecs, keyOf(i))
			}
			if ix.Len() != len(vecs) {
				t.Fatalf("Len = %d, want %d", ix.Len(), len(vecs))
			}
			if dim < 8 {
				return // too few dimensions for distinct nearest neighbours
			}
			for k, v := range vecs {
				res, err := ix.Search(v, 1, nil)
				if err != nil {
					t.Fatal(err)
				}
				if len(res) != 1 || res[0].Key != k {
					t.Fatalf("self query for %v returned %v", k, res)
				}
				if math.Abs(float64(res[0].Score-1)) > 0.01 {
					t.Fatalf("self score %v, want ≈1", res[0].Score)
				}
			}
		})
	}
}

func mustAdd(t testing.TB, ix *Index, k Key, v []float32) {
	t.Helper()
	if err := ix.Add(k, v); err != nil {
		t.Fatal(err)
	}
}

// TestScoresMatchCosine checks that Search's int8 scores approximate the
// exact cosine, for unnormalised input too.
func TestScoresMatchCosine(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	ix := New(768)
	vecs := map[Key][]float32{}
	for i := range 2000 {
		v := randomUnit(r, 768)
		for j := range v {
			v[j] *= 3.5 // Add normalises
		}
		vecs[keyOf(i)] = v
		mustAdd(t, ix, keyOf(i), v)
	}
	q := randomUnit(r, 768)
	res, err := ix.Search(q, 50, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 50 {
		t.Fatalf("got %d results", len(res))
	}
	for i, c := range res {
		exact := Cosine(q, vecs[c.Key])
		if math.Abs(float64(c.Score-exact)) > 0.003 {
			t.Errorf("score %v, exact %v", c.Score, exact)
		}
		if i > 0 && c.Score > res[i-1].Score {
			t.Errorf("results not sorted at %d", i)
		}
	}
}

func TestRemove(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 4))
	ix := New(64)
	vecs := make([][]float32, 3000) // crosses block boundaries
	for i := range vecs {
		vecs[i] = randomUnit(r, 64)
		mustAdd(t, ix, keyOf(i), vecs[i])
	}
	for i := 0; i < len(vecs); i += 2 {
		ix.Remove(keyOf(i))
	}
	ix.Remove(Key{Turn: "absent"}) // no-op
	if got := ix.Len(); got != len(vecs)/2 {
		t.Fatalf("Len = %d, want %d", got, len(vecs)/2)
	}
	for i := range vecs {
		if ix.Contains(keyOf(i)) != (i%2 == 1) {
			t.Fatalf("Contains(%d) wrong", i)
		}
		if i%50 > 1 {
			continue // search a sample: each search below returns everything
		}
		res, err := ix.Search(vecs[i], len(vecs), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(res) != ix.Len() {
			t.Fatalf("k=all returned %d of %d", len(res), ix.Len())
		}
		for _, c := range res {
			if indexOf(t, c.Key)%2 == 0 {
				t.Fatalf("removed key %v returned", c.Key)
			}
		}
		if i%2 == 1 && res[0].Key != keyOf(i) {
			t.Fatalf("kept key %d not found first", i)
		}
	}
	for i := 1; i < len(vecs); i += 2 {
		ix.Remove(keyOf(i))
	}
	if ix.Len() != 0 || len(ix.blocks) != 0 {
		t.Fatalf("Len = %d, blocks = %d after removing all", ix.Len(), len(ix.blocks))
	}
	if res, err := ix.Search(vecs[0], 10, nil); err != nil || res != nil {
		t.Fatalf("search of emptied index = %v, %v", res, err)
	}
}

func TestReplace(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	ix := New(32)
	a, b := randomUnit(r, 32), randomUnit(r, 32)
	k := Key{Turn: "t", Chunk: 1}
	mustAdd(t, ix, k, a)
	mustAdd(t, ix, k, b)
	if ix.Len() != 1 {
		t.Fatalf("Len = %d after replace", ix.Len())
	}
	res, _ := ix.Search(b, 1, nil)
	if len(res) != 1 || res[0].Score < 0.99 {
		t.Fatalf("replaced vector not found: %v", res)
	}
}

func TestInvalidInput(t *testing.T) {
	ix := New(4)
	k := Key{Turn: "x"}
	nan, inf := float32(math.NaN()), float32(math.Inf(1))
	for _, tc := range []struct {
		v    []float32
		want error
	}{
		{[]float32{1, 2, 3}, ErrDim},
		{[]float32{1, 2, 3, 4, 5}, ErrDim},
		{nil, ErrDim},
		{[]float32{0, 0, 0, 0}, ErrInvalid},
		{[]float32{1, nan, 0, 0}, ErrInvalid},
		{[]float32{1, inf, 0, 0}, ErrInvalid},
		{[]float32{-inf, 0, 0, 0}, ErrInvalid},
		{[]float32{3e38, 3e38, 0, 0}, nil}, // squares overflow float32, not float64
		{[]float32{1e-30, 0, 0, 0}, nil},
	} {
		if err := ix.Add(k, tc.v); !errors.Is(err, tc.want) {
			t.Errorf("Add(%v) = %v, want %v", tc.v, err, tc.want)
		}
		if _, err := ix.Search(tc.v, 3, nil); !errors.Is(err, tc.want) {
			t.Errorf("Search(%v) = %v, want %v", tc.v, err, tc.want)
		}
	}
	if ix.Len() != 1 {
		t.Errorf("Len = %d, want 1 (only valid vectors added)", ix.Len())
	}
}

func TestEmptyAndSmallK(t *testing.T) {
	ix := New(8)
	q := []float32{1, 0, 0, 0, 0, 0, 0, 0}
	if res, err := ix.Search(q, 10, nil); err != nil || len(res) != 0 {
		t.Fatalf("empty: %v, %v", res, err)
	}
	mustAdd(t, ix, Key{Turn: "a"}, q)
	for _, k := range []int{0, -1} {
		if res, err := ix.Search(q, k, nil); err != nil || len(res) != 0 {
			t.Fatalf("k=%d: %v, %v", k, res, err)
		}
	}
	if res, _ := ix.Search(q, 10, nil); len(res) != 1 {
		t.Fatalf("k > Len: got %d results", len(res))
	}
}

func TestNewPanicsOnBadDim(t *testing.T) {
	for _, dim := range []int{0, -1, MaxDim + 1} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("New(%d) did not panic", dim)
				}
			}()
			New(dim)
		}()
	}
}

// TestFilter checks that the filter restricts results and that a very
// selective filter still returns the exact best matches among its keys.
func TestFilter(t *testing.T) {
	r := rand.New(rand.NewPCG(6, 6))
	const n, dim = 20_000, 128
	ix := New(dim)
	vecs := make([][]float32, n)
	for i := range vecs {
		vecs[i] = randomUnit(r, dim)
		mustAdd(t, ix, keyOf(i), vecs[i])
	}
	q := randomUnit(r, dim)
	allowed := func(k Key) bool { return indexOf(t, k)%1000 == 3 } // 20 keys
	res, err := ix.Search(q, 5, allowed)
	if err != nil {
		t.Fatal(err)
	}
	var want []scored
	for i := 3; i < n; i += 1000 {
		want = append(want, scored{i, dotF32(q, vecs[i])})
	}
	slices.SortFunc(want, func(a, b scored) int { return cmpDesc(a.s, b.s) })
	if len(res) != 5 {
		t.Fatalf("got %d results, want 5", len(res))
	}
	for i, c := range res {
		if indexOf(t, c.Key) != want[i].i {
			t.Errorf("result %d = %d, want %d", i, indexOf(t, c.Key), want[i].i)
		}
	}
	none := func(Key) bool { return false }
	if res, _ := ix.Search(q, 5, none); len(res) != 0 {
		t.Errorf("reject-all filter returned %v", res)
	}
}

// TestConcurrent runs searches while keys are added, replaced and removed;
// run it with -race.
func TestConcurrent(t *testing.T) {
	const dim, writers, readers, perWriter = 96, 2, 4, 1500
	ix := New(dim)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(w), 9))
			for i := range perWriter {
				k := Key{Turn: fmt.Sprint("w", w), Chunk: i}
				mustAdd(t, ix, k, randomUnit(r, dim))
				if i%3 == 0 {
					ix.Remove(Key{Turn: k.Turn, Chunk: i / 2})
				}
				if i%5 == 0 {
					mustAdd(t, ix, Key{Turn: k.Turn, Chunk: i / 2}, randomUnit(r, dim))
				}
			}
		})
	}
	for rd := range readers {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(rd), 10))
			for range 200 {
				filter := func(k Key) bool { return k.Chunk%2 == 0 }
				if rd%2 == 0 {
					filter = nil
				}
				res, err := ix.Search(randomUnit(r, dim), 10, filter)
				if err != nil {
					t.Error(err)
					return
				}
				for i := 1; i < len(res); i++ {
					if res[i].Score > res[i-1].Score {
						t.Error("unsorted results")
						return
					}
				}
				_ = ix.Len()
			}
		})
	}
	wg.Wait()
	// Every indexed key must still be its own best match.
	n := 0
	for _, b := range ix.blocks {
		for o := range min(blockSize, ix.n-n) {
			if s, ok := ix.slots[b.keys[o]]; !ok || int(s) != n+o {
				t.Fatalf("slot map inconsistent at %d", n+o)
			}
		}
		n += blockSize
	}
	if len(ix.slots) != ix.Len() {
		t.Fatalf("map has %d keys, Len %d", len(ix.slots), ix.Len())
	}
}
