package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
)

// latency is when the first byte, the last byte and the end of an answer
// came, from the start of the request (or of the process).
type latency struct{ first, last, end time.Duration }

func (l *latency) add(o latency) { l.first += o.first; l.last += o.last; l.end += o.end }

// rawChat streams one answer straight from POST /api/chat: what a client
// with nothing else to do would see.
func rawChat(b *testing.B, host, prompt string) latency {
	body, err := json.Marshal(api.ChatRequest{Model: fakeollama.DefaultChatModel, Messages: []api.Message{{Role: "user", Content: prompt}}})
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	resp, err := http.Post("http://"+host+"/api/chat", "application/json", bytes.NewReader(body))
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var l latency
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if l.first == 0 {
			l.first = time.Since(start)
		}
		l.last = time.Since(start)
	}
	if err := sc.Err(); err != nil {
		b.Fatal(err)
	}
	l.end = time.Since(start)
	return l
}

// binaryAsk runs `mneme ask` and times its stdout and its exit from the
// moment the process is started.
func binaryAsk(b *testing.B, env []string, prompt string) latency {
	cmd := exec.Command(mnemeBin, "ask", prompt)
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	var l latency
	buf := make([]byte, 4096)
	for {
		n, err := out.Read(buf)
		if n > 0 {
			if l.first == 0 {
				l.first = time.Since(start)
			}
			l.last = time.Since(start)
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	if err := cmd.Wait(); err != nil {
		b.Fatalf("mneme ask: %v\n%s", err, stderr.String())
	}
	l.end = time.Since(start)
	return l
}

// titleWork is how long the fake model takes to write a title.
const titleWork = 200 * time.Millisecond

// BenchmarkAskLatency compares `mneme ask`, run as a binary against the
// fake Ollama on loopback, with a raw streamed /api/chat of the same
// answer: first byte, last byte and exit (ms from the start of each), and
// how long ask lingers after its last byte. Both are measured in the same
// iterations, so the ratios hold on a noisy machine. Run:
//
//	go test -run '^$' -bench BenchmarkAskLatency -benchtime 20x .
func BenchmarkAskLatency(b *testing.B) {
	srv := fakeollama.New(b)
	answer := strings.TrimSpace(strings.Repeat("the quick brown fox jumps over the lazy dog ", 20))
	srv.SetDefault(func(api.ChatRequest) fakeollama.Reply { return fakeollama.Say(answer) })
	// A title costs a model some time to write (185 ms to 1.4 s on the
	// machines where ask was seen lingering); the fake would answer at
	// once. This stands in for the model's work, so that a title call
	// made before exiting shows in ask-exit-after-last-ms.
	srv.SetGenerate(func(api.GenerateRequest) fakeollama.Reply {
		time.Sleep(titleWork)
		return fakeollama.Say(`{"title": "A title"}`)
	})
	home := b.TempDir()
	env := []string{
		"PATH=" + os.Getenv("PATH"), "HOME=" + home,
		"XDG_CONFIG_HOME=" + filepath.Join(home, "config"),
		"MNEME_DATA_DIR=" + filepath.Join(home, "data"),
		"MNEME_USER=bench", "OLLAMA_HOST=" + srv.Host(),
	}
	binaryAsk(b, env, "warm up") // creates the database and the index
	var raw, ask latency
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		raw.add(rawChat(b, srv.Host(), "a question"))
		ask.add(binaryAsk(b, env, "a question"))
	}
	b.StopTimer()
	ms := func(d time.Duration) float64 { return float64(d) / float64(b.N) / float64(time.Millisecond) }
	b.ReportMetric(ms(raw.first), "raw-first-ms")
	b.ReportMetric(ms(raw.last), "raw-last-ms")
	b.ReportMetric(ms(ask.first), "ask-first-ms")
	b.ReportMetric(ms(ask.last), "ask-last-ms")
	b.ReportMetric(ms(ask.end), "ask-exit-ms")
	b.ReportMetric(ms(ask.end-ask.last), "ask-exit-after-last-ms")
	b.ReportMetric(float64(ask.end-ask.last)/float64(ask.last-ask.first), "linger/stream")
	b.ReportMetric(float64(ask.end)/float64(ask.last), "exit/last")
}
