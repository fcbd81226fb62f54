package index

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/locomo"
	"github.com/mneme-dev/mneme/internal/realollama"
	"github.com/mneme-dev/mneme/memory"
)

// Benchmarks for search at scale. One operation of BenchmarkImport is a
// whole import of the corpus (10k or 100k turns) into a fresh store, and
// one of BenchmarkHybridSearch is one query on a corpus built once, so
// they want different -benchtime values: run them apart,
//
//	go test -run '^$' -bench Import -benchtime 1x -timeout 60m ./memory/
//	go test -run '^$' -bench HybridSearch -benchtime 300x -timeout 60m ./memory/
//
// (300 queries or more for stable percentiles). Both use b.Loop, so the
// corpus is built once per -count, not again for a first probing run.
// The text is real dialogue (LoCoMo lines, without speaker names, recombined); the vectors are
// 768-dim unit vectors around 200 topics, as real embeddings cluster.

const (
	benchDim        = 768
	benchTopics     = 200
	turnsPerConv    = 50
	benchUser       = "bench"
	benchEmbedModel = "bench-embed"
)

// benchText holds the dialogue lines and questions the corpus is made of.
type benchText struct {
	lines     []string
	questions []string
}

func loadBenchText(b *testing.B) benchText {
	b.Helper()
	samples, err := locomo.Load(realollama.SharedFile(b, "bench/locomo-dev.json"))
	if err != nil {
		b.Fatal(err)
	}
	// Real chat messages do not start with the speaker's name, so the lines
	// go in without it (the recall evaluation keeps LoCoMo's "Name: text").
	var bt benchText
	for _, sm := range samples {
		for _, ses := range sm.Sessions {
			for _, m := range ses.Messages {
				bt.lines = append(bt.lines, m.Text)
			}
		}
	}
	for _, q := range locomo.Questions(samples) {
		bt.questions = append(bt.questions, q.Question)
	}
	return bt
}

// writeCorpus writes n turns (a user message and an answer each, two
// dialogue lines per message) as import JSON lines.
func writeCorpus(w io.Writer, bt benchText, n int) {
	rng := rand.New(rand.NewPCG(1, 2))
	enc := json.NewEncoder(w)
	start := time.Date(2023, 1, 1, 9, 0, 0, 0, time.UTC)
	pick := func() string {
		return bt.lines[rng.IntN(len(bt.lines))] + " " + bt.lines[rng.IntN(len(bt.lines))]
	}
	for i := range n {
		conv := fmt.Sprintf("c%05d", i/turnsPerConv)
		at := start.Add(time.Duration(i) * 7 * time.Minute)
		for j, role := range []memory.Role{memory.RoleUser, memory.RoleAssistant} {
			enc.Encode(memory.Record{
				Conversation: conv, Title: fmt.Sprintf("Chat %d", i/turnsPerConv), Role: role, Content: pick(),
				Time: at.Add(time.Duration(j) * time.Second).Format(time.RFC3339), Ref: fmt.Sprintf("T%d:%d", i, j),
			})
		}
	}
}

// buildCorpus imports n turns into a fresh store and keyword index.
func buildCorpus(b *testing.B, dir string, bt benchText, n int) (*memory.Store, *Index, time.Duration) {
	b.Helper()
	ctx := context.Background()
	r, w := io.Pipe()
	go func() {
		writeCorpus(w, bt, n)
		w.Close()
	}()
	s, err := memory.Open(ctx, filepath.Join(dir, memory.DBFileName))
	if err != nil {
		b.Fatal(err)
	}
	ix, err := OpenIndex(ctx, s, dir, IndexOptions{})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	st, err := s.Import(ctx, benchUser, r, memory.ImportOptions{})
	if err != nil {
		b.Fatal(err)
	}
	stored := time.Since(start)
	ix.Notify(st.Conversations...)
	if err := ix.Sync(ctx); err != nil {
		b.Fatal(err)
	}
	d := time.Since(start)
	b.Logf("%d turns: messages stored in %s, turns and keyword index in %s", n, stored.Round(time.Millisecond), (d - stored).Round(time.Millisecond))
	return s, ix, d
}

func BenchmarkImport(b *testing.B) {
	bt := loadBenchText(b)
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("turns=%dk", n/1000), func(b *testing.B) {
			var total time.Duration
			var dir string
			imports := 0
			for b.Loop() {
				dir = b.TempDir()
				s, ix, d := buildCorpus(b, dir, bt, n)
				total += d
				imports++
				ix.Close()
				s.Close()
			}
			b.ReportMetric(float64(n*imports)/total.Seconds(), "turns/s")
			b.ReportMetric(dirMiB(dir, memory.DBFileName, memory.DBFileName+"-wal"), "db_MiB")
			b.ReportMetric(dirMiB(filepath.Join(dir, "keyword")), "index_MiB")
			b.ReportMetric(peakRSSMiB(), "peakRSS_MiB")
		})
	}
}

// topicVectors makes clustered unit vectors: topic centroids plus noise.
type topicVectors struct {
	centroids [][]float32
	rng       *rand.Rand
}

func newTopicVectors() *topicVectors {
	tv := &topicVectors{rng: rand.New(rand.NewPCG(3, 4))}
	for range benchTopics {
		tv.centroids = append(tv.centroids, tv.noise(1))
	}
	return tv
}

func (tv *topicVectors) noise(scale float64) []float32 {
	v := make([]float32, benchDim)
	for i := range v {
		v[i] = float32(tv.rng.NormFloat64() * scale)
	}
	return unit(v)
}

