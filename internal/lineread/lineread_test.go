package lineread

import (
	"bufio"
	"io"
	"strings"
	"testing"
)

// A line over the bound is dropped whole, and the lines around it are
// read as they are, the last one without its newline too.
func TestReadDropsALongLineAndGoesOn(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	br := bufio.NewReaderSize(strings.NewReader("first\n"+long+"\nthird"), 16)
	type got struct {
		line    string
		tooLong bool
		err     error
	}
	var all []got
	for {
		line, tooLong, err := Read(br, 1000)
		all = append(all, got{string(line), tooLong, err})
		if err != nil {
			break
		}
	}
	want := []got{{"first\n", false, nil}, {"", true, nil}, {"third", false, io.EOF}}
	if len(all) != len(want) {
		t.Fatalf("read %+v", all)
	}
	for i := range want {
		if all[i] != want[i] {
			t.Fatalf("line %d: %+v, want %+v", i, all[i], want[i])
		}
	}
}
