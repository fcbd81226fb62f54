package keyword

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/mneme-dev/mneme/internal/flock"
)

// Two handles on one directory stand for two processes: flock locks belong
// to an open file, so the handles exclude each other as processes do.

func openShared(t *testing.T, dir string, lease LeaseOptions) *Index {
	t.Helper()
	ix, err := OpenLease(context.Background(), dir, lease)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ix.Close() })
	return ix
}

// testLease is DefaultLease with shorter holds, so that tests of giving
// the index up run quickly.
var testLease = LeaseOptions{Linger: 20 * time.Millisecond, MaxHold: 100 * time.Millisecond, Wait: 10 * time.Second}

func TestTwoProcessesShareTheIndex(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kw")
	a := openShared(t, dir, testLease)
	b := openShared(t, dir, testLease)
	must(t, a.Upsert(turn("u", "a", 1, "the tomatoes need more sun")))
	if got := ids(find(t, b, Query{UserID: "u", Text: "tomatoes"})); len(got) != 1 || got[0] != "a:1" {
		t.Fatalf("b does not see a's turn: %v", got)
	}
	must(t, b.Upsert(turn("u", "b", 1, "the basil needs water")))
	if got := ids(find(t, a, Query{UserID: "u", Text: "basil"})); len(got) == 0 || got[0] != "b:1" {
		t.Fatalf("a does not see b's turn: %v", got)
	}
	// Interleaved writes from both, none lost.
	for i := 2; i < 9; i++ {
		must(t, a.Upsert(turn("u", "a", i, fmt.Sprintf("apple note %d", i))))
		must(t, b.Upsert(turn("u", "b", i, fmt.Sprintf("apple note %d", i))))
	}
	if n, err := a.Count(); err != nil || n != 16 {
		t.Fatalf("count %d, %v; want 16", n, err)
	}
}

func TestWaitForTheIndexEndsWithTheContext(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kw")
	a := openShared(t, dir, testLease)
	b := openShared(t, dir, testLease)
	must(t, a.Upsert(turn("u", "a", 1, "lisbon trip")))
	held, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		done <- a.Hold(context.Background(), func() error {
			close(held)
			<-release
			return nil
		})
	}()
	<-held
	ctx, cancel := context.WithCancel(context.Background())
	searched := make(chan error)
	go func() {
		_, err := b.Search(ctx, Query{UserID: "u", Text: "lisbon"})
		searched <- err
	}()
	cancel()
	if err := <-searched; !errors.Is(err, context.Canceled) {
		t.Fatalf("search while the other process holds the index: %v, want context.Canceled", err)
	}
	close(release)
	must(t, <-done)
	if got := ids(find(t, b, Query{UserID: "u", Text: "lisbon"})); len(got) != 1 {
		t.Fatalf("after the holder let go: %v", got)
	}
}

func TestABusyProcessLetsTheOthersIn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kw")
	a := openShared(t, dir, testLease)
	b := openShared(t, dir, testLease)
	must(t, b.Upsert(turn("u", "b", 1, "sourdough starter")))
	// a works without pause, one operation after the other, until b's
	// search is answered (or a gives up after many operations).
	searched := make(chan struct{})
	stopped := make(chan int)
	go func() {
		n := 0
		for ; n < 100000; n++ {
			select {
			case <-searched:
				stopped <- n
				return
			default:
			}
			if _, err := a.Count(); err != nil {
				t.Error(err)
				break
			}
		}
		stopped <- n
	}()
	if got := ids(find(t, b, Query{UserID: "u", Text: "sourdough"})); len(got) != 1 {
		t.Errorf("search: %v", got)
	}
	close(searched)
	if n := <-stopped; n >= 100000 {
		t.Fatal("b's search was answered only after a stopped")
	}
}

func TestLockFileIsHeldOnlyWhileInUse(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kw")
	a := openShared(t, dir, testLease)
	must(t, a.Upsert(turn("u", "a", 1, "hello")))
	// Another process (the test) can take the lock once a is idle: its
	// lease ends by itself after Linger.
	f, err := os.OpenFile(dir+".lock", os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) != nil {
		select {
		case <-lctx.Done():
			t.Fatal("the idle index kept its lock")
		case <-time.After(flock.Poll):
		}
	}
	// While the test holds it, a waits, within its bound, then says so.
	a.lease.Wait = 50 * time.Millisecond
	if _, err := a.Count(); !errors.Is(err, ErrBusy) {
		t.Fatalf("count while another process holds the index: %v, want ErrBusy", err)
	}
	must(t, syscall.Flock(int(f.Fd()), syscall.LOCK_UN))
	a.lease.Wait = 10 * time.Second
	if n, err := a.Count(); err != nil || n != 1 {
		t.Fatalf("count after: %d, %v", n, err)
	}
}

func TestResetWhileAnotherProcessUsesTheIndex(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kw")
	a := openShared(t, dir, testLease)
	b := openShared(t, dir, testLease)
	must(t, a.Upsert(turn("u", "a", 1, "old text about kites")))
	ran := false
	must(t, b.Reset(context.Background(), func() error {
		ran = true
		return b.SetMeta("id", "fresh")
	}))
	if !ran {
		t.Fatal("Reset did not run its function")
	}
	if got := ids(find(t, a, Query{UserID: "u", Text: "kites"})); len(got) != 0 {
		t.Fatalf("a still finds the old index: %v", got)
	}
	if v, err := a.Meta("id"); err != nil || v != "fresh" {
		t.Fatalf("a reads meta %q, %v", v, err)
	}
}

