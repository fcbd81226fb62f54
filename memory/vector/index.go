package vector

import (
	"fmt"
	"sync"
)

// Key identifies one indexed vector: a chat turn (message id) and the
// chunk number of the turn's text.
type Key struct {
	Turn  string
	Chunk int
}

// Candidate is a search result: a key and its approximate cosine
// similarity to the query (int8 estimate, typically within ±0.001 of the
// exact value for 768-dim vectors).
type Candidate struct {
	Key   Key
	Score float32
}

// blockSize is the number of slots per storage block. Blocks keep growth
// free of large copies and are the unit of parallel work.
const blockSize = 1024

// block stores the compact codes of up to blockSize vectors.
type block struct {
	i8   []byte   // blockSize·padded offset-binary int8 codes of the unit vectors
	bits []uint64 // blockSize·words 1-bit codes of R(x−μ)
	meta []meta   // blockSize scalars
	keys []Key    // blockSize keys
}

// Index holds compact copies of unit vectors for fast top-k candidate
// search by cosine similarity. It is safe for concurrent use: searches run
// under a read lock while a background embedder adds and removes vectors.
type Index struct {
	enc encoder

	mu     sync.RWMutex
	slots  map[Key]int32 // key → slot; slot s lives in blocks[s/blockSize]
	blocks []*block
	n      int

	// centre is μ, the mean of the vectors at the last re-centring (nil
	// before the first). It is replaced, never modified, so an encoder
	// may read it without the lock; centreGen counts replacements.
	centre     []float32
	centreGen  uint64
	nextCentre int // Len at which μ is next recomputed (0 = never again)

	scratch  sync.Pool // *searchScratch
	pendings sync.Pool // *pending
}

// Centring schedule: μ is recomputed when Len reaches 64, 128, … up to
// centreCap. The mean of a few thousand embeddings is already exact to a
// few parts in a thousand, and each re-centring re-encodes every 1-bit
// code under the write lock, so it stops there.
const (
	firstCentre = 64
	centreCap   = 8192
)

// New returns an empty index for vectors of dimension dim (1..MaxDim).
func New(dim int) *Index {
	if dim < 1 || dim > MaxDim {
		panic(fmt.Sprintf("vector: dimension %d out of range 1..%d", dim, MaxDim))
	}
	return &Index{enc: newEncoder(dim), slots: make(map[Key]int32), nextCentre: firstCentre}
}

// Dim returns the vector dimension.
func (ix *Index) Dim() int { return ix.enc.dim }

// Len returns the number of indexed vectors.
func (ix *Index) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.n
}

// Contains reports whether id is indexed.
func (ix *Index) Contains(id Key) bool {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	_, ok := ix.slots[id]
	return ok
}

// pending is an encoded vector waiting to be stored. Pendings are reused
// through Index.pendings to keep Add free of garbage.
type pending struct {
	unit    []float32 // the normalised vector, to re-encode the bits if μ changed
	scratch []float32
	i8      []byte
	bits    []uint64
	m       meta
	gen     uint64 // centreGen the bits were computed with
}

func (ix *Index) getPending() *pending {
	if p, ok := ix.pendings.Get().(*pending); ok {
		return p
	}
	d := ix.enc.dim
	return &pending{
		unit:    make([]float32, d),
		scratch: make([]float32, d),
		i8:      make([]byte, ix.enc.padded),
		bits:    make([]uint64, ix.enc.words),
	}
}

