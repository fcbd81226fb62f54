package syncer

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/syncserver"
)

// flakyServer stands in front of a sync server and spoils its answers to
// pulls (GET /sync/…) as told: "stall" answers nothing, "cut" sends half
// of the frames and drops the connection, "drop" drops it at once (the
// server went away), "trickle" sends them 10 bytes every 20 ms.
type flakyServer struct {
	*httptest.Server
	mode    atomic.Value // string
	release chan struct{}
}

func newFlakyServer(t *testing.T, srv *syncserver.Server) *flakyServer {
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	f := &flakyServer{release: make(chan struct{})}
	f.mode.Store("")
	proxy := httputil.NewSingleHostReverseProxy(u)
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet || !strings.HasPrefix(r.URL.Path, "/sync/") {
			proxy.ServeHTTP(w, r)
			return
		}
		switch f.mode.Load() {
		case "stall":
			<-f.release
			panic(http.ErrAbortHandler)
		case "drop":
			panic(http.ErrAbortHandler)
		case "cut":
			rec := httptest.NewRecorder()
			proxy.ServeHTTP(rec, r)
			body := rec.Body.Bytes()
			w.Header().Set("Content-Length", "90000000")
			w.WriteHeader(rec.Code)
			w.Write(body[:len(body)/2])
			panic(http.ErrAbortHandler)
		case "trickle":
			rec := httptest.NewRecorder()
			proxy.ServeHTTP(rec, r)
			w.WriteHeader(rec.Code)
			tick := time.NewTicker(20 * time.Millisecond) // the server's pace, not a wait for an event
			defer tick.Stop()
			for body := rec.Body.Bytes(); len(body) > 0; body = body[min(10, len(body)):] {
				w.Write(body[:min(10, len(body))])
				w.(http.Flusher).Flush()
				select {
				case <-tick.C:
				case <-r.Context().Done():
					return
				case <-f.release:
					return
				}
			}
			return
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(func() {
		close(f.release)
		f.Close()
	})
	return f
}

// TestSyncThatTheServerCutsOrLeavesSilentFails: a pull the server stops
// answering half-way, cuts, drops, or trickles (a few bytes now and then,
// never quite silent), ends the round with "offline" (go-libsql alone
// waited for ever, or took the half it got for all there was and called
// the device synced); the next round, with the server well, brings
// everything.
func TestSyncThatTheServerCutsOrLeavesSilentFails(t *testing.T) {
	for _, mode := range []string{"stall", "cut", "drop", "trickle"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			srv := syncserver.New(t)
			a := newSyncDevice(t, "A", srv, "")
			b := newSyncDevice(t, "B", srv, "")
			chat(t, a.store, "alice", "Warm-up", "a first question", "a first answer")
			a.sync()
			for !b.sync().Received.Empty() { // joined, and up to date: the next round is a plain pull
			}
			for i := range 40 {
				chat(t, a.store, "alice", "Chat "+string(rune('A'+i%26)), strings.Repeat("a long question about gardens ", 40), "an answer")
			}
			a.sync()
			flaky := newFlakyServer(t, srv)
			merges := 0
			sy, err := NewSyncer(b.store, SyncConfig{URL: flaky.URL, StallTimeout: 300 * time.Millisecond,
				OnMerge: func(int, int) { merges++ }})
			if err != nil {
				t.Fatal(err)
			}
			flaky.mode.Store(mode)
			start := time.Now()
			if _, err := sy.SyncNow(ctx); !errors.Is(err, ErrSyncOffline) || merges != 0 {
				t.Fatalf("a %s pull: %v (%d merges)", mode, err, merges)
			}
			t.Logf("the %s pull failed after %s", mode, time.Since(start).Round(time.Millisecond))
			if st := sy.Status(ctx); st.State == SyncSynced {
				t.Fatalf("status after a %s pull: %+v", mode, st)
			}
			flaky.mode.Store("")
			if _, err := sy.SyncNow(ctx); err != nil {
				t.Fatal(err)
			}
			if got := b.titles(); len(got) != 41 {
				t.Fatalf("B has %d conversations after the server came back", len(got))
			}
		})
	}
}

