package index

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/docstore"
)

// BenchmarkSearchDocs is one `docs search` on 10k chunks (500 documents of
// 20 passages of ~200 words of real dialogue), keyword and vector rankings
// fused, as the speed goal asks (p50 ≤ 20 ms):
//
//	go test -run '^$' -bench SearchDocs -benchtime 300x ./memory/index/
func BenchmarkSearchDocs(b *testing.B) {
	bt := loadBenchText(b)
	ctx := context.Background()
	dir := b.TempDir()
	s, err := memory.Open(ctx, filepath.Join(dir, memory.DBFileName))
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	ix, err := OpenIndex(ctx, s, dir, IndexOptions{})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	rng := rand.New(rand.NewPCG(5, 6))
	const docs, perDoc = 500, 20
	for d := range docs {
		n := docstore.New{UserID: benchUser, Path: fmt.Sprintf("/bench/doc-%03d.md", d), Title: fmt.Sprintf("Document %d", d), Type: "markdown", Size: 1}
		for c := range perDoc {
			var words []string
			for len(words) < 200 {
				words = append(words, strings.Fields(bt.lines[rng.IntN(len(bt.lines))])...)
			}
			n.Pieces = append(n.Pieces, docstore.Piece{Heading: fmt.Sprintf("Part %d", c), Text: strings.Join(words, " ")})
		}
		n.Hash = fmt.Sprint(d)
		if _, _, err := ix.Docs().Put(ctx, n); err != nil {
			b.Fatal(err)
		}
	}
	if err := ix.IndexDocuments(ctx); err != nil {
		b.Fatal(err)
	}
	// Vectors for every chunk, as if an embedding model had run.
	tv := newTopicVectors()
	for {
		list, err := ix.Docs().ChunksNeedingEmbedding(ctx, benchEmbedModel, "", 1000)
		if err != nil {
			b.Fatal(err)
		}
		if len(list) == 0 {
			break
		}
		sets := make([]memory.EmbeddingSet, len(list))
		for i, c := range list {
			sets[i] = memory.EmbeddingSet{OwnerID: c.ID, Kind: ownerChunk, UserID: benchUser, Model: benchEmbedModel,
				Hash: c.Hash, Chunks: []string{c.Text}, Vectors: [][]float32{tv.near()}}
		}
		if err := s.SaveEmbeddings(ctx, sets...); err != nil {
			b.Fatal(err)
		}
	}
	qe := &queryEmbedder{}
	for range 64 {
		qe.vecs = append(qe.vecs, tv.near())
	}
	ix.SetEmbedding(qe, EmbedModel{Name: benchEmbedModel, ContextLength: 8192})
	if _, err := ix.SearchDocs(ctx, DocQuery{UserID: benchUser, Text: "warm up"}); err != nil {
		b.Fatal(err)
	}
	var times []time.Duration
	for b.Loop() {
		q := bt.questions[len(times)%len(bt.questions)]
		t0 := time.Now()
		hits, err := ix.SearchDocs(ctx, DocQuery{UserID: benchUser, Text: q})
		times = append(times, time.Since(t0))
		if err != nil || len(hits) == 0 {
			b.Fatalf("search: %d hits, %v", len(hits), err)
		}
	}
	slices.Sort(times)
	b.ReportMetric(ms(times[len(times)/2]), "p50_ms")
	b.ReportMetric(ms(times[len(times)*95/100]), "p95_ms")
}
