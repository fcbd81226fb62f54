package fakeollama

import (
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ollama/ollama/api"
)

// generator answers POST /api/generate. Generation requests never consume
// the chat script: they have their own answering function.
type generator struct {
	mu   sync.Mutex
	fn   func(req api.GenerateRequest) Reply
	reqs [][]byte
}

// SetGenerate sets the function that answers POST /api/generate; nil
// restores the default, "You said: <prompt>". Of the Reply, Content is
// the response text and Status/Error an HTTP error; the rest is ignored.
func (s *Server) SetGenerate(fn func(req api.GenerateRequest) Reply) {
	s.gen.mu.Lock()
	defer s.gen.mu.Unlock()
	s.gen.fn = fn
}

// GenerateRequests returns deep copies of every generate request received, in order.
func (s *Server) GenerateRequests() []api.GenerateRequest {
	return decodeAll[api.GenerateRequest](&s.gen.mu, &s.gen.reqs)
}

// handleGenerate serves POST /api/generate: one line when stream=false,
// else the response line and the done line.
func (s *Server) handleGenerate(w http.ResponseWriter, r *http.Request) {
	var req api.GenerateRequest
	raw, ok := readBody(w, r, &req)
	if !ok {
		return
	}
	s.gen.mu.Lock()
	s.gen.reqs = append(s.gen.reqs, raw)
	fn := s.gen.fn
	s.gen.mu.Unlock()
	if _, ok := s.model(req.Model); !ok {
		writeError(w, http.StatusNotFound, "model '"+req.Model+"' not found")
		return
	}
	rep := Say("You said: " + req.Prompt)
	if fn != nil {
		rep = fn(decodeCopy[api.GenerateRequest](raw))
	}
	if rep.Status != 0 {
		writeError(w, rep.Status, rep.Error)
		return
	}
	text := strings.Join(rep.Content, "")
	done := api.GenerateResponse{
		Model: req.Model, CreatedAt: time.Now().UTC(), Done: true, DoneReason: "stop",
		Metrics: api.Metrics{PromptEvalCount: max(len(strings.Fields(req.Prompt)), 1), EvalCount: max(len(strings.Fields(text)), 1)},
	}
	if req.Stream != nil && !*req.Stream {
		done.Response = text
		writeJSON(w, http.StatusOK, done)
		return
	}
	lw := newLineWriter(w)
	if lw.write(api.GenerateResponse{Model: req.Model, CreatedAt: done.CreatedAt, Response: text}) == nil {
		_ = lw.write(done)
	}
}
