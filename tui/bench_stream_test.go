package tui

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/tui/transcript"
)

// streamedAnswer is a typical answer with a heading, a list and code.
var streamedAnswer = "## Cancelling a blocked goroutine\n\nUse a **context** and `select` on `ctx.Done()`:\n\n" +
	"```go\nfunc worker(ctx context.Context, ch <-chan int) error {\n\tfor {\n\t\tselect {\n\t\tcase v := <-ch:\n" +
	"\t\t\tuse(v)\n\t\tcase <-ctx.Done():\n\t\t\treturn ctx.Err()\n\t\t}\n\t}\n}\n```\n\n" +
	"- cancel the context when you are done\n- never leak the goroutine\n- close channels from the sender\n\n" +
	"That is all: the goroutine returns as soon as the context is cancelled."

// BenchmarkStreamLongConversation: one streamed token at the end of a
// 5,000-message conversation, and the frame after it, with every token
// rendered (the clock moves by the render interval each time).
func BenchmarkStreamLongConversation(b *testing.B) {
	m := openLong(b, longConfig(b))
	defer m.life.shutdown()
	tokens := regexp.MustCompile(`\S+\s*`).FindAllString(streamedAnswer, -1)
	if strings.Join(tokens, "") != streamedAnswer {
		b.Fatal("tokens do not make up the answer")
	}
	base := len(m.transcript.Entries)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	i := 0
	for b.Loop() {
		if i%len(tokens) == 0 {
			m.transcript.Entries = m.transcript.Entries[:base] // the next answer
		}
		m.transcript.AppendContent(tokens[i%len(tokens)])
		i++
		now = now.Add(transcript.LiveRenderInterval)
		m.transcript.Refresh(now, false)
		_ = m.View()
	}
}
