package fakeollama_test

import (
	"context"
	"errors"
	"io"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
)

// waitLimit bounds every wait so that a broken server fails the test
// instead of hanging it. It is never used for synchronisation.
const waitLimit = 10 * time.Second

func newClient(t *testing.T, srv *fakeollama.Server) *api.Client {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(u, http.DefaultClient)
}

func userChat(model, text string) *api.ChatRequest {
	return &api.ChatRequest{Model: model, Messages: []api.Message{{Role: "user", Content: text}}}
}

// collect runs a chat and returns every response it streamed.
func collect(t *testing.T, c *api.Client, req *api.ChatRequest) ([]api.ChatResponse, error) {
	t.Helper()
	var got []api.ChatResponse
	err := c.Chat(context.Background(), req, func(r api.ChatResponse) error {
		got = append(got, r)
		return nil
	})
	return got, err
}

func receive[T any](t *testing.T, ch <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(waitLimit):
		t.Fatalf("timed out waiting for %s", what)
		panic("unreachable")
	}
}

func contents(rs []api.ChatResponse) []string {
	var out []string
	for _, r := range rs {
		if r.Message.Content != "" {
			out = append(out, r.Message.Content)
		}
	}
	return out
}

func sawDone(rs []api.ChatResponse) bool {
	return slices.ContainsFunc(rs, func(r api.ChatResponse) bool { return r.Done })
}