// Add inserts vec under id, replacing any vector already stored under id.
// vec need not be normalised; a vector of the wrong dimension, or with
// NaN, Inf or only zeros, is rejected with ErrDim or ErrInvalid.
//
// Encoding runs before the write lock is taken, so a bulk load from
// several goroutines scales with cores.
func (ix *Index) Add(id Key, vec []float32) error {
	p := ix.getPending()
	defer ix.pendings.Put(p)
	if err := ix.encode(p, vec); err != nil {
		return err
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	ix.store(id, p)
	ix.maybeRecentre()
	return nil
}

// encode does the expensive part of Add outside the write lock.
func (ix *Index) encode(p *pending, vec []float32) error {
	if err := ix.enc.unit(p.unit, vec); err != nil {
		return err
	}
	ix.mu.RLock()
	centre, gen := ix.centre, ix.centreGen
	ix.mu.RUnlock()
	p.gen = gen
	p.m.scale, p.m.sum = quantInt8(p.i8, p.unit)
	ix.enc.encodeBits(&p.m, p.bits, p.unit, centre, p.scratch)
	return nil
}

// store writes p into id's slot (a new one if id is absent). Caller holds
// the write lock.
func (ix *Index) store(id Key, p *pending) {
	if p.gen != ix.centreGen {
		ix.enc.encodeBits(&p.m, p.bits, p.unit, ix.centre, p.scratch)
	}
	s, ok := ix.slots[id]
	if !ok {
		s = int32(ix.n)
		ix.grow()
		ix.slots[id] = s
	}
	b, o := ix.locate(int(s))
	d, w := ix.enc.padded, ix.enc.words
	copy(b.i8[o*d:(o+1)*d], p.i8)
	copy(b.bits[o*w:(o+1)*w], p.bits)
	b.meta[o] = p.m
	b.keys[o] = id
}

// grow makes room for one more slot.
func (ix *Index) grow() {
	if ix.n == len(ix.blocks)*blockSize {
		ix.blocks = append(ix.blocks, &block{
			i8:   make([]byte, blockSize*ix.enc.padded),
			bits: make([]uint64, blockSize*ix.enc.words),
			meta: make([]meta, blockSize),
			keys: make([]Key, blockSize),
		})
	}
	ix.n++
}

func (ix *Index) locate(slot int) (*block, int) {
	return ix.blocks[slot/blockSize], slot % blockSize
}

// Remove deletes id if present. The last slot moves into the hole, so the
// storage stays dense.
func (ix *Index) Remove(id Key) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	s, ok := ix.slots[id]
	if !ok {
		return
	}
	delete(ix.slots, id)
	last := ix.n - 1
	if int(s) != last {
		ix.moveSlot(last, int(s))
	}
	lb, lo := ix.locate(last)
	lb.keys[lo] = Key{} // drop the string reference
	ix.n--
	if ix.n <= (len(ix.blocks)-1)*blockSize {
		ix.blocks[len(ix.blocks)-1] = nil
		ix.blocks = ix.blocks[:len(ix.blocks)-1]
	}
}

// moveSlot copies slot from into slot to and repoints its key.
func (ix *Index) moveSlot(from, to int) {
	fb, fo := ix.locate(from)
	tb, to2 := ix.locate(to)
	d, w := ix.enc.padded, ix.enc.words
	copy(tb.i8[to2*d:(to2+1)*d], fb.i8[fo*d:(fo+1)*d])
	copy(tb.bits[to2*w:(to2+1)*w], fb.bits[fo*w:(fo+1)*w])
	tb.meta[to2] = fb.meta[fo]
	tb.keys[to2] = fb.keys[fo]
	ix.slots[tb.keys[to2]] = int32(to)
}

// maybeRecentre recomputes μ and re-encodes all 1-bit codes when the
// schedule says so. Caller holds the write lock.
func (ix *Index) maybeRecentre() {
	if ix.nextCentre == 0 || ix.n < ix.nextCentre {
		return
	}
	ix.nextCentre *= 2
	if ix.nextCentre > centreCap {
		ix.nextCentre = 0
	}
	d, p, w := ix.enc.dim, ix.enc.padded, ix.enc.words
	x := make([]float32, d)
	scratch := make([]float32, d)
	mean := make([]float64, d)
	ix.eachSlot(func(b *block, o int) {
		dequantInt8(x, b.i8[o*p:(o+1)*p], b.meta[o].scale)
		for i, v := range x {
			mean[i] += float64(v)
		}
	})
	centre := make([]float32, d)
	for i, v := range mean {
		centre[i] = float32(v / float64(ix.n))
	}
	ix.eachSlot(func(b *block, o int) {
		dequantInt8(x, b.i8[o*p:(o+1)*p], b.meta[o].scale)
		ix.enc.encodeBits(&b.meta[o], b.bits[o*w:(o+1)*w], x, centre, scratch)
	})
	ix.centre = centre
	ix.centreGen++
}

// eachSlot calls fn for every occupied slot in order.
func (ix *Index) eachSlot(fn func(b *block, o int)) {
	for bi, b := range ix.blocks {
		for o := range min(blockSize, ix.n-bi*blockSize) {
			fn(b, o)
		}
	}
}