// A rebuild that cannot make its new index (a read-only or full disk)
// keeps the old one, which goes on answering.
func TestResetThatCannotBuildKeepsTheOldIndex(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kw")
	ix := openShared(t, dir, testLease)
	must(t, ix.Upsert(turn("u", "a", 1, "the lighthouse keeper")))
	full := errors.New("no space left on device")
	ix.make = func(string) (bleve.Index, error) { return nil, full }
	ran := false
	if err := ix.Reset(context.Background(), func() error { ran = true; return nil }); !errors.Is(err, full) {
		t.Fatalf("reset: %v", err)
	}
	if ran {
		t.Fatal("the records were reset although the index was not")
	}
	if got := ids(find(t, ix, Query{UserID: "u", Text: "lighthouse"})); len(got) != 1 {
		t.Fatalf("the old index no longer answers: %v", got)
	}
	// Another process still gets the index too.
	other := openShared(t, dir, testLease)
	if got := ids(find(t, other, Query{UserID: "u", Text: "keeper"})); len(got) != 1 {
		t.Fatalf("another process: %v", got)
	}
}

// TestKeepHoldsTheIndexBetweenBatchesAndYields: a keeper (an import,
// indexing a batch at a time) keeps the index open between its batches,
// past the linger, without closing it; once another process waits and
// the keeper has had it longer than MaxHold, Yield says so, and when the
// keeper lets go the other process gets the index.
func TestKeepHoldsTheIndexBetweenBatchesAndYields(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "kw")
	a := openShared(t, dir, testLease)
	b := openShared(t, dir, testLease)
	release, err := a.Keep(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	must(t, a.Upsert(turn("u", "a", 1, "first batch about tomatoes")))
	opened := a.since
	time.Sleep(3 * testLease.Linger) // idle between batches, longer than the linger (a gap, not synchronisation)
	must(t, a.Upsert(turn("u", "a", 2, "second batch about basil")))
	if a.since != opened {
		t.Fatal("the kept index was closed and opened again between batches")
	}
	if a.Yield() {
		t.Fatal("Yield with nobody waiting")
	}
	searched := make(chan error, 1)
	go func() {
		_, err := b.Search(context.Background(), Query{UserID: "u", Text: "basil"})
		searched <- err
	}()
	deadline := time.Now().Add(10 * time.Second)
	for !a.Yield() {
		if time.Now().After(deadline) {
			t.Fatal("Yield never said to let go while another process waited")
		}
		time.Sleep(5 * time.Millisecond) // polling interval
	}
	select {
	case err := <-searched:
		t.Fatalf("the other process searched while the index was kept: %v", err)
	default:
	}
	release()
	if err := <-searched; err != nil {
		t.Fatalf("the other process after the keeper let go: %v", err)
	}
}

// TestKeeperThatKeepsAgainStillLetsOthersIn: a keeper that lets go when
// Yield says so and keeps the index again for its next batch at once (an
// import's loop) lets the waiting process in between: the index was closed
// in the background, and the next Keep joined it before it closed.
func TestKeeperThatKeepsAgainStillLetsOthersIn(t *testing.T) {
	a, b := twoProcesses(t)
	searched := make(chan error, 1)
	started := false
	deadline := time.Now().Add(20 * time.Second)
	var release func()
	defer func() {
		if release != nil {
			release()
		}
	}()
	for n := 2; ; n++ {
		if release == nil {
			r, err := a.Keep(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			release = r
		}
		must(t, a.Upsert(turn("u", "a", n, "another batch")))
		if !started {
			started = true
			go func() {
				_, err := b.Search(context.Background(), Query{UserID: "u", Text: "basil"})
				searched <- err
			}()
		}
		if a.Yield() {
			gaveUp := a.since
			release()
			r, err := a.Keep(context.Background()) // the next batch, at once
			if err != nil {
				t.Fatal(err)
			}
			release = r
			if a.since == gaveUp {
				t.Fatal("the next Keep joined the lease given up for the waiting process")
			}
		}
		select {
		case err := <-searched:
			if err != nil {
				t.Fatal(err)
			}
			return
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("the other process never got the index from a keeper that keeps it again at once")
		}
	}
}

// A lease given up for a waiting process and Reset at once by its holder
// (openKeyword's Hold, then recreateKeyword; reindex): the work inside
// Reset joins the new index Reset holds, instead of waiting for the gate
// until the operation's wait runs out.
func TestResetRightAfterALeaseGivenUp(t *testing.T) {
	a, b := twoProcesses(t)
	searched := make(chan error, 1)
	must(t, a.Hold(context.Background(), func() error {
		go func() {
			_, err := b.Search(context.Background(), Query{UserID: "u", Text: "basil"})
			searched <- err
		}()
		deadline := time.Now().Add(10 * time.Second)
		for !a.Yield() { // b waits, and a has had the index longer than MaxHold
			if time.Now().After(deadline) {
				return errors.New("the other process never waited")
			}
			time.Sleep(5 * time.Millisecond) // polling interval
		}
		return nil
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := a.Reset(ctx, func() error { return a.SetMeta("id", "x") }); err != nil {
		t.Fatalf("Reset after the lease was given up: %v", err)
	}
	if err := <-searched; err != nil {
		t.Fatalf("the other process: %v", err)
	}
}

// twoProcesses opens one index directory twice, as two mneme processes
// do, with a turn about basil in it.
func twoProcesses(t *testing.T) (a, b *Index) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "kw")
	a, b = openShared(t, dir, testLease), openShared(t, dir, testLease)
	must(t, a.Upsert(turn("u", "a", 1, "first batch about basil")))
	return a, b
}