func TestStreamChunksInOrder(t *testing.T) {
	srv := fakeollama.New(t)
	c := newClient(t, srv)
	srv.Script(fakeollama.Reply{Thinking: []string{"hmm"}, Content: []string{"Hel", "lo", " world"}})

	got, err := collect(t, c, userChat("fake-chat", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 5 {
		t.Fatalf("got %d responses, want 5 (1 thinking + 3 content + done): %+v", len(got), got)
	}
	if got[0].Message.Thinking != "hmm" {
		t.Errorf("first chunk thinking = %q", got[0].Message.Thinking)
	}
	if want := []string{"Hel", "lo", " world"}; !slices.Equal(contents(got), want) {
		t.Errorf("content chunks = %q, want %q", contents(got), want)
	}
	last := got[4]
	if !last.Done || last.DoneReason != "stop" || last.EvalCount == 0 || last.PromptEvalCount == 0 {
		t.Errorf("bad done line: %+v", last)
	}
	for _, r := range got[:4] {
		if r.Done || r.Message.Role != "assistant" || r.Model != "fake-chat" {
			t.Errorf("bad chunk: %+v", r)
		}
	}
	if req := srv.LastRequest(); req.Messages[0].Content != "hi" {
		t.Errorf("recorded request = %+v", req)
	}
	if got := receive(t, srv.Started(), "Started").Messages[0].Content; got != "hi" {
		t.Errorf("Started request content = %q", got)
	}
}

func TestGateStepsStream(t *testing.T) {
	srv := fakeollama.New(t)
	c := newClient(t, srv)
	gate := make(chan struct{})
	srv.Script(fakeollama.Reply{Content: []string{"a", "b", "c"}, Gate: gate})

	chunks := make(chan api.ChatResponse, 10)
	errc := make(chan error, 1)
	go func() {
		errc <- c.Chat(context.Background(), userChat("fake-chat", "x"), func(r api.ChatResponse) error {
			chunks <- r
			return nil
		})
	}()

	if got := receive(t, chunks, "chunk a").Message.Content; got != "a" {
		t.Fatalf("first chunk = %q", got)
	}
	gate <- struct{}{} // release exactly one line
	if got := receive(t, chunks, "chunk b").Message.Content; got != "b" {
		t.Fatalf("second chunk = %q", got)
	}
	close(gate) // release the rest
	if got := receive(t, chunks, "chunk c").Message.Content; got != "c" {
		t.Fatalf("third chunk = %q", got)
	}
	if !receive(t, chunks, "done").Done {
		t.Fatal("want done line")
	}
	if err := receive(t, errc, "Chat to return"); err != nil {
		t.Fatal(err)
	}
}

func TestDefaultReplies(t *testing.T) {
	srv := fakeollama.New(t)
	c := newClient(t, srv)

	got, err := collect(t, c, userChat("fake-chat", "hello there"))
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"You", " said:", " hello", " there"}; !slices.Equal(contents(got), want) {
		t.Errorf("echo = %q, want %q", contents(got), want)
	}

	srv.SetDefault(func(req api.ChatRequest) fakeollama.Reply {
		return fakeollama.Say(strings.ToUpper(req.Messages[0].Content))
	})
	srv.Script(fakeollama.Say("scripted first"))
	for _, want := range []string{"scripted first", "ABC"} {
		got, err := collect(t, c, userChat("fake-chat", "abc"))
		if err != nil {
			t.Fatal(err)
		}
		if s := strings.Join(contents(got), ""); s != want {
			t.Errorf("reply = %q, want %q", s, want)
		}
	}
	if n := len(srv.Requests()); n != 3 {
		t.Errorf("recorded %d requests, want 3", n)
	}
}

func TestNonStreaming(t *testing.T) {
	srv := fakeollama.New(t)
	c := newClient(t, srv)
	srv.Script(fakeollama.Reply{Content: []string{"one ", "two"}, EvalCount: 7})

	req := userChat("fake-chat", "x")
	req.Stream = new(bool)
	got, err := collect(t, c, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Message.Content != "one two" || !got[0].Done || got[0].EvalCount != 7 {
		t.Fatalf("got %+v", got)
	}
}

func TestToolCallsRoundTrip(t *testing.T) {
	srv := fakeollama.New(t)
	c := newClient(t, srv)
	call := fakeollama.ToolCall("get_weather", map[string]any{"city": "Paris", "days": 3})
	call.ID = "call_1"
	srv.Script(fakeollama.Reply{Content: []string{"Let me check."}, ToolCalls: []api.ToolCall{call}})

	req := userChat("fake-chat", "weather?")
	req.Tools = api.Tools{{Type: "function", Function: api.ToolFunction{Name: "get_weather"}}}
	got, err := collect(t, c, req)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || len(got[1].Message.ToolCalls) != 1 || !got[2].Done {
		t.Fatalf("want content, tool-call chunk, done; got %+v", got)
	}
	tc := got[1].Message.ToolCalls[0]
	city, _ := tc.Function.Arguments.Get("city")
	days, _ := tc.Function.Arguments.Get("days")
	if tc.ID != "call_1" || tc.Function.Name != "get_weather" || city != "Paris" || days != float64(3) {
		t.Fatalf("tool call = %+v (city %v, days %v)", tc, city, days)
	}

	// Send the call and its result back; the server records them faithfully.
	req.Messages = append(req.Messages,
		api.Message{Role: "assistant", ToolCalls: []api.ToolCall{tc}},
		api.Message{Role: "tool", ToolName: "get_weather", Content: "sunny"})
	if _, err := collect(t, c, req); err != nil {
		t.Fatal(err)
	}
	rec := srv.LastRequest()
	if len(rec.Tools) != 1 || len(rec.Messages) != 3 {
		t.Fatalf("recorded %+v", rec)
	}
	echoed := rec.Messages[1].ToolCalls[0].Function.Arguments
	if v, _ := echoed.Get("city"); v != "Paris" || rec.Messages[2].ToolName != "get_weather" {
		t.Fatalf("recorded messages %+v", rec.Messages)
	}
}

func TestHTTPErrors(t *testing.T) {
	srv := fakeollama.New(t, fakeollama.WithModels(fakeollama.Model{Name: "plain"}))
	c := newClient(t, srv)

	srv.Script(fakeollama.Reply{Status: http.StatusServiceUnavailable, Error: "server busy"})
	tests := []struct {
		name   string
		req    *api.ChatRequest
		status int
		msg    string
	}{
		{"scripted", userChat("plain", "x"), 503, "server busy"},
		{"unknown model", userChat("nope", "x"), 404, `model "nope" not found, try pulling it first`},
		{"tools unsupported", func() *api.ChatRequest {
			r := userChat("plain", "x")
			r.Tools = api.Tools{{Type: "function", Function: api.ToolFunction{Name: "f"}}}
			return r
		}(), 400, "registry.ollama.ai/library/plain:latest does not support tools"},
		{"thinking unsupported", func() *api.ChatRequest {
			r := userChat("plain", "x")
			r.Think = &api.ThinkValue{Value: true}
			return r
		}(), 400, `"plain" does not support thinking`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := collect(t, c, tt.req)
			var se api.StatusError
			if !errors.As(err, &se) {
				t.Fatalf("err = %v (%T), want api.StatusError", err, err)
			}
			if se.StatusCode != tt.status || se.ErrorMessage != tt.msg {
				t.Fatalf("got %d %q, want %d %q", se.StatusCode, se.ErrorMessage, tt.status, tt.msg)
			}
		})
	}
	if srv.Remaining() != 0 {
		t.Errorf("scripted reply not consumed")
	}
}

func TestStreamError(t *testing.T) {
	srv := fakeollama.New(t)
	c := newClient(t, srv)
	srv.Script(fakeollama.Reply{Content: []string{"par", "tial"}, StreamError: "model runner crashed"})

	got, err := collect(t, c, userChat("fake-chat", "x"))
	if err == nil || err.Error() != "model runner crashed" {
		t.Fatalf("err = %v", err)
	}
	if !slices.Equal(contents(got), []string{"par", "tial"}) || sawDone(got) {
		t.Fatalf("got %+v", got)
	}
}

func TestDropAfter(t *testing.T) {
	srv := fakeollama.New(t)
	c := newClient(t, srv)
	srv.Script(fakeollama.Reply{Content: []string{"a", "b", "c", "d"}, DropAfter: 2})

	// Ollama's client ends quietly when the body is cut short; what matters
	// is that the done line never arrives.
	got, _ := collect(t, c, userChat("fake-chat", "x"))
	if !slices.Equal(contents(got), []string{"a", "b"}) || sawDone(got) {
		t.Fatalf("got %+v", got)
	}
}

func TestHoldCancel(t *testing.T) {
	srv := fakeollama.New(t)
	c := newClient(t, srv)
	srv.Script(fakeollama.Reply{Content: []string{"thinking about it"}, Hold: true})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		errc <- c.Chat(ctx, userChat("fake-chat", "x"), func(api.ChatResponse) error { return nil })
	}()
	receive(t, srv.Started(), "stream start")
	cancel()
	// Depending on where the cancellation hits, Ollama's client returns
	// context.Canceled or (when the body read fails) nil; both are fine.
	if err := receive(t, errc, "Chat to return"); err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("Chat err = %v, want context.Canceled or nil", err)
	}
	receive(t, srv.Cancelled(), "cancellation")
	if n := srv.Cancellations(); n != 1 {
		t.Fatalf("Cancellations = %d, want 1", n)
	}
}

