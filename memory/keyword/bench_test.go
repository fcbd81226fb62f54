package keyword

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// corpus generates chat-like synthetic text: words drawn with a Zipfian
// distribution from a vocabulary whose most frequent words are English
// function words (as in real text, where the analyzer drops them) and the
// rest pseudo-words, so posting lists have realistic lengths.
type corpus struct {
	rng   *rand.Rand
	zipf  *rand.Zipf
	vocab []string
}

// functionWords is the head of the vocabulary.
const functionWords = `the i to and a you it of that in is was my for so have this but
with on we be just me are at what not do it's like they all your really that's
too can out about if he she would get one know had oh there`

func newCorpus(seed int64, vocab int) *corpus {
	rng := rand.New(rand.NewSource(seed))
	c := &corpus{rng: rng, zipf: rand.NewZipf(rng, 1.07, 2, uint64(vocab-1))}
	syll := strings.Fields("ka lo mi ne ra tu sa be do fi ga hu jo ke li ma no pe ri so ta vu we ya zo an el in or us ar en")
	c.vocab = strings.Fields(functionWords)
	seen := map[string]bool{}
	for len(c.vocab) < vocab {
		n := 2 + rng.Intn(3)
		var b strings.Builder
		for i := 0; i < n; i++ {
			b.WriteString(syll[rng.Intn(len(syll))])
		}
		if w := b.String(); !seen[w] {
			seen[w] = true
			c.vocab = append(c.vocab, w)
		}
	}
	return c
}

func (c *corpus) sentence(n int) string {
	words := make([]string, n)
	for i := range words {
		words[i] = c.vocab[c.zipf.Uint64()]
	}
	return strings.Join(words, " ")
}

// docs generates n turns of one user in conversations of 20 turns.
func (c *corpus) docs(user string, n int) []Doc {
	start := time.Date(2024, 1, 1, 9, 0, 0, 0, time.UTC)
	out := make([]Doc, n)
	for i := range out {
		conv := fmt.Sprintf("%s-c%d", user, i/20)
		u := "Me: " + c.sentence(8+c.rng.Intn(30))
		a := "Assistant: " + c.sentence(20+c.rng.Intn(100))
		out[i] = Doc{
			ID: fmt.Sprintf("%s:%d", conv, i%20+1), Kind: KindTurn, UserID: user, ConversationID: conv,
			Title: c.sentence(3), Number: i%20 + 1, Text: u + "\n" + a, UserText: u,
			Time: start.Add(time.Duration(i) * 7 * time.Minute),
		}
	}
	return out
}

var big struct {
	once sync.Once
	dir  string
	ix   *Index
	err  error
	took time.Duration
}

// bigIndex builds the 100k-turn index once per test binary run.
func bigIndex(b *testing.B) *Index {
	big.once.Do(func() {
		// MNEME_BENCH_DIR keeps the index between runs (the build is then
		// timed only by the run that made it).
		dir, keep := os.LookupEnv("MNEME_BENCH_DIR")
		if !keep {
			if dir, big.err = os.MkdirTemp("", "keyword-bench-"); big.err != nil {
				return
			}
			big.dir = dir
		}
		if big.ix, big.err = Open(dir); big.err != nil {
			return
		}
		if n, _ := big.ix.Count(); n == 100000 {
			big.took = time.Nanosecond
			return
		}
		docs := newCorpus(1, 30000).docs("u1", 100000)
		start := time.Now()
		big.err = big.ix.Upsert(docs...)
		big.took = time.Since(start)
	})
	if big.err != nil {
		b.Fatal(big.err)
	}
	return big.ix
}

func TestMain(m *testing.M) {
	code := m.Run()
	if big.ix != nil {
		_ = big.ix.Close()
	}
	if big.dir != "" {
		_ = os.RemoveAll(big.dir)
	}
	os.Exit(code)
}

// benchQueries are 200 questions in the pseudo-words of the 100k corpus.
func benchQueries() []string {
	c := newCorpus(2, 30000)
	queries := make([]string, 200)
	for i := range queries {
		queries[i] = "what did " + c.sentence(3+c.rng.Intn(5)) + "?"
	}
	return queries
}

// BenchmarkSearch100k: one user with 100k turns, Limit 25; sub-benchmarks
// with all ranking stages and without the feedback query.
func BenchmarkSearch100k(b *testing.B) {
	ix := bigIndex(b)
	queries := benchQueries()
	ctx := context.Background()
	run := func(name string, p params) {
		b.Run(name, func(b *testing.B) {
			saved := ix.params
			ix.params = p
			defer func() { ix.params = saved }()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := ix.Search(ctx, Query{UserID: "u1", Text: queries[i%len(queries)], Limit: 25}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	p := defaultParams()
	run("all", p)
	p.prfDocs = 0
	run("no-feedback", p)
	if big.took > time.Nanosecond {
		b.Logf("built the 100k index in %v: %.0f docs/s", big.took.Round(time.Millisecond), 100000/big.took.Seconds())
	}
}

func BenchmarkUpsertBatch(b *testing.B) {
	ix, err := Open(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	docs := newCorpus(3, 30000).docs("u1", 1000)
	b.ResetTimer()
	start := time.Now()
	for i := 0; i < b.N; i++ {
		for j := range docs {
			docs[j].ID = fmt.Sprintf("%d-%d", i, j)
		}
		if err := ix.Upsert(docs...); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*len(docs))/time.Since(start).Seconds(), "docs/s")
}

// BenchmarkLease100k: what sharing the index with other processes costs a
// search at 100k turns. "held": the lease is already taken (a burst of
// searches, as typing in the search box); "reopened": every search takes
// the lock and opens the index first, as after the index was idle for
// Linger or another process used it.
func BenchmarkLease100k(b *testing.B) {
	ix := bigIndex(b)
	queries := benchQueries()
	ctx := context.Background()
	idle := func() {
		ix.mu.Lock()
		gen := ix.gen
		ix.mu.Unlock()
		ix.expire(gen)
	}
	for _, reopen := range []bool{false, true} {
		name := "held"
		if reopen {
			name = "reopened"
		}
		b.Run(name, func(b *testing.B) {
			saved := ix.lease
			ix.lease.Linger = time.Hour // only idle() gives the index up
			defer func() { ix.lease = saved }()
			for i := 0; i < b.N; i++ {
				if reopen {
					b.StopTimer()
					idle()
					b.StartTimer()
				}
				if _, err := ix.Search(ctx, Query{UserID: "u1", Text: queries[i%len(queries)], Limit: 25}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
