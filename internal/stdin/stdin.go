// Package stdin reads what is piped to a command: all of it, bounded,
// as valid UTF-8, without outliving the command's context.
package stdin

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// ErrTooLarge means more than the limit was piped.
var ErrTooLarge = errors.New("stdin is larger than the limit")

// Wait is how long Read waits for the pipe to end before it calls note.
const Wait = 3 * time.Second

// Read reads r to its end, at most limit bytes, invalid UTF-8 replaced.
// If r has not ended after Wait, note is called once (to say what is
// waited for). Read returns at ctx's end: a pipe that never ends must not
// outlive Ctrl+C.
func Read(ctx context.Context, r io.Reader, limit int, note func()) (string, error) {
	type read struct {
		data []byte
		err  error
	}
	got := make(chan read, 1)
	go func() {
		data, err := io.ReadAll(io.LimitReader(r, int64(limit)+1))
		got <- read{data, err}
	}()
	wait := time.NewTimer(Wait)
	defer wait.Stop()
	for {
		select {
		case res := <-got:
			switch {
			case res.err != nil:
				return "", fmt.Errorf("read stdin: %w", res.err)
			case len(res.data) > limit:
				return "", ErrTooLarge
			}
			return strings.ToValidUTF8(string(res.data), "\uFFFD"), nil
		case <-wait.C:
			note()
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// Piped reports whether r is something other than a terminal (a pipe, a
// file): a reader that is not a file counts as piped.
func Piped(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return r != nil
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice == 0
}
