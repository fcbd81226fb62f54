package vector_test

import (
	"fmt"
	"slices"

	"github.com/mneme-dev/mneme/memory/vector"
)

// The caller keeps one Index per (user, embedding model), asks it for twice
// the number of results it needs, and rescores those with the exact
// float32 vectors stored in libSQL.
func Example() {
	ix := vector.New(4)
	stored := map[vector.Key][]byte{} // stands in for the F32_BLOB column
	add := func(turn string, chunk int, v []float32) {
		k := vector.Key{Turn: turn, Chunk: chunk}
		stored[k] = vector.EncodeF32(v)
		if err := ix.Add(k, v); err != nil {
			panic(err)
		}
	}
	add("msg-1", 0, []float32{1, 0, 0, 0})
	add("msg-2", 0, []float32{0.9, 0.1, 0, 0})
	add("msg-3", 0, []float32{0, 0, 1, 0})

	q := []float32{1, 0.3, 0, 0}
	const want = 2
	cands, err := ix.Search(q, 2*want, nil)
	if err != nil {
		panic(err)
	}
	for i, c := range cands { // exact rescoring
		v, err := vector.DecodeF32(stored[c.Key])
		if err != nil {
			panic(err)
		}
		cands[i].Score = vector.Cosine(q, v)
	}
	slices.SortFunc(cands, func(a, b vector.Candidate) int {
		if a.Score > b.Score {
			return -1
		}
		if a.Score < b.Score {
			return 1
		}
		return 0
	})
	for _, c := range cands[:want] {
		fmt.Printf("%s %.3f\n", c.Key.Turn, c.Score)
	}
	// Output:
	// msg-2 0.984
	// msg-1 0.958
}