// near returns a unit vector near a random topic.
func (tv *topicVectors) near() []float32 {
	c := tv.centroids[tv.rng.IntN(len(tv.centroids))]
	n := tv.noise(1)
	v := make([]float32, benchDim)
	for i := range v {
		v[i] = c[i] + 0.8*n[i]
	}
	return unit(v)
}

func unit(v []float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x * x)
	}
	inv := float32(1 / math.Sqrt(s))
	for i := range v {
		v[i] *= inv
	}
	return v
}

// queryEmbedder answers every embedding request with the next prepared
// query vector, so that query embedding costs nothing in the benchmark.
type queryEmbedder struct {
	mu   sync.Mutex
	vecs [][]float32
	next int
}

func (q *queryEmbedder) Embed(_ context.Context, req *api.EmbedRequest) (*api.EmbedResponse, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	v := q.vecs[q.next%len(q.vecs)]
	q.next++
	return &api.EmbedResponse{Embeddings: [][]float32{v}}, nil
}

func BenchmarkHybridSearch(b *testing.B) {
	bt := loadBenchText(b)
	for _, n := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("turns=%dk", n/1000), func(b *testing.B) {
			ctx := context.Background()
			dir := b.TempDir()
			s, ix, _ := buildCorpus(b, dir, bt, n)
			defer s.Close()
			defer ix.Close()

			// Embeddings for every turn, as if an embedding model had run.
			tv := newTopicVectors()
			all := map[string][]float32{}
			err := s.AllTurns(ctx, 2000, func(turns []memory.Turn) error {
				sets := make([]memory.EmbeddingSet, len(turns))
				for i, t := range turns {
					v := tv.near()
					all[t.ID] = v
					sets[i] = memory.EmbeddingSet{OwnerID: t.ID, Kind: memory.OwnerTurn, UserID: benchUser, Model: benchEmbedModel,
						Hash: t.Hash, Chunks: []string{t.Text}, Vectors: [][]float32{v}}
				}
				return s.SaveEmbeddings(ctx, sets...)
			})
			if err != nil {
				b.Fatal(err)
			}
			qe := &queryEmbedder{}
			for range 64 {
				qe.vecs = append(qe.vecs, tv.near())
			}
			ix.SetEmbedding(qe, EmbedModel{Name: benchEmbedModel, ContextLength: 8192})
			if err := ix.Preload(ctx, benchUser); err != nil {
				b.Fatal(err)
			}
			recall := vectorRecall(b, ix, qe, all)

			var times []time.Duration
			for b.Loop() {
				q := bt.questions[len(times)%len(bt.questions)]
				t0 := time.Now()
				res, err := ix.Search(ctx, SearchQuery{UserID: benchUser, Text: q})
				times = append(times, time.Since(t0))
				if err != nil || len(res) == 0 {
					b.Fatalf("search: %d results, %v", len(res), err)
				}
			}
			slices.Sort(times)
			b.ReportMetric(recall, "vec_recall@10")
			b.ReportMetric(ms(times[len(times)/2]), "p50_ms")
			b.ReportMetric(ms(times[len(times)*95/100]), "p95_ms")
			b.ReportMetric(dirMiB(dir, memory.DBFileName, memory.DBFileName+"-wal"), "db_MiB")
			b.ReportMetric(dirMiB(filepath.Join(dir, "keyword")), "index_MiB")
			b.ReportMetric(peakRSSMiB(), "peakRSS_MiB")
		})
	}
}

// vectorRecall compares the vector ranking's top 10 with exact search over
// every stored vector, for the prepared queries.
func vectorRecall(b *testing.B, ix *Index, qe *queryEmbedder, all map[string][]float32) float64 {
	b.Helper()
	var hits, total int
	for i := range len(qe.vecs) {
		qe.mu.Lock()
		q := qe.vecs[qe.next%len(qe.vecs)]
		qe.mu.Unlock()
		// A text of its own for each query: the index embeds a text once
		// in a row, and the same text twice would reuse the vector before.
		got, err := ix.vectorSearch(context.Background(), SearchQuery{UserID: benchUser, Text: fmt.Sprintf("query %d", i)})
		if err != nil {
			b.Fatal(err)
		}
		type scored struct {
			id  string
			sim float64
		}
		exact := make([]scored, 0, len(all))
		for id, v := range all {
			var dot float64
			for i := range v {
				dot += float64(v[i] * q[i])
			}
			exact = append(exact, scored{id, dot})
		}
		slices.SortFunc(exact, func(a, b scored) int {
			if a.sim > b.sim {
				return -1
			}
			if a.sim < b.sim {
				return 1
			}
			return strings.Compare(a.id, b.id)
		})
		want := map[string]bool{}
		for _, e := range exact[:10] {
			want[e.id] = true
		}
		for _, h := range got[:min(10, len(got))] {
			if want[h.id] {
				hits++
			}
		}
		total += 10
	}
	return float64(hits) / float64(total)
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// dirMiB is the size of the named files in dir, or of all of dir.
func dirMiB(dir string, names ...string) float64 {
	var n int64
	if len(names) > 0 {
		for _, name := range names {
			if fi, err := os.Stat(filepath.Join(dir, name)); err == nil {
				n += fi.Size()
			}
		}
	} else {
		filepath.Walk(dir, func(_ string, fi os.FileInfo, err error) error {
			if err == nil && !fi.IsDir() {
				n += fi.Size()
			}
			return nil
		})
	}
	return float64(n) / (1 << 20)
}

// peakRSSMiB is the process's peak resident set (Linux; 0 elsewhere).
func peakRSSMiB() float64 {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(l, "VmHWM:") {
			var kb float64
			fmt.Sscanf(strings.TrimSpace(strings.TrimPrefix(l, "VmHWM:")), "%f", &kb)
			return kb / 1024
		}
	}
	return 0
}
