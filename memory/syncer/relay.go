package syncer

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"sync"
	"time"
)

// defaultStallTimeout is how long a transfer may go without moving
// minProgress bytes either way before the server counts as gone
// (SyncConfig.StallTimeout).
const defaultStallTimeout = 30 * time.Second

// minProgress is what a transfer must move in each stall timeout: a server
// that trickles a few bytes at a time is as good as silent (as curl's
// --speed-limit). 4 KiB in 30 s is far below any real link.
const minProgress = 4 << 10

// relay stands between go-libsql and the sync server for one sync call.
// go-libsql's HTTP client (in the native library) has no timeout, cannot be
// cancelled, and takes a server that went away in the middle of a transfer
// for one with nothing to send. Through the relay, on loopback, a server
// silent (or all but silent) for its stall timeout or the round's context
// ending cuts the transfer
// (go-libsql's connection closes and its call returns), and the call learns
// what failed on the way.
//
// go-libsql authenticates to the relay with a key of its own, which
// the relay swaps for the server's token: another local user's requests to
// the port are refused, and cannot cut a sync in flight.
type relay struct {
	key      string
	upstream string
	token    string
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
// port until Close; requests carry token to it (none when empty), transport
// carries them (nil: the default), and a transfer that moves less than
// minProgress bytes in stall is cut.
func startRelay(ctx context.Context, upstream, token string, transport http.RoundTripper, stall time.Duration) (*relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &relay{key: rand.Text(), upstream: upstream, token: token, client: &http.Client{Transport: transport},
		stall: stall, url: "http://" + ln.Addr().String(), done: make(chan struct{})}
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
	if subtle.ConstantTimeCompare([]byte(req.Header.Get("Authorization")), []byte("Bearer "+r.key)) != 1 {
		http.Error(w, "not this sync's relay", http.StatusForbidden)
		return
	}
	if r.failed() {
		panic(http.ErrAbortHandler) // no retry: the call ends, and says why
	}
	ctx, cancel := context.WithCancelCause(r.ctx)
	defer cancel(nil)
	watch := newPace(r.stall, func() { cancel(errStalled) })
	defer watch.stop()
	out, err := http.NewRequestWithContext(ctx, req.Method, r.upstream+req.URL.RequestURI(), movingReader{req.Body, watch})
	if err != nil {
		r.fail(err)
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	out.Header = req.Header.Clone()
	out.Header.Del("Connection")
	out.Header.Del("Authorization")
	if r.token != "" {
		out.Header.Set("Authorization", "Bearer "+r.token)
	}
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
			watch.pause() // a slow reader on this side is not the server's silence
			if _, werr := w.Write(buf[:n]); werr != nil {
				return // go-libsql hung up: its call says why
			}
			watch.resume(n)
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

// pace cuts a transfer (calls cut) when a stall period passes in which
// it moved less than minProgress bytes; each period that moves them starts
// the next. Time while paused does not count.
type pace struct {
	mu     sync.Mutex
	timer  *time.Timer
	stall  time.Duration
	end    time.Time     // the running period's end
	left   time.Duration // of the period, while paused
	paused bool
	moved  int
}

func newPace(stall time.Duration, cut func()) *pace {
	return &pace{timer: time.AfterFunc(stall, cut), stall: stall, end: time.Now().Add(stall)}
}

// add counts n bytes moved.
func (p *pace) add(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.count(n)
}

func (p *pace) count(n int) {
	p.moved += n
	if p.moved < minProgress {
		return
	}
	p.moved = 0
	if p.paused {
		p.left = p.stall
		return
	}
	if p.timer.Stop() { // else it has cut the transfer already
		p.end = time.Now().Add(p.stall)
		p.timer.Reset(p.stall)
	}
}

// pause stops the clock of the running period.
func (p *pace) pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.paused && p.timer.Stop() {
		p.paused, p.left = true, time.Until(p.end)
	}
}

// resume starts the clock again where pause stopped it, counting n bytes.
func (p *pace) resume(n int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.paused {
		p.paused, p.end = false, time.Now().Add(p.left)
		p.timer.Reset(p.left)
	}
	p.count(n)
}

func (p *pace) stop() { p.timer.Stop() }

// movingReader counts the bytes a request's body moves.
type movingReader struct {
	r    io.Reader
	pace *pace
}

func (m movingReader) Read(p []byte) (int, error) {
	n, err := m.r.Read(p)
	if n > 0 {
		m.pace.add(n)
	}
	return n, err
}
