package progress

import (
	"bytes"
	"io"
	"os"
	"sync/atomic"
)

// CountLines counts the lines of f (blank ones too: the count is an
// estimate of the messages in it) and rewinds it.
func CountLines(f *os.File) (int, error) {
	n, last := 0, byte('\n')
	buf := make([]byte, 256<<10)
	for {
		k, err := f.Read(buf)
		if k > 0 {
			n += bytes.Count(buf[:k], []byte{'\n'})
			last = buf[k-1]
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, err
		}
	}
	if last != '\n' {
		n++ // a last line without a newline
	}
	_, err := f.Seek(0, io.SeekStart)
	return n, err
}

// Counter counts the bytes read through it from R (N, for a progress bar
// while another goroutine reads).
type Counter struct {
	R io.Reader
	N atomic.Int64
}

func (c *Counter) Read(p []byte) (int, error) {
	k, err := c.R.Read(p)
	c.N.Add(int64(k))
	return k, err
}
