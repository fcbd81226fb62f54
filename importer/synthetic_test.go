package importer

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/memory"
)

// writeSynthetic writes a ChatGPT conversations.json of convs
// conversations of perConv messages each (alternating user and assistant,
// about 400 bytes of text a message), every conversation with one
// regenerated answer on an abandoned branch.
func writeSynthetic(w io.Writer, convs, perConv int) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("[")
	text := "We talked about the trip, the budget, the trains and the food; the plan changes every week but the museum on Tuesday stays. "
	for c := range convs {
		if c > 0 {
			bw.WriteString(",")
		}
		t0 := 1600000000 + c*60 // a minute apart: 155,000 conversations stay in the past
		fmt.Fprintf(bw, `{"id":"conv-%d","title":"Synthetic conversation %d","create_time":%d,"is_archived":false,"current_node":"m%d","mapping":{"root":{"id":"root","message":null,"parent":null,"children":["m0"]}`,
			c, c, t0, perConv-1)
		for i := range perConv {
			parent := "root"
			if i > 0 {
				parent = fmt.Sprintf("m%d", i-1)
			}
			children := fmt.Sprintf(`["m%d"]`, i+1)
			if i == perConv-1 {
				children = "[]"
			}
			if i == 0 {
				children = `["m1","alt"]`
			}
			role := "user"
			if i%2 == 1 {
				role = "assistant"
			}
			fmt.Fprintf(bw, `,"m%d":{"id":"m%d","parent":"%s","children":%s,"message":{"id":"m%d","author":{"role":"%s"},"create_time":%d.5,"content":{"content_type":"text","parts":["message %d of conversation %d. %s%s%s"]},"metadata":{"model_slug":"gpt-4o"}}}`,
				i, i, parent, children, i, role, t0+i, i, c, text, text, text)
		}
		fmt.Fprintf(bw, `,"alt":{"id":"alt","parent":"m0","children":[],"message":{"id":"alt","author":{"role":"assistant"},"create_time":%d,"content":{"content_type":"text","parts":["an abandoned answer"]},"metadata":{}}}}}`, t0+1)
	}
	bw.WriteString("]\n")
	return bw.Flush()
}

// TestWriteSyntheticExport writes the synthetic export the README's figures
// come from, when MNEME_SYNTHETIC_EXPORT names where; MNEME_SYNTHETIC_CONVERSATIONS
// sets its size (5,000 conversations by default, 33 MB; 155,000 make 1 GB):
//
//	MNEME_SYNTHETIC_EXPORT=/tmp/big.json go test -run TestWriteSyntheticExport ./importer
func TestWriteSyntheticExport(t *testing.T) {
	name := os.Getenv("MNEME_SYNTHETIC_EXPORT")
	if name == "" {
		t.Skip("MNEME_SYNTHETIC_EXPORT is not set")
	}
	convs := 5000
	if v := os.Getenv("MNEME_SYNTHETIC_CONVERSATIONS"); v != "" {
		var err error
		if convs, err = strconv.Atoi(v); err != nil || convs < 1 {
			t.Fatalf("MNEME_SYNTHETIC_CONVERSATIONS=%q: want a whole number", v)
		}
	}
	f, err := os.Create(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := writeSynthetic(f, convs, 10); err != nil {
		t.Fatal(err)
	}
}

// BenchmarkChatGPTImport50k imports 5,000 conversations of 10 messages
// (50,000 messages) into a fresh store, and reports the process's peak RSS.
//
//	go test -run '^$' -bench ChatGPTImport50k -benchtime 1x ./importer
func BenchmarkChatGPTImport50k(b *testing.B) {
	dir := b.TempDir()
	name := filepath.Join(dir, "conversations.json")
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	if err := writeSynthetic(f, 5000, 10); err != nil {
		b.Fatal(err)
	}
	f.Close()
	for i := range b.N {
		s, err := memory.Open(context.Background(), filepath.Join(dir, fmt.Sprint(i), memory.DBFileName))
		if err != nil {
			b.Fatal(err)
		}
		in, err := Open(name, "")
		if err != nil {
			b.Fatal(err)
		}
		r, _ := NewReader(in)
		start := time.Now()
		sum, err := Run(context.Background(), s, "bench", r, Options{})
		if err != nil || sum.Stats.Imported != 50000 {
			b.Fatalf("%+v %v", sum, err)
		}
		b.ReportMetric(float64(time.Since(start).Milliseconds()), "ms/import")
		in.Close()
		s.Close()
	}
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MiB") // Linux: KiB
	}
}
