package agent

import (
	"bufio"
	"bytes"
	"io"
	"testing"
)

// countingReader yields n bytes of 'a' with no newline, counting what was read.
type countingReader struct{ left, read int }

func (c *countingReader) Read(p []byte) (int, error) {
	if c.left == 0 {
		return 0, io.EOF
	}
	n := min(len(p), c.left)
	copy(p, bytes.Repeat([]byte("a"), n))
	c.left -= n
	c.read += n
	return n, nil
}

// TestLineFixerPassesAnEndlessLineOnInPieces: a server's line that never
// ends (64 MB without a newline here) reaches the Ollama client, which
// refuses lines over 8 MB, in pieces as it comes, whole and unchanged,
// instead of being gathered whole in memory first (256 MB of line made
// 304 MB of heap).
func TestLineFixerPassesAnEndlessLineOnInPieces(t *testing.T) {
	src := &countingReader{left: 64 << 20}
	f := &lineFixer{body: io.NopCloser(src), r: bufio.NewReader(src)}
	first := make([]byte, 1)
	if _, err := f.Read(first); err != nil {
		t.Fatal(err)
	}
	if src.read > maxFixedLine+64<<10 {
		t.Fatalf("%d MB were read before the first byte was passed on", src.read>>20)
	}
	n, err := io.Copy(io.Discard, f)
	if err != nil || n+1 != 64<<20 {
		t.Fatalf("passed on %d bytes of 64 MB: %v", n+1, err)
	}
}
