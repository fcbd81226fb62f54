package fakeollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/ollama/ollama/api"
)

// Script appends replies to the queue consumed, in order, by POST /api/chat
// requests that reach generation (requests rejected up front, e.g. for an
// unknown model, and warm-up requests without messages consume nothing).
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Remaining returns how many scripted replies have not been consumed yet.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// SetDefault sets the function that answers chat requests while the script
// queue is empty; nil restores the default echo reply ("You said: <last
// user message>", streamed word by word). fn is called on the server's
// goroutine with a copy of the request.
func (s *Server) SetDefault(fn func(req api.ChatRequest) Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.fallback = fn
}

// Requests returns deep copies of every chat request received, in order,
// including rejected ones.
func (s *Server) Requests() []api.ChatRequest {
	return decodeAll[api.ChatRequest](&s.mu, &s.chats)
}

// LastRequest returns a deep copy of the most recent chat request, or the
// zero value if there was none.
func (s *Server) LastRequest() api.ChatRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.chats) == 0 {
		return api.ChatRequest{}
	}
	return decodeCopy[api.ChatRequest](s.chats[len(s.chats)-1])
}

// Cancellations returns how many chat answers ended early because the
// client went away (a Hold reply, a gated stream, or a failed write).
func (s *Server) Cancellations() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cancellations
}

// Started receives a copy of each chat request once the first line of its
// answer has been flushed to the client. Answers that flush no line signal
// when they are written (errors, stream=false) or when they start holding
// (Hold). Wait on it instead of sleeping, e.g. before cancelling a held
// stream.
// It is buffered and never blocks the server; unread signals beyond the
// buffer (256) are dropped.
func (s *Server) Started() <-chan api.ChatRequest { return s.started }

// Cancelled receives a copy of each chat request whose answer ended because
// the client went away, i.e. each increment of Cancellations. Buffered like
// Started.
func (s *Server) Cancelled() <-chan api.ChatRequest { return s.cancelled }

// next pops the next scripted reply, or asks the default.
func (s *Server) next(req api.ChatRequest) Reply {
	s.mu.Lock()
	if len(s.queue) > 0 {
		rep := s.queue[0]
		s.queue = s.queue[1:]
		s.mu.Unlock()
		return rep
	}
	fn := s.fallback
	s.mu.Unlock()
	if fn != nil {
		return fn(req)
	}
	return echo(req)
}

// chatCall is the state of one POST /api/chat request.
type chatCall struct {
	s       *Server
	raw     []byte
	req     api.ChatRequest
	started bool
}

// markStarted signals Started once per request.
func (c *chatCall) markStarted() {
	if !c.started {
		c.started = true
		notify(c.s.started, decodeCopy[api.ChatRequest](c.raw))
	}
}

// abandoned records that the client went away mid-answer. Disconnections
// caused by Server.Close are not counted.
func (c *chatCall) abandoned() {
	select {
	case <-c.s.quit:
		return
	default:
	}
	c.s.mu.Lock()
	c.s.cancellations++
	c.s.mu.Unlock()
	notify(c.s.cancelled, decodeCopy[api.ChatRequest](c.raw))
}

// handleChat serves POST /api/chat.
func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	c := &chatCall{s: s}
	raw, ok := readBody(w, r, &c.req)
	if !ok {
		return
	}
	c.raw = raw
	s.mu.Lock()
	s.chats = append(s.chats, raw)
	s.mu.Unlock()
	defer c.markStarted()

	req := c.req
	if status, msg := s.checkChat(req); status != 0 {
		writeError(w, status, msg)
		return
	}
	if len(req.Messages) == 0 { // Ollama loads the model and answers at once
		writeJSON(w, http.StatusOK, api.ChatResponse{
			Model: req.Model, Message: api.Message{Role: "assistant"}, Done: true, DoneReason: "load",
		})
		return
	}

	rep := s.next(decodeCopy[api.ChatRequest](raw))
	switch {
	case rep.Status != 0:
		writeError(w, rep.Status, rep.Error)
	case req.Stream != nil && !*req.Stream:
		c.answerWhole(w, r.Context(), rep)
	case rep.Stall:
		c.markStarted()
		c.hold(r.Context())
	default:
		c.stream(w, r.Context(), rep)
	}
}

