// Package fakeollama is a scripted, in-process fake of the Ollama HTTP API
// for fast, deterministic tests.
//
// It speaks Ollama's wire format (the JSON types of
// github.com/ollama/ollama/api) on a loopback port, so it can stand in for a
// real server both for in-process clients and for subprocesses that are
// pointed at it with OLLAMA_HOST=<Server.Host()>.
//
// Chat replies are scripted with [Server.Script] and consumed in order by
// POST /api/chat; every request is recorded. Streams can be stepped with a
// gate channel, broken mid-stream, or held open to test cancellation, all
// without sleeps:
//
//	srv := fakeollama.New(t)
//	srv.Script(fakeollama.Say("Hello there"))
//	t.Setenv("OLLAMA_HOST", srv.Host())
//	// ... run the code under test ...
//	got := srv.LastRequest()
//
// Implemented endpoints: GET|HEAD /, GET /api/version, GET /api/tags,
// GET /api/ps, POST /api/show, POST /api/chat, POST /api/generate,
// POST /api/embed and POST /api/pull.
package fakeollama

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"
)

// Default configuration values.
const (
	// DefaultVersion is reported by GET /api/version.
	DefaultVersion = "0.6.5"
	// DefaultEmbedDim is the length of embedding vectors.
	DefaultEmbedDim = 64
	// DefaultChatModel is the name of the default chat model.
	DefaultChatModel = "fake-chat"
	// DefaultEmbedModel is the name of the default embedding model.
	DefaultEmbedModel = "fake-embed"
	// signalBuffer is the capacity of the Started and Cancelled channels.
	signalBuffer = 256
)

// Server is a running fake Ollama server. All methods are safe for
// concurrent use.
type Server struct {
	// URL is the base URL of the server, e.g. "http://127.0.0.1:40123".
	URL string

	srv       *httptest.Server
	quit      chan struct{} // closed by Close to release held handlers
	closeOnce sync.Once
	embedDim  int
	version   string

	started   chan api.ChatRequest
	cancelled chan api.ChatRequest
	held      chan string // paths of requests held by Freeze

	mu            sync.Mutex
	models        []Model // installed models, names normalised
	registry      []Model // models that /api/pull can fetch, names normalised
	offline       bool    // the registry cannot be reached: every pull fails
	queue         []Reply
	fallback      func(api.ChatRequest) Reply
	chats         [][]byte // raw bodies of chat requests, in order
	embeds        [][]byte // raw bodies of embed requests, in order
	pulls         []string
	shows         []string // models asked about with /api/show, in order
	embedFail     *failure
	cancellations int
	frozen        bool
	holdEmbeds    bool      // /api/embed alone is frozen (HoldEmbeds)
	gen           generator // POST /api/generate (generate.go)
}

// failure is a scripted HTTP error.
type failure struct {
	status int
	msg    string
}

// config collects the options given to New or Start.
type config struct {
	models   []Model
	registry []Model
	offline  bool
	version  string
	embedDim int
	addr     string
}

// Option configures a Server.
type Option func(*config)

// WithModels replaces the installed models (default: [DefaultModels]).
// WithModels() with no arguments starts with no models at all, which is
// useful to test pulling. Names are normalised like Ollama does, so "x" is
// listed as "x:latest".
func WithModels(models ...Model) Option {
	return func(c *config) { c.models = models }
}

// WithRegistry adds models that POST /api/pull can download. The default
// models and the installed models are always pullable too.
func WithRegistry(models ...Model) Option {
	return func(c *config) { c.registry = append(c.registry, models...) }
}

// WithoutRegistry makes every POST /api/pull fail the way Ollama's does
// on a machine without network: the model library cannot be reached.
func WithoutRegistry() Option {
	return func(c *config) { c.offline = true }
}

// WithVersion sets the version reported by GET /api/version
// (default [DefaultVersion]).
func WithVersion(v string) Option {
	return func(c *config) { c.version = v }
}

// WithEmbedDim sets the length of the vectors returned by POST /api/embed
// (default [DefaultEmbedDim]).
func WithEmbedDim(dim int) Option {
	return func(c *config) { c.embedDim = dim }
}

// WithAddr makes the server listen on addr (e.g. "127.0.0.1:11435") instead
// of a random loopback port.
func WithAddr(addr string) Option {
	return func(c *config) { c.addr = addr }
}

