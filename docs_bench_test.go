package main

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// BenchmarkDocsAdd1000Markdown times `mneme docs add` through the binary
// on 1,000 Markdown files of about 10 KB (10 MB in all), offline: keyword
// indexing only, as the speed goal asks (≤ 60 s on the 2-core machine).
// One operation is the whole first add into an empty data dir; the re-add
// of the same unchanged files is reported beside it.
//
//	go test -run '^$' -bench DocsAdd -benchtime 1x .
func BenchmarkDocsAdd1000Markdown(b *testing.B) {
	src := b.TempDir()
	writeMarkdownCorpus(b, src, 1000, 10_000)
	var first, again time.Duration
	for b.Loop() {
		home := b.TempDir()
		env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
			"MNEME_DATA_DIR=" + filepath.Join(home, "data"), "MNEME_USER=bench", "OLLAMA_HOST=127.0.0.1:1"}
		run := func() time.Duration {
			cmd := exec.Command(mnemeBin, "docs", "add", src)
			cmd.Env = env
			start := time.Now()
			out, err := cmd.CombinedOutput()
			took := time.Since(start)
			if err != nil || !strings.Contains(string(out), "1000 ") {
				b.Fatalf("docs add: %v\n%s", err, tail(string(out)))
			}
			return took
		}
		first += run()
		again += run()
	}
	n := float64(b.N)
	b.ReportMetric(first.Seconds()/n, "add_s")
	b.ReportMetric(1000/(first.Seconds()/n), "files/s")
	b.ReportMetric(again.Seconds()/n, "readd_unchanged_s")
}

func tail(s string) string { return s[max(0, len(s)-2000):] }

// writeMarkdownCorpus writes n Markdown files of about size bytes: a title,
// sections with headings, and paragraphs of words drawn from a Zipf
// distribution over a 20,000-word vocabulary, as prose repeats its words.
func writeMarkdownCorpus(b *testing.B, dir string, n, size int) {
	rng := rand.New(rand.NewPCG(7, 8))
	vocab := make([]string, 20_000)
	for i := range vocab {
		var w strings.Builder
		for range 3 + rng.IntN(7) {
			w.WriteByte(byte('a' + rng.IntN(26)))
		}
		vocab[i] = w.String()
	}
	zipf := rand.NewZipf(rng, 1.1, 1, uint64(len(vocab)-1))
	sentence := func() string {
		words := make([]string, 8+rng.IntN(16))
		for i := range words {
			words[i] = vocab[zipf.Uint64()]
		}
		return strings.ToUpper(words[0][:1]) + strings.Join(words, " ")[1:] + "."
	}
	for f := range n {
		var doc strings.Builder
		fmt.Fprintf(&doc, "# Notes %d: %s\n\n", f, sentence())
		for s := 0; doc.Len() < size; s++ {
			fmt.Fprintf(&doc, "## Section %d\n\n", s+1)
			for range 3 {
				for range 4 {
					doc.WriteString(sentence() + " ")
				}
				doc.WriteString("\n\n")
			}
		}
		sub := filepath.Join(dir, fmt.Sprintf("folder-%02d", f%20))
		if err := os.MkdirAll(sub, 0o700); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("note-%04d.md", f)), []byte(doc.String()), 0o600); err != nil {
			b.Fatal(err)
		}
	}
}
