// Command fakeollama runs the fake Ollama server for manual demos. Every
// chat gets a markdown answer streamed slowly enough to watch:
//
//	go run ./internal/fakeollama/cmd/fakeollama -addr 127.0.0.1:11435
//	OLLAMA_HOST=127.0.0.1:11435 mneme
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:11435", "address to listen on")
	delay := flag.Duration("delay", 60*time.Millisecond, "pause between streamed words")
	flag.Parse()

	srv, err := fakeollama.Start(fakeollama.WithAddr(*addr))
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	// One ticker paces every stream: each word after the first waits for a tick.
	pace := make(chan struct{})
	go func() {
		for range time.Tick(*delay) {
			pace <- struct{}{}
		}
	}()
	srv.SetDefault(func(req api.ChatRequest) fakeollama.Reply {
		question := ""
		for _, m := range req.Messages {
			if m.Role == "user" {
				question = m.Content
			}
		}
		log.Printf("chat %s: %q", req.Model, question)
		reply := fakeollama.Say(answer(question))
		reply.Gate = pace
		return reply
	})

	fmt.Printf("fake Ollama listening on %s\nexport OLLAMA_HOST=%s\n", srv.URL, srv.Host())
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	<-ctx.Done()
}

// answer is the demo reply: a little markdown that exercises rendering.
func answer(question string) string {
	return fmt.Sprintf(`## A fake answer

You asked: *%s*

This reply comes from **fakeollama**, streamed word by word:

- it is deterministic,
- it needs no model,
- it renders `+"`inline code`"+` and blocks:

`+"```go"+`
fmt.Println("hello from fakeollama")
`+"```"+`

> Done. Ask me anything else.
`, question)
}
