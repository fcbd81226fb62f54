package keyword

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/locomo"
)

// realDocs returns the LoCoMo dev turns as one user's documents, copied
// copies times (each copy in conversations of its own, a year later than
// the one before), and the dev questions.
func realDocs(b *testing.B, user string, copies int) ([]Doc, []string) {
	samples, err := locomo.Load(locomo.DevFile(b))
	if err != nil {
		b.Fatal(err)
	}
	turns := locomo.Turns(locomo.ImportLines(samples))
	docs := make([]Doc, 0, len(turns)*copies)
	for c := 0; c < copies; c++ {
		for _, tr := range turns {
			conv := fmt.Sprintf("%s-%d", tr.Conversation, c)
			docs = append(docs, Doc{
				ID: fmt.Sprintf("%s:%d", conv, tr.Number), Kind: KindTurn, UserID: user, ConversationID: conv,
				Title: tr.Title, Number: tr.Number, Text: tr.Text, UserText: tr.UserText, Time: tr.Time.AddDate(c, 0, 0),
			})
		}
	}
	var qs []string
	for _, q := range locomo.Questions(samples) {
		qs = append(qs, q.Question)
	}
	return docs, qs
}

// BenchmarkSearchReal: search speed on real chat text with real questions:
// the LoCoMo dev turns copied to ~100k turns of one user, the 757 dev
// questions in turn, Limit 25. Reports p50 and p95 latency besides ns/op.
//
//	go test ./memory/keyword -run XXX -bench SearchReal -benchtime 1000x
//
// MNEME_BENCH_COPIES=n makes n copies instead.
func BenchmarkSearchReal(b *testing.B) {
	copies := 94 // 94 × 1065 turns = 100,110
	if n, err := strconv.Atoi(os.Getenv("MNEME_BENCH_COPIES")); err == nil && n > 0 {
		copies = n
	}
	docs, queries := realDocs(b, "u1", copies)
	ix, err := Open(filepath.Join(b.TempDir(), "kw"))
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	start := time.Now()
	if err := ix.Upsert(docs...); err != nil {
		b.Fatal(err)
	}
	b.Logf("indexed %d real turns in %v (%.0f turns/s)", len(docs), time.Since(start).Round(time.Millisecond), float64(len(docs))/time.Since(start).Seconds())
	ctx := context.Background()
	run := func(name string, p params) {
		b.Run(name, func(b *testing.B) {
			saved := ix.params
			ix.params = p
			defer func() { ix.params = saved }()
			took := make([]time.Duration, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				if _, err := ix.Search(ctx, Query{UserID: "u1", Text: queries[i%len(queries)], Limit: 25}); err != nil {
					b.Fatal(err)
				}
				took[i] = time.Since(t0)
			}
			b.StopTimer()
			sort.Slice(took, func(i, j int) bool { return took[i] < took[j] })
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
			b.ReportMetric(float64(took[len(took)*95/100].Microseconds())/1000, "p95-ms")
		})
	}
	p := defaultParams()
	run("all", p)
	p.prfDocs = 0
	run("no-feedback", p)
}