// TestSyncStoppedIsInterruptedNotAnError: a round stopped by its context
// (Ctrl+C) leaves the state "interrupted", not "error" with "context
// canceled", nor "offline".
func TestSyncStoppedIsInterruptedNotAnError(t *testing.T) {
	srv := syncserver.New(t)
	a := newSyncDevice(t, "A", srv, "")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := a.sy.SyncNow(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("a stopped sync: %v", err)
	}
	if st := a.sy.Status(context.Background()); st.State != SyncInterrupted || strings.Contains(st.LastError, "context canceled") {
		t.Fatalf("status after a stopped sync: %+v", st)
	}
	// Out of the time a command gives it (AfterChange's bound): the same,
	// not "error", which would shorten the next commands' waits.
	ctx, cancel = context.WithDeadline(context.Background(), time.Now())
	defer cancel()
	if _, err := a.sy.SyncNow(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a sync out of time: %v", err)
	}
	if st := a.sy.Status(context.Background()); st.State != SyncInterrupted || strings.Contains(st.LastError, "deadline") {
		t.Fatalf("status after a sync out of time: %+v", st)
	}
}

// TestSyncOutOfTimeWhileDownStaysDown: a command's short wait for a
// server found silent runs out; the state stays offline, since the round
// that found it so, and the next command's wait is short again (it
// alternated 5 s and 2 s: a deadline made the state "interrupted").
func TestSyncOutOfTimeWhileDownStaysDown(t *testing.T) {
	ctx := context.Background()
	srv := syncserver.New(t)
	srv.Down()
	a := newSyncDevice(t, "A", srv, "")
	chat(t, a.store, "alice", "Pending", "written while the server is down", "kept")
	if _, err := a.sy.SyncNow(ctx); !errors.Is(err, ErrSyncOffline) {
		t.Fatalf("a sync while down: %v", err)
	}
	found := a.sy.Status(ctx)
	short, cancel := context.WithDeadline(ctx, time.Now())
	defer cancel()
	if _, err := a.sy.SyncNow(short); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a sync out of time: %v", err)
	}
	st := a.sy.Status(ctx)
	if st.State != SyncOffline || st.LastAttempt == nil || !st.LastAttempt.Equal(*found.LastAttempt) || st.LastError != found.LastError {
		t.Fatalf("status after a sync out of time while down: %+v; want it as found offline: %+v", st, found)
	}
}

// TestSyncReportSaysRowsNotMerged: rows a merge could not copy are said in
// the round's line (and so in `sync --status` and doctor), not only logged:
// the copy that holds them is wiped by the next merge.
func TestSyncReportSaysRowsNotMerged(t *testing.T) {
	rep := SyncReport{Merged: true, Conflict: true, Reapplied: 4, NotMerged: 2}
	if s := rep.String(); !strings.Contains(s, "2 rows of this device could not be merged") || !strings.Contains(s, "sync-backup/") {
		t.Fatalf("report: %s", s)
	}
	if s := (SyncReport{Merged: true, Conflict: true, Reapplied: 4}).String(); strings.Contains(s, "could not") {
		t.Fatalf("report of a clean merge: %s", s)
	}
	// A device that wrote nothing is not told both devices wrote.
	rep = SyncReport{Merged: true, Conflict: true, Received: Changes{Conversations: 1, Messages: 2}}
	if s := rep.String(); strings.Contains(s, "both devices wrote") || !strings.Contains(s, "no local change was waiting") {
		t.Fatalf("report of a rebuild with nothing to re-apply: %s", s)
	}
}

// TestRelayServesOnlyItsSync: the relay's loopback port refuses a request
// without the key go-libsql was given (another local user's), which
// neither reaches the server nor cuts the sync in flight; go-libsql's
// requests reach the server with the sync token, never the relay's key.
func TestRelayServesOnlyItsSync(t *testing.T) {
	var got atomic.Value // the Authorization header the server saw last
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got.Store(r.Header.Get("Authorization"))
		w.Write([]byte("frames"))
	}))
	defer upstream.Close()
	r, err := startRelay(context.Background(), upstream.URL, "SYNC-TOKEN", nil, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	ask := func(auth string) int {
		req, err := http.NewRequest(http.MethodGet, r.url+"/sync/1/2", nil)
		if err != nil {
			t.Fatal(err)
		}
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, auth := range []string{"", "Bearer SYNC-TOKEN", "Bearer " + r.key + "x"} {
		if code := ask(auth); code != http.StatusForbidden || got.Load() != nil {
			t.Fatalf("a request with Authorization %q: HTTP %d, the server saw %v", auth, code, got.Load())
		}
	}
	if code := ask("Bearer " + r.key); code != http.StatusOK || got.Load() != "Bearer SYNC-TOKEN" {
		t.Fatalf("go-libsql's request: HTTP %d, the server saw Authorization %v", code, got.Load())
	}
	if err := r.Close(); err != nil {
		t.Fatalf("the refused requests cut the sync: %v", err)
	}
}
