package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/locomo"
	"github.com/mneme-dev/mneme/memory"
)

// BenchmarkCommands100k times commands a person runs, through the binary,
// from process start to exit, on a data dir of 100k turns (200k messages)
// imported once with `mneme import`, Ollama unreachable (offline):
//
//	go test -run '^$' -bench Commands100k -benchtime 20x -timeout 30m .
//
// The corpus is built under MNEME_BENCH_DIR when set and kept there for
// later runs (else in a temporary dir). MNEME_BENCH_BINS=old:new times
// other binaries instead of this tree's, interleaved in the same run, so
// that their ratio holds on a busy machine. Each sub-benchmark reports the
// median (p50_ms) and the 90th percentile; one --batch run answers
// batchQueries queries, reported per query.
func BenchmarkCommands100k(b *testing.B) {
	home, bins, env, questions := benchSetup(b, 100_000)
	batch := filepath.Join(home, "batch.jsonl")
	const batchQueries = 100
	writeBatch(b, batch, questions[:batchQueries])

	cmds := []struct {
		name string
		args []string
		per  int // divide the time by this many answers
	}{
		{"help", []string{"--help"}, 1},
		{"conversations", []string{"conversations"}, 1},
		{"search", []string{"search", questions[0]}, 1},
		{"search-batch", []string{"search", "--batch", batch}, batchQueries},
	}
	for _, c := range cmds {
		b.Run(c.name, func(b *testing.B) {
			times := make([][]time.Duration, len(bins))
			for _, bin := range bins { // warm the page cache
				runTimed(b, bin, env, c.args)
			}
			for b.Loop() {
				for i, bin := range bins {
					times[i] = append(times[i], runTimed(b, bin, env, c.args)/time.Duration(c.per))
				}
			}
			reportPercentiles(b, "", times)
		})
	}
}

// benchSetup returns the home of a data dir of turns turns (built once
// under MNEME_BENCH_DIR when set, else in a temporary dir), the binaries
// to time (this tree's, or MNEME_BENCH_BINS=old:new), their environment
// (Ollama unreachable) and the LoCoMo questions to search for.
func benchSetup(b *testing.B, turns int) (home string, bins, env, questions []string) {
	dir := os.Getenv("MNEME_BENCH_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	bins = []string{mnemeBin}
	if v := os.Getenv("MNEME_BENCH_BINS"); v != "" {
		bins = strings.Split(v, ":")
	}
	home = filepath.Join(dir, fmt.Sprintf("home-%dk", turns/1000))
	env = []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"MNEME_DATA_DIR=" + filepath.Join(home, "data"),
		"MNEME_USER=bench",
		"OLLAMA_HOST=127.0.0.1:9", // discard: nothing listens, offline
		"MNEME_OLLAMA_REGISTRY=http://127.0.0.1:9",
		"MNEME_MEMORY_REVIEW=off",
	}
	questions = benchCorpus(b, bins[0], env, home, turns)
	return home, bins, env, questions
}

// reportPercentiles reports the median (prefix+"p50_ms") and the 90th
// percentile of each binary's times, suffixed by the binary's number when
// there are several.
func reportPercentiles(b *testing.B, prefix string, times [][]time.Duration) {
	for i, ts := range times {
		slices.Sort(ts)
		suffix := ""
		if len(times) > 1 {
			suffix = fmt.Sprintf("_bin%d", i)
		}
		b.ReportMetric(float64(ts[len(ts)/2].Microseconds())/1000, prefix+"p50_ms"+suffix)
		b.ReportMetric(float64(ts[len(ts)*9/10].Microseconds())/1000, prefix+"p90_ms"+suffix)
	}
}

// runTimed runs the binary once and returns its wall time.
func runTimed(b *testing.B, bin string, env, args []string) time.Duration {
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	start := time.Now()
	out, err := cmd.CombinedOutput()
	d := time.Since(start)
	if err != nil {
		b.Fatalf("%s %v: %v\n%s", bin, args, err, out)
	}
	return d
}

// benchCorpus imports turns turns of real dialogue (LoCoMo lines
// recombined, as in memory/index's benchmarks) into home's data dir, once,
// and returns the LoCoMo questions to search for.
func benchCorpus(b *testing.B, bin string, env []string, home string, turns int) []string {
	b.Helper()
	lines, questions := benchDialogue(b)
	done := filepath.Join(home, "imported")
	if _, err := os.Stat(done); err == nil {
		return questions
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		b.Fatal(err)
	}
	name := filepath.Join(home, "corpus.jsonl")
	writeBenchCorpus(b, name, lines, turns)
	b.Logf("importing %d turns into %s", turns, home)
	t0 := time.Now()
	cmd := exec.Command(bin, "import", name)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("import: %v\n%s", err, out)
	}
	b.Logf("imported in %s", time.Since(t0).Round(time.Second))
	os.Remove(name)
	if err := os.WriteFile(done, nil, 0o600); err != nil {
		b.Fatal(err)
	}
	return questions
}

