package syncer

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"
)

// defaultStallTimeout is how long a transfer may go without a byte either
// way before the server counts as gone (SyncConfig.StallTimeout).
const defaultStallTimeout = 30 * time.Second

// relay stands between go-libsql and the sync server for one sync call.
// go-libsql's HTTP client (in the native library) has no timeout, cannot be
// cancelled, and takes a server that went away in the middle of a transfer
// for one with nothing to send. Through the relay, on loopback, a server
// silent for its stall timeout or the round's context ending cuts the transfer
// (go-libsql's connection closes and its call returns), and the call learns
// what failed on the way.
type relay struct {
	upstream string
	client   *http.Client
	stall    time.Duration
	ctx      context.Context
	cancel   context.CancelFunc
	srv      *http.Server
	url      string
	done     chan struct{}

	mu  sync.Mutex
	err error // the first transfer that failed
}

// startRelay serves a relay to upstream ("https://host") on a loopback
// port until Close; transport carries its requests (nil: the default), and
// a transfer silent for stall is cut.
func startRelay(ctx context.Context, upstream string, transport http.RoundTripper, stall time.Duration) (*relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &relay{upstream: upstream, client: &http.Client{Transport: transport}, stall: stall, url: "http://" + ln.Addr().String(), done: make(chan struct{})}
	r.ctx, r.cancel = context.WithCancel(ctx)
	r.srv = &http.Server{Handler: r, ReadHeaderTimeout: stall, ErrorLog: discardLog}
	go func() {
		defer close(r.done)
		r.srv.Serve(ln)
	}()
	return r, nil
}

// Close stops the relay and returns the first failure of a transfer: the
// round's context ending, or the server failing or falling silent.
func (r *relay) Close() error {
	r.cancel()
	r.srv.Close()
	<-r.done
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err
}

func (r *relay) failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err != nil
}

func (r *relay) fail(err error) {
	r.mu.Lock()
	if r.err == nil {
		r.err = err
	}
	r.mu.Unlock()
}

// discardLog takes the relay server's own error lines: logs never reach
// the terminal.
var discardLog = log.New(io.Discard, "", 0)

// errStalled says a transfer went silent.
var errStalled = errors.New("nothing came or went for too long")

// ServeHTTP passes one request of go-libsql's to the server and its answer
// back, as long as bytes keep moving.
func (r *relay) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if r.failed() {
		panic(http.ErrAbortHandler) // no retry: the call ends, and says why
	}
	ctx, cancel := context.WithCancelCause(r.ctx)
	defer cancel(nil)
	watch := time.AfterFunc(r.stall, func() { cancel(errStalled) })
	defer watch.Stop()
	out, err := http.NewRequestWithContext(ctx, req.Method, r.upstream+req.URL.RequestURI(), movingReader{req.Body, watch, r.stall})
	if err != nil {
		r.fail(err)
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = req.Header.Clone()
	out.Header.Del("Connection")
	out.ContentLength = req.ContentLength
	if req.ContentLength == 0 {
		out.Body = http.NoBody
	}
	resp, err := r.client.Do(out)
	if err != nil {
		r.fail(cause(ctx, err))
		http.Error(w, "sync server unreachable", http.StatusBadGateway)
		return
	}
	defer resp.Body.Close()
	for k, vs := range resp.Header {
		w.Header()[k] = vs
	}
	w.WriteHeader(resp.StatusCode)
	buf := make([]byte, 64<<10)
	for {
		n, err := resp.Body.Read(buf)
		if n > 0 {
			watch.Stop() // a slow reader on this side is not the server's silence
			if _, werr := w.Write(buf[:n]); werr != nil {
				return // go-libsql hung up: its call says why
			}
			watch.Reset(r.stall)
		}
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			r.fail(cause(ctx, err))
			panic(http.ErrAbortHandler) // go-libsql sees the answer cut, not a short one
		}
	}
}

// cause is why a transfer under ctx failed with err: the stall or the end
// of the round, when one of them cut it.
func cause(ctx context.Context, err error) error {
	if c := context.Cause(ctx); c != nil {
		return c
	}
	return err
}

// movingReader resets a stall watch at every read that moves bytes.
type movingReader struct {
	r     io.Reader
	watch *time.Timer
	stall time.Duration
}

func (m movingReader) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	if n > 0 {
		m.watch.Reset(m.stall)
	}
	return n, err
}
