// Package syncserver is an in-memory loopback stand-in for the libSQL sync
// server (Turso) for tests. It speaks exactly the endpoints that go-libsql's
// synced database connector (NewSyncedDatabaseConnector, "offline writes")
// uses:
//
//	GET  /info                                   {"current_generation": g}
//	GET  /export/{g}                             the database file of generation g
//	GET  /sync/{g}/{start}/{end}                 WAL frames [start, end) (pull)
//	POST /sync/{g}/{start}/{end}[/{baton}]       WAL frames to append (push)
//
// A push answers {"status":"ok"|"conflict","generation":g,"max_frame_no":n}.
// The server keeps one generation whose base database is empty, and the
// pushed frames (4096-byte pages with a 24-byte header) in order. A push
// that does not start right after the last stored frame is a conflict, as
// on the real server: that is what two devices writing while apart see.
//
// Down and Up simulate the network going away (connections are refused)
// and coming back on the same address.
package syncserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// FrameSize is a WAL frame: a 24-byte header and a 4096-byte page.
const FrameSize = 24 + 4096

// Server is a running loopback sync server. Its methods are safe for
// concurrent use.
type Server struct {
	// URL is the base URL, e.g. "http://127.0.0.1:40123".
	URL string
	// Token, when set, is required as "Authorization: Bearer <Token>".
	Token string

	addr string
	srv  *http.Server

	mu        sync.Mutex
	ln        net.Listener
	conns     map[net.Conn]bool
	down      bool
	frames    [][]byte
	loseReply bool // the next push is stored but never answered
	conflicts int
	requests  []string
}

// New starts a server on a loopback port and stops it when the test ends.
func New(t testing.TB) *Server {
	t.Helper()
	s, err := Start("127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// Start starts a server listening on addr.
func Start(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{addr: ln.Addr().String(), ln: ln, conns: map[net.Conn]bool{}}
	s.URL = "http://" + s.addr
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ConnState: s.track}
	go s.srv.Serve(ln)
	return s, nil
}

// LoseNextReply makes the next push be stored but never answered (the
// connection drops), as when the network fails after the server applied it.
func (s *Server) LoseNextReply() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loseReply = true
}

// Close stops the server.
func (s *Server) Close() { s.srv.Close() }

// Down stops accepting connections and drops the open ones: clients see
// "connection refused", as when the network is gone.
func (s *Server) Down() {
	s.mu.Lock()
	ln := s.ln
	s.ln, s.down = nil, true
	conns := s.conns
	s.conns = map[net.Conn]bool{}
	s.mu.Unlock()
	if ln != nil {
		ln.Close()
	}
	for c := range conns {
		c.Close()
	}
}

// track follows the server's connections so that Down can drop them.
func (s *Server) track(c net.Conn, st http.ConnState) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch st {
	case http.StateNew:
		if s.down {
			c.Close()
			return
		}
		s.conns[c] = true
	case http.StateClosed, http.StateHijacked:
		delete(s.conns, c)
	}
}

// Up listens again on the same address after Down.
func (s *Server) Up() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", s.addr)
	if err != nil {
		return err
	}
	s.ln, s.down = ln, false
	go s.srv.Serve(ln)
	return nil
}

// Frames is how many WAL frames the server holds.
func (s *Server) Frames() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.frames)
}

// Conflicts is how many pushes were refused as conflicts.
func (s *Server) Conflicts() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conflicts
}

// Requests lists "METHOD path" of every request so far.
func (s *Server) Requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.requests...)
}

const generation = 1

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.down {
		panic(http.ErrAbortHandler) // drops the connection: no answer
	}
	s.requests = append(s.requests, r.Method+" "+r.URL.Path)
	if s.Token != "" && r.Header.Get("Authorization") != "Bearer "+s.Token {
		http.Error(w, `{"error":"unauthorized"}`, http.StatusUnauthorized)
		return
	}
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	switch {
	case r.Method == http.MethodGet && len(parts) == 1 && parts[0] == "info":
		writeJSON(w, http.StatusOK, map[string]any{"current_generation": generation})
	case r.Method == http.MethodGet && len(parts) == 2 && parts[0] == "export":
		// The base of the only generation is an empty database (a
		// zero-length file is a valid one); every change is in the frames.
		w.Header().Set("Content-Type", "application/octet-stream")
		w.WriteHeader(http.StatusOK)
	case len(parts) >= 4 && len(parts) <= 5 && parts[0] == "sync":
		g, err1 := strconv.Atoi(parts[1])
		start, err2 := strconv.Atoi(parts[2])
		end, err3 := strconv.Atoi(parts[3])
		if err1 != nil || err2 != nil || err3 != nil || start < 1 || end < start {
			http.Error(w, "bad frame range", http.StatusBadRequest)
			return
		}
		if r.Method == http.MethodGet {
			s.pull(w, g, start, end)
			return
		}
		if r.Method == http.MethodPost {
			s.push(w, r, g, start, end)
			return
		}
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
	default:
		http.NotFound(w, r)
	}
}

// pull answers frames [start, end). Past the last frame it answers 400
// with the current generation, which the client reads as "end of
// generation".
func (s *Server) pull(w http.ResponseWriter, g, start, end int) {
	if g != generation || start > len(s.frames) {
		writeJSON(w, http.StatusBadRequest, map[string]any{"generation": generation})
		return
	}
	end = min(end, len(s.frames)+1)
	w.Header().Set("Content-Type", "application/octet-stream")
	for _, f := range s.frames[start-1 : end-1] {
		w.Write(f)
	}
}

func (s *Server) push(w http.ResponseWriter, r *http.Request, g, start, end int) {
	var body bytes.Buffer
	if _, err := body.ReadFrom(r.Body); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	data := body.Bytes()
	if len(data) != (end-start)*FrameSize {
		http.Error(w, fmt.Sprintf("body has %d bytes for %d frames", len(data), end-start), http.StatusBadRequest)
		return
	}
	have := len(s.frames)
	switch {
	case g != generation || start <= have:
		// Someone else pushed first (or this device's view is stale).
		s.conflicts++
		writeJSON(w, http.StatusOK, map[string]any{"status": "conflict", "generation": generation, "max_frame_no": have})
		return
	case start > have+1:
		// A gap: tell the client where the server is so it resends.
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "generation": generation, "max_frame_no": have})
		return
	}
	for off := 0; off < len(data); off += FrameSize {
		s.frames = append(s.frames, bytes.Clone(data[off:off+FrameSize]))
	}
	if s.loseReply {
		s.loseReply = false
		panic(http.ErrAbortHandler) // stored, but the answer is lost
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ok", "generation": generation, "max_frame_no": len(s.frames)})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	json.NewEncoder(w).Encode(v)
}