// checkChat validates a chat request like Ollama does and returns the
// error status and message, or 0.
func (s *Server) checkChat(req api.ChatRequest) (int, string) {
	if req.Model == "" {
		return http.StatusBadRequest, "model is required"
	}
	m, ok := s.model(req.Model)
	switch {
	case !ok:
		return http.StatusNotFound, fmt.Sprintf("model %q not found, try pulling it first", req.Model)
	case !m.has("completion"):
		return http.StatusBadRequest, fmt.Sprintf("%q does not support chat", req.Model)
	case len(req.Tools) > 0 && !m.has("tools"):
		return http.StatusBadRequest, qualifiedName(m.Name) + " does not support tools"
	case req.Think.Bool() && !m.has("thinking"):
		return http.StatusBadRequest, fmt.Sprintf("%q does not support thinking", req.Model)
	}
	return 0, ""
}

// answerWhole answers a stream=false request with a single JSON object.
func (c *chatCall) answerWhole(w http.ResponseWriter, ctx context.Context, rep Reply) {
	switch {
	case rep.DropAfter > 0:
		drop(w)
	case rep.Hold:
		c.markStarted()
		c.hold(ctx)
	case rep.StreamError != "":
		writeError(w, http.StatusInternalServerError, rep.StreamError)
	default:
		writeJSON(w, http.StatusOK, rep.whole(c.req))
	}
}

// stream answers with an NDJSON stream, flushing every line.
func (c *chatCall) stream(w http.ResponseWriter, ctx context.Context, rep Reply) {
	lw := newLineWriter(w)
	// step waits for the gate before every event after the first line.
	step := func() error {
		if lw.n == 0 || rep.Gate == nil {
			return ctx.Err()
		}
		select {
		case <-rep.Gate:
			return ctx.Err()
		case <-ctx.Done():
			return ctx.Err()
		case <-c.s.quit:
			return errClosed
		}
	}
	send := func(v any) bool {
		err := step()
		if err == nil {
			err = lw.write(v)
		}
		if err != nil {
			c.abandoned()
			return false
		}
		c.markStarted()
		return true
	}

	for _, line := range rep.chunks(c.req.Model) {
		if rep.DropAfter > 0 && lw.n >= rep.DropAfter {
			break
		}
		if !send(line) {
			return
		}
	}
	switch {
	case rep.DropAfter > 0:
		if step() == nil {
			drop(w)
		} else {
			c.abandoned()
		}
	case rep.Hold:
		if lw.n == 0 { // let the client see the headers
			w.WriteHeader(http.StatusOK)
			_ = lw.rc.Flush()
		}
		c.markStarted()
		c.hold(ctx)
	case rep.StreamError != "":
		send(map[string]string{"error": rep.StreamError})
	case rep.RawLine != "":
		send(json.RawMessage(rep.RawLine))
	default:
		send(rep.done(c.req, api.Message{}))
	}
}

// hold blocks until the client goes away or the server closes.
func (c *chatCall) hold(ctx context.Context) {
	select {
	case <-ctx.Done():
		c.abandoned()
	case <-c.s.quit:
	}
}

// errClosed reports that the server is closing.
var errClosed = errors.New("fakeollama: server closed")

// lineWriter writes NDJSON lines, flushing each one so that clients see
// them one by one.
type lineWriter struct {
	w  http.ResponseWriter
	rc *http.ResponseController
	n  int // lines written
}

func newLineWriter(w http.ResponseWriter) *lineWriter {
	w.Header().Set("Content-Type", "application/x-ndjson")
	return &lineWriter{w: w, rc: http.NewResponseController(w)}
}

// write sends v as one line and flushes it.
func (lw *lineWriter) write(v any) error {
	b, ok := v.(json.RawMessage) // sent as it is, JSON or not
	if !ok {
		var err error
		if b, err = json.Marshal(v); err != nil {
			return err
		}
	}
	if _, err := lw.w.Write(append(b, '\n')); err != nil {
		return err
	}
	lw.n++
	return lw.rc.Flush()
}

// drop closes the connection abruptly: the chunked body is never
// terminated, so the client sees an unexpected EOF.
func drop(w http.ResponseWriter) {
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		_ = conn.Close()
	}
}