// benchDialogue is LoCoMo's dialogue lines, which the corpus recombines,
// and its questions.
func benchDialogue(b *testing.B) (lines, questions []string) {
	b.Helper()
	samples, err := locomo.Load(locomo.DevFile(b))
	if err != nil {
		b.Fatal(err)
	}
	for _, sm := range samples {
		for _, ses := range sm.Sessions {
			for _, m := range ses.Messages {
				lines = append(lines, m.Text)
			}
		}
	}
	for _, q := range locomo.Questions(samples) {
		questions = append(questions, q.Question)
	}
	return lines, questions
}

// BenchmarkImport100k times `mneme import` of 100k turns (200k messages in
// 1k conversations) into a fresh data dir, through the binary, from
// process start to exit: messages stored, turns derived and keyword
// indexed, Ollama unreachable (so nothing is embedded). It reports turns
// a second (the median run) for each binary of MNEME_BENCH_BINS, run in
// turn so that their ratio holds on a busy machine:
//
//	go test -run '^$' -bench Import100k -benchtime 3x -timeout 60m .
func BenchmarkImport100k(b *testing.B) {
	const turns = 100_000
	bins := []string{mnemeBin}
	if v := os.Getenv("MNEME_BENCH_BINS"); v != "" {
		bins = strings.Split(v, ":")
	}
	dir := b.TempDir()
	lines, _ := benchDialogue(b)
	name := filepath.Join(dir, "corpus.jsonl")
	writeBenchCorpus(b, name, lines, turns)
	times := make([][]time.Duration, len(bins))
	run := 0
	for b.Loop() {
		for i, bin := range bins {
			run++
			home := filepath.Join(dir, fmt.Sprintf("home%d", run))
			env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
				"MNEME_DATA_DIR=" + filepath.Join(home, "data"), "MNEME_USER=bench", "OLLAMA_HOST=127.0.0.1:9",
				"MNEME_OLLAMA_REGISTRY=http://127.0.0.1:9", "MNEME_MEMORY_REVIEW=off"}
			times[i] = append(times[i], runTimed(b, bin, env, []string{"import", name}))
			os.RemoveAll(home)
		}
	}
	for i, ts := range times {
		slices.Sort(ts)
		suffix := ""
		if len(bins) > 1 {
			suffix = fmt.Sprintf("_bin%d", i)
		}
		b.ReportMetric(turns/ts[len(ts)/2].Seconds(), "turns/s"+suffix)
	}
}

// writeBenchCorpus writes turns turns (a user message and an answer, two
// dialogue lines each) of conversations of 100 turns as import JSON lines.
func writeBenchCorpus(b *testing.B, name string, lines []string, turns int) {
	b.Helper()
	f, err := os.Create(name)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	rng := rand.New(rand.NewPCG(1, 2))
	pick := func() string { return lines[rng.IntN(len(lines))] + " " + lines[rng.IntN(len(lines))] }
	start := time.Date(2023, 1, 1, 9, 0, 0, 0, time.UTC)
	const perConv = 100 // 1k conversations at 100k turns
	for i := range turns {
		at := start.Add(time.Duration(i) * 7 * time.Minute)
		for j, role := range []memory.Role{memory.RoleUser, memory.RoleAssistant} {
			if err := enc.Encode(memory.Record{
				Conversation: fmt.Sprintf("c%05d", i/perConv), Title: fmt.Sprintf("Chat %d", i/perConv), Role: role, Content: pick(),
				Time: at.Add(time.Duration(j) * time.Second).Format(time.RFC3339), Ref: fmt.Sprintf("T%d:%d", i, j),
			}); err != nil {
				b.Fatal(err)
			}
		}
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	if err := f.Close(); err != nil {
		b.Fatal(err)
	}
}

// writeBatch writes a --batch file of the questions.
func writeBatch(b *testing.B, name string, questions []string) {
	var sb strings.Builder
	for i, q := range questions {
		line, _ := json.Marshal(map[string]any{"id": i, "query": q})
		sb.Write(line)
		sb.WriteByte('\n')
	}
	if err := os.WriteFile(name, []byte(sb.String()), 0o600); err != nil {
		b.Fatal(err)
	}
}
