package printer

import "io"

// Checked is a command's stdout: it keeps the first write error, so that
// a command whose output was lost (a full disk, a closed pipe) does not
// end as if it had printed it.
type Checked struct {
	W   io.Writer
	Err error
}

func (c *Checked) Write(p []byte) (int, error) {
	n, err := c.W.Write(p)
	if err != nil && c.Err == nil {
		c.Err = err
	}
	return n, err
}