// New starts a Server on a random loopback port and closes it when the test
// ends. It fails the test if the server cannot start.
func New(t testing.TB, opts ...Option) *Server {
	t.Helper()
	s, err := Start(opts...)
	if err != nil {
		t.Fatalf("fakeollama: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start starts a Server outside of a test. Call Close when done.
func Start(opts ...Option) (*Server, error) {
	cfg := config{
		models:   DefaultModels(),
		version:  DefaultVersion,
		embedDim: DefaultEmbedDim,
	}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.embedDim <= 0 {
		return nil, fmt.Errorf("embed dimension must be positive, got %d", cfg.embedDim)
	}

	s := &Server{
		quit:      make(chan struct{}),
		embedDim:  cfg.embedDim,
		version:   cfg.version,
		offline:   cfg.offline,
		started:   make(chan api.ChatRequest, signalBuffer),
		cancelled: make(chan api.ChatRequest, signalBuffer),
		held:      make(chan string, signalBuffer),
	}
	for _, m := range cfg.models {
		s.models = append(s.models, m.normalised())
	}
	for _, m := range append(append(DefaultModels(), cfg.models...), cfg.registry...) {
		s.registry = append(s.registry, m.normalised())
	}

	s.srv = httptest.NewUnstartedServer(s.routes())
	if cfg.addr != "" {
		l, err := net.Listen("tcp", cfg.addr)
		if err != nil {
			s.srv.Listener.Close()
			return nil, err
		}
		s.srv.Listener.Close()
		s.srv.Listener = l
	}
	s.srv.Start()
	s.URL = s.srv.URL
	return s, nil
}

// Close stops the server. Held and gated streams are released first, so
// Close never waits for a client that keeps its connection open.
func (s *Server) Close() {
	s.closeOnce.Do(func() {
		close(s.quit)
		s.srv.CloseClientConnections()
		s.srv.Close()
	})
}

// Host returns "127.0.0.1:PORT", suitable for OLLAMA_HOST.
func (s *Server) Host() string {
	return strings.TrimPrefix(s.URL, "http://")
}

// routes builds the HTTP handler.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) { // also HEAD
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, "Ollama is running")
	})
	mux.HandleFunc("GET /api/version", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"version": s.version})
	})
	mux.HandleFunc("GET /api/tags", s.handleTags)
	mux.HandleFunc("GET /api/ps", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, api.ProcessResponse{Models: []api.ProcessModelResponse{}})
	})
	mux.HandleFunc("POST /api/show", s.handleShow)
	mux.HandleFunc("POST /api/chat", s.handleChat)
	mux.HandleFunc("POST /api/generate", s.handleGenerate)
	mux.HandleFunc("POST /api/embed", s.handleEmbed)
	mux.HandleFunc("POST /api/pull", s.handlePull)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.mu.Lock()
		frozen := s.frozen || (s.holdEmbeds && r.URL.Path == "/api/embed")
		s.mu.Unlock()
		if !frozen {
			mux.ServeHTTP(w, r)
			return
		}
		select {
		case s.held <- r.URL.Path:
		default:
		}
		select {
		case <-r.Context().Done():
		case <-s.quit:
		}
	})
}

// Freeze makes the server answer nothing from now on, not even headers,
// on any endpoint: each request is held until its client goes away (or
// the server closes), like an Ollama that hangs. Held reports each one.
func (s *Server) Freeze() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.frozen = true
}

// HoldEmbeds makes /api/embed alone answer nothing, as Freeze does, until
// HoldEmbeds(false): an embedding that takes its time while the rest works.
func (s *Server) HoldEmbeds(hold bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.holdEmbeds = hold
}

// Held receives the path of each request held because of Freeze or
// HoldEmbeds, once it is held. Buffered like Started.
func (s *Server) Held() <-chan string { return s.held }

// writeJSON writes v as a single JSON response with the given status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// writeError writes Ollama's error body {"error": msg}.
func writeError(w http.ResponseWriter, status int, msg string) {
	writeJSON(w, status, map[string]string{"error": msg})
}

// decodeCopy decodes a recorded raw body into a fresh value, which makes
// every returned request a deep copy.
// decodeAll returns deep copies of recorded request bodies, read under mu.
func decodeAll[T any](mu sync.Locker, bodies *[][]byte) []T {
	mu.Lock()
	defer mu.Unlock()
	out := make([]T, len(*bodies))
	for i, raw := range *bodies {
		out[i] = decodeCopy[T](raw)
	}
	return out
}

func decodeCopy[T any](raw []byte) T {
	var v T
	_ = json.Unmarshal(raw, &v) // bodies were validated when recorded
	return v
}

// notify sends v on ch without ever blocking the server; if the buffer is
// full the signal is dropped.
func notify(ch chan api.ChatRequest, v api.ChatRequest) {
	select {
	case ch <- v:
	default:
	}
}
