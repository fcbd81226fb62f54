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
	return readLine(fdReader(fd))
}

// fdReader reads a raw terminal a byte at a time.
type fdReader int

func (fd fdReader) ReadByte() (byte, error) {
	b := make([]byte, 1)
	for {
		n, err := syscall.Read(int(fd), b)
		switch {
		case errors.Is(err, syscall.EINTR):
			continue
		case err != nil:
			return 0, err
		case n == 0:
			return 0, io.EOF
		}
		return b[0], nil
	}
}

// readLine edits a line of raw keys (see ReadSecret). A key that sends an
// escape sequence (an arrow, Home, F1) is passed over whole: only its
// first byte is a control character, and the rest ("[A") was taken into
// the secret.
func readLine(r io.ByteReader) (string, error) {
	var line []byte
	var next byte // a key read after a lone Esc, to take as typed
	for {
		c, err := next, error(nil)
		if next == 0 {
			c, err = r.ReadByte()
		}
		next = 0
		if err != nil {
			return "", err
		}
		switch {
		case c == 0x03: // Ctrl+C
			return "", ErrInterrupted
		case c == '\r' || c == '\n':
			return string(line), nil
		case c == 0x04 && len(line) == 0: // Ctrl+D
			return "", io.EOF
		case c == 0x1b:
			if next, err = skipEscape(r); err != nil {
				return "", err
			}
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

// skipEscape reads the rest of an escape sequence whose ESC was read: CSI
// (ESC [ parameters, intermediates, a final byte) or SS3 (ESC O and a
// byte). After a lone Esc it returns the next key, to be taken as typed
// (it was lost from the token); so is Alt+key's, which means nothing more
// here.
func skipEscape(r io.ByteReader) (key byte, err error) {
	c, err := r.ReadByte()
	switch {
	case err != nil:
		return 0, err
	case c == 'O':
		_, err = r.ReadByte()
		return 0, err
	case c == '[':
		for {
			c, err := r.ReadByte()
			if err != nil || (c >= 0x40 && c <= 0x7e) {
				return 0, err
			}
		}
	}
	return c, nil
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
