package vector

import (
	"math"
	"slices"
	"sync/atomic"
)

// scored is a slot with a score.
type scored32 struct {
	slot  int32
	score float32
}

// topK keeps the k highest-scoring items in a min-heap.
type topK struct {
	k int
	h []scored32
}

func newTopK(k int) topK { return topK{k: k, h: make([]scored32, 0, k)} }

// threshold is the score an item must beat to enter: the k-th best so far,
// or -Inf while fewer than k items are held.
func (t *topK) threshold() float32 {
	if len(t.h) < t.k {
		return float32(math.Inf(-1))
	}
	return t.h[0].score
}

func (t *topK) push(s scored32) {
	if len(t.h) < t.k {
		t.h = append(t.h, s)
		t.up(len(t.h) - 1)
		return
	}
	if s.score <= t.h[0].score {
		return
	}
	t.h[0] = s
	t.down(0)
}

func (t *topK) up(i int) {
	h := t.h
	for i > 0 {
		p := (i - 1) / 2
		if h[p].score <= h[i].score {
			return
		}
		h[p], h[i] = h[i], h[p]
		i = p
	}
}

func (t *topK) down(i int) {
	h := t.h
	for {
		c := 2*i + 1
		if c >= len(h) {
			return
		}
		if c+1 < len(h) && h[c+1].score < h[c].score {
			c++
		}
		if h[i].score <= h[c].score {
			return
		}
		h[i], h[c] = h[c], h[i]
		i = c
	}
}

// mergeTopK returns the k best items of all heaps, best first.
func mergeTopK(k int, heaps []topK) []scored32 {
	all := newTopK(k)
	for _, t := range heaps {
		for _, s := range t.h {
			all.push(s)
		}
	}
	out := all.h
	slices.SortFunc(out, func(a, b scored32) int { return cmpScoreDesc(a, b) })
	return out
}

// cmpScoreDesc orders by score, best first, then by slot for determinism.
func cmpScoreDesc(a, b scored32) int {
	switch {
	case a.score > b.score:
		return -1
	case a.score < b.score:
		return 1
	}
	return int(a.slot) - int(b.slot)
}

// sortByScoreDesc sorts items best first. It packs each item into a uint64
// whose ascending order is descending score, which sorts several times
// faster than a comparison function.
func sortByScoreDesc(items []scored32) {
	keys := make([]uint64, len(items))
	for i, s := range items {
		keys[i] = uint64(^orderedBits(s.score))<<32 | uint64(uint32(s.slot))
	}
	slices.Sort(keys)
	for i, k := range keys {
		items[i] = scored32{slot: int32(uint32(k)), score: fromOrderedBits(^uint32(k >> 32))}
	}
}

// orderedBits maps a float32 to a uint32 with the same order.
func orderedBits(f float32) uint32 {
	b := math.Float32bits(f)
	if b&(1<<31) != 0 {
		return ^b
	}
	return b | 1<<31
}

func fromOrderedBits(u uint32) float32 {
	if u&(1<<31) != 0 {
		return math.Float32frombits(u &^ (1 << 31))
	}
	return math.Float32frombits(^u)
}

// sharedFloor is a monotonically rising float32 shared by workers.
type sharedFloor struct{ bits atomic.Uint32 }

func (f *sharedFloor) init() { f.bits.Store(orderedBits(float32(math.Inf(-1)))) }

func (f *sharedFloor) load() float32 { return fromOrderedBits(f.bits.Load()) }

// raise sets the floor to v if v is higher.
func (f *sharedFloor) raise(v float32) {
	nv := orderedBits(v)
	for {
		old := f.bits.Load()
		if nv <= old || f.bits.CompareAndSwap(old, nv) {
			return
		}
	}
}
