package stdin

import (
	"context"
	"errors"
	"io"
	"testing"
)

// TestCancelableEndsABlockedReadWithTheContextsError: Ctrl+C while an
// import waits on a silent pipe ends the read with the context's error,
// which mneme says as "interrupted" (exit 130); it was "io: read/write on
// closed pipe", exit 1.
func TestCancelableEndsABlockedReadWithTheContextsError(t *testing.T) {
	silent, w := io.Pipe() // open, and never written
	defer w.Close()
	ctx, cancel := context.WithCancel(context.Background())
	r := Cancelable(ctx, silent)
	got := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 8))
		got <- err
	}()
	cancel()
	if err := <-got; !errors.Is(err, context.Canceled) {
		t.Fatalf("read after cancel: %v", err)
	}
}
