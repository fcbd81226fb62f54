package stdin

import (
	"context"
	"errors"
	"io"
	"syscall"
	"unicode/utf8"

	"github.com/mneme-dev/mneme/internal/shutdown"
	"golang.org/x/term"
)

// ErrInterrupted says Ctrl+C ended a secret's prompt.
var ErrInterrupted = errors.New("interrupted")

// ReadSecret reads a line from the terminal fd without echo. The terminal
// is raw meanwhile, so that Ctrl+C arrives as a key, in order with the
// rest: it ends the read with ErrInterrupted, and nothing typed with it or
// after is taken (with the signal, a line typed on in the same burst raced
// it, and became the secret). Backspace erases, Ctrl+U clears, Ctrl+D on
// an empty line is io.EOF. The terminal is as it was when it returns.
func ReadSecret(fd int) (string, error) {
	st, err := term.MakeRaw(fd)
	if err != nil {
		return "", err
	}
	defer term.Restore(fd, st)
	var line []byte
	b := make([]byte, 1)
	for {
		n, err := syscall.Read(fd, b)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			return "", err
		}
		if n == 0 {
			return "", io.EOF
		}
		switch c := b[0]; {
		case c == 0x03: // Ctrl+C
			return "", ErrInterrupted
		case c == '\r' || c == '\n':
			return string(line), nil
		case c == 0x04 && len(line) == 0: // Ctrl+D
			return "", io.EOF
		case c == 0x7f || c == 0x08: // Backspace
			_, size := utf8.DecodeLastRune(line)
			line = line[:len(line)-size]
		case c == 0x15: // Ctrl+U
			line = line[:0]
		case c >= 0x20:
			line = append(line, c)
		}
	}
}

// PromptSecret is ReadSecret that ends with ctx too (SIGTERM, SIGHUP): the
// terminal is as it was when it returns, and when a signal ends the
// process before the read does.
func PromptSecret(ctx context.Context, fd int) (string, error) {
	st, err := term.GetState(fd)
	if err != nil {
		return "", err
	}
	restore := func() { term.Restore(fd, st) }
	defer shutdown.OnExit(restore)()
	type read struct {
		s   string
		err error
	}
	got := make(chan read, 1)
	go func() {
		s, err := ReadSecret(fd)
		got <- read{s, err}
	}()
	select {
	case r := <-got:
		return r.s, r.err
	case <-ctx.Done():
		restore()
		return "", ctx.Err()
	}
}
