// Package lineread reads lines of a bounded length from files people and
// other programs give mneme (JSON lines to import, queries for search
// --batch): a line over the bound is read to its end and dropped, so that
// one huge line costs no memory and the lines after it are still read.
package lineread

import (
	"bufio"
	"errors"
)

// Read reads one line, its newline included. A line of more than max
// bytes is read to its end and dropped: line is nil and tooLong true. err
// is the reader's (io.EOF after the last line).
func Read(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong && len(line)+len(chunk) > max {
			tooLong, line = true, nil
		}
		if !tooLong {
			line = append(line, chunk...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return line, tooLong, err
		}
	}
}
