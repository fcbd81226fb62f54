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

// TestLineFixerEndsAtAnEndlessLine: a server's line that never ends (64 MB
// without a newline here) is read no further than the Ollama client could
// take (8 MB), not gathered whole in memory (256 MB of line made 304 MB of
// heap), and becomes an error line that says why the answer ended.
func TestLineFixerEndsAtAnEndlessLine(t *testing.T) {
	src := &countingReader{left: 64 << 20}
	f := &lineFixer{body: io.NopCloser(src), r: bufio.NewReader(src)}
	out, err := io.ReadAll(f)
	if err != nil {
		t.Fatal(err)
	}
	if src.read > maxFixedLine+64<<10 {
		t.Fatalf("%d MB of the line were read", src.read>>20)
	}
	if !bytes.Contains(out, []byte(`"error"`)) || !bytes.Contains(out, []byte("a line longer than 8 MB")) {
		t.Fatalf("passed on %.200q", out)
	}
}
