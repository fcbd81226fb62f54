package agent

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"testing/iotest"
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

// TestLineFixerLeavesABrokenOffLineToTheClient: a line cut off by a dropped
// connection is the answer breaking off, not a line that is not JSON; an
// error's body (a proxy's page with a 502) is left for the client to quote.
func TestLineFixerLeavesABrokenOffLineToTheClient(t *testing.T) {
	body := io.MultiReader(strings.NewReader(`{"message":{"content":"Hi"}}`+"\n"+`{"message":{"cont`), iotest.ErrReader(io.ErrUnexpectedEOF))
	f := &lineFixer{body: io.NopCloser(body), r: bufio.NewReader(body)}
	out, err := io.ReadAll(f)
	if !errors.Is(err, io.ErrUnexpectedEOF) || string(out) != `{"message":{"content":"Hi"}}`+"\n" {
		t.Fatalf("passed on %q, %v", out, err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.WriteHeader(http.StatusBadGateway)
		io.WriteString(w, "<html>502 Bad Gateway</html>\n")
	}))
	defer srv.Close()
	resp, err := (&http.Client{Transport: ToleratingTransport(nil)}).Post(srv.URL+"/api/chat", "application/json", strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if b, _ := io.ReadAll(resp.Body); string(b) != "<html>502 Bad Gateway</html>\n" {
		t.Fatalf("an error's body became %q", b)
	}
}
