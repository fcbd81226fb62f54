package vector

import (
	"fmt"
	"slices"
	"strconv"
	"testing"
)

// keyOf returns a realistic key for data index i: a 36-byte UUID-like turn
// id, as the caller's message ids are.
func keyOf(i int) Key {
	return Key{Turn: fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i), Chunk: i % 3}
}

func indexOf(t testing.TB, k Key) int {
	i, err := strconv.ParseUint(k.Turn[:8], 16, 64)
	if err != nil {
		t.Fatalf("bad key %v", k)
	}
	return int(i)
}

// buildIndex adds vectors 0..n-1 of d, generating them on the fly.
func buildIndex(t testing.TB, d dataset, n int) *Index {
	ix := New(d.dim)
	v := make([]float32, d.dim)
	for i := range n {
		if err := ix.Add(keyOf(i), d.vec(0, i, v)); err != nil {
			t.Fatal(err)
		}
	}
	return ix
}

// evaluation is the quality of a set of searches against ground truth.
type evaluation struct {
	recall         float64 // recall@10 of Search(q, 10)
	recallRescored float64 // recall@10 after exact rescoring of Search(q, 20)
	rescored       float64 // mean number of int8 rescorings per search
}

func evaluate(t testing.TB, ix *Index, d dataset, qs [][]float32, gt [][]int, eps float32) evaluation {
	var ev evaluation
	v := make([]float32, d.dim)
	for qi, q := range qs {
		var st searchStats
		res, err := ix.search(q, 10, nil, eps, &st)
		if err != nil {
			t.Fatal(err)
		}
		ev.recall += recallAt(ids(t, res), gt[qi])
		ev.rescored += float64(st.rescored)
		res, err = ix.search(q, 20, nil, eps, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := range res {
			res[i].Score = Cosine(q, d.vec(0, indexOf(t, res[i].Key), v))
		}
		slices.SortFunc(res, func(a, b Candidate) int { return cmpDesc(a.Score, b.Score) })
		ev.recallRescored += recallAt(ids(t, res[:min(10, len(res))]), gt[qi])
	}
	nq := float64(len(qs))
	ev.recall /= nq
	ev.recallRescored /= nq
	ev.rescored /= nq
	return ev
}

func ids(t testing.TB, cs []Candidate) []int {
	out := make([]int, len(cs))
	for i, c := range cs {
		out[i] = indexOf(t, c.Key)
	}
	return out
}