func TestCloseReleasesHeldStream(t *testing.T) {
	srv, err := fakeollama.Start()
	if err != nil {
		t.Fatal(err)
	}
	c := newClient(t, srv)
	srv.Script(fakeollama.Reply{Hold: true})
	errc := make(chan error, 1)
	go func() {
		errc <- c.Chat(context.Background(), userChat("fake-chat", "x"), func(api.ChatResponse) error { return nil })
	}()
	receive(t, srv.Started(), "stream start")
	srv.Close() // must not wait for the client
	receive(t, errc, "Chat to return")
	if n := srv.Cancellations(); n != 0 {
		t.Errorf("Cancellations = %d, want 0 (closing is not a cancellation)", n)
	}
}

func cosine(a, b []float32) float64 {
	var dot float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
	}
	return dot
}

func TestEmbed(t *testing.T) {
	srv := fakeollama.New(t)
	c := newClient(t, srv)
	ctx := context.Background()

	texts := []any{"The cat sat on the mat", "the cat sat on a mat!", "Quarterly revenue grew strongly"}
	resp, err := c.Embed(ctx, &api.EmbedRequest{Model: "fake-embed", Input: texts})
	if err != nil {
		t.Fatal(err)
	}
	if len(resp.Embeddings) != 3 || resp.PromptEvalCount == 0 {
		t.Fatalf("got %+v", resp)
	}
	for i, v := range resp.Embeddings {
		if len(v) != fakeollama.DefaultEmbedDim {
			t.Fatalf("dim = %d", len(v))
		}
		if n := cosine(v, v); math.Abs(n-1) > 1e-5 {
			t.Errorf("vector %d has squared norm %v", i, n)
		}
	}
	e := resp.Embeddings
	if similar, unrelated := cosine(e[0], e[1]), cosine(e[0], e[2]); similar <= unrelated {
		t.Errorf("similar texts score %v <= unrelated %v", similar, unrelated)
	}

	single, err := c.Embed(ctx, &api.EmbedRequest{Model: "fake-embed", Input: "The cat sat on the mat"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(single.Embeddings[0], e[0]) || !slices.Equal(e[0], fakeollama.Embedding("The cat sat on the mat", 64)) {
		t.Error("embedding is not deterministic")
	}

	short, err := c.Embed(ctx, &api.EmbedRequest{Model: "fake-embed", Input: []any{"hello world"}, Dimensions: 4})
	if err != nil {
		t.Fatal(err)
	}
	if v := short.Embeddings[0]; len(v) != 4 || math.Abs(cosine(v, v)-1) > 1e-5 {
		t.Errorf("dimensions=4 gave %v", v)
	}

	srv.FailEmbed(http.StatusInternalServerError, "embedding failed")
	_, err = c.Embed(ctx, &api.EmbedRequest{Model: "fake-embed", Input: "x"})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 500 || se.ErrorMessage != "embedding failed" {
		t.Fatalf("err = %v", err)
	}
	srv.ClearEmbedFailure()
	if _, err := c.Embed(ctx, &api.EmbedRequest{Model: "fake-embed", Input: "x"}); err != nil {
		t.Fatal(err)
	}
	if n := len(srv.EmbedRequests()); n != 5 {
		t.Errorf("recorded %d embed requests, want 5", n)
	}
}

func TestShowAndList(t *testing.T) {
	srv := fakeollama.New(t)
	c := newClient(t, srv)
	ctx := context.Background()

	show, err := c.Show(ctx, &api.ShowRequest{Model: "fake-chat"})
	if err != nil {
		t.Fatal(err)
	}
	caps := make([]string, len(show.Capabilities))
	for i, c := range show.Capabilities {
		caps[i] = string(c)
	}
	if !slices.Equal(caps, []string{"completion", "tools"}) {
		t.Errorf("capabilities = %v", caps)
	}
	if got := show.ModelInfo["llama.context_length"]; got != float64(4096) {
		t.Errorf("context length = %v", got)
	}

	_, err = c.Show(ctx, &api.ShowRequest{Model: "nope"})
	var se api.StatusError
	if !errors.As(err, &se) || se.StatusCode != 404 || se.ErrorMessage != "model 'nope' not found" {
		t.Fatalf("err = %v", err)
	}

	list, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, m := range list.Models {
		names = append(names, m.Name)
	}
	if !slices.Equal(names, []string{"fake-chat:latest", "fake-embed:latest"}) || list.Models[0].Details.Family != "llama" {
		t.Errorf("list = %+v", list.Models)
	}
}

func TestPull(t *testing.T) {
	srv := fakeollama.New(t, fakeollama.WithModels())
	c := newClient(t, srv)
	ctx := context.Background()

	if _, err := collect(t, c, userChat("fake-chat", "x")); err == nil {
		t.Fatal("chat with a model that is not installed succeeded")
	}
	var statuses []string
	err := c.Pull(ctx, &api.PullRequest{Model: "fake-chat"}, func(p api.ProgressResponse) error {
		statuses = append(statuses, p.Status)
		return nil
	})
	if err != nil || len(statuses) < 3 || statuses[len(statuses)-1] != "success" {
		t.Fatalf("pull: err %v, statuses %q", err, statuses)
	}
	if _, err := collect(t, c, userChat("fake-chat", "x")); err != nil {
		t.Fatalf("chat after pull: %v", err)
	}

	err = c.Pull(ctx, &api.PullRequest{Model: "nope"}, func(api.ProgressResponse) error { return nil })
	if err == nil || err.Error() != "pull model manifest: file does not exist" {
		t.Fatalf("pull of unknown model: err = %v", err)
	}
	if got := srv.Pulls(); !slices.Equal(got, []string{"fake-chat", "nope"}) {
		t.Errorf("Pulls = %q", got)
	}
}

func TestVersionAndRoot(t *testing.T) {
	srv := fakeollama.New(t, fakeollama.WithVersion("9.9.9"))
	c := newClient(t, srv)
	ctx := context.Background()

	if err := c.Heartbeat(ctx); err != nil {
		t.Fatal(err)
	}
	if v, err := c.Version(ctx); err != nil || v != "9.9.9" {
		t.Fatalf("version %q, err %v", v, err)
	}
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if string(body) != "Ollama is running" {
		t.Fatalf("GET / = %q", body)
	}
	if !strings.HasPrefix(srv.Host(), "127.0.0.1:") {
		t.Fatalf("Host = %q", srv.Host())
	}
}

// Stall sends not even the headers: a client bounding the wait for them
// gives up, while Hold answers 200 at once and then says nothing.
func TestStallSendsNoHeaders(t *testing.T) {
	srv := fakeollama.New(t)
	client := &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: 300 * time.Millisecond}}
	post := func() (*http.Response, error) {
		return client.Post(srv.URL+"/api/chat", "application/json",
			strings.NewReader(`{"model":"fake-chat","messages":[{"role":"user","content":"x"}]}`))
	}
	srv.Script(fakeollama.Reply{Stall: true})
	if resp, err := post(); err == nil {
		resp.Body.Close()
		t.Fatalf("a stalled answer sent headers: %s", resp.Status)
	}
	receive(t, srv.Cancelled(), "cancellation of the stalled answer")

	srv.Script(fakeollama.Reply{Hold: true})
	resp, err := post()
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("held answer: %v %v", resp, err)
	}
	resp.Body.Close()
	receive(t, srv.Cancelled(), "cancellation of the held answer")
}

func TestFreezeHoldsEveryEndpoint(t *testing.T) {
	srv := fakeollama.New(t)
	srv.Freeze()
	client := &http.Client{Timeout: 300 * time.Millisecond}
	for _, path := range []string{"/api/version", "/api/tags"} {
		if resp, err := client.Get(srv.URL + path); err == nil {
			resp.Body.Close()
			t.Fatalf("a frozen server answered %s: %s", path, resp.Status)
		}
		if got := receive(t, srv.Held(), "the held request"); got != path {
			t.Fatalf("held %q, want %q", got, path)
		}
	}
}
