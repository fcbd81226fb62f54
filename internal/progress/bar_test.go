package progress

import (
	"strings"
	"testing"
)

// TestImportBarEndsWhereTheImportDid: a last reading that came too soon
// after the one before to be drawn is drawn at the end, so the bar does
// not stay at "1,801 of 2,000" once the import is done.
func TestImportBarEndsWhereTheImportDid(t *testing.T) {
	var b strings.Builder
	p := &Import{w: &b, tty: true, Total: 2000}
	p.Report(1801, 0)
	p.Report(2000, 0) // within 100 ms of the one before
	p.End()
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\r")
	if last := lines[len(lines)-1]; !strings.Contains(last, "2,000 of 2,000 conversations") {
		t.Fatalf("the bar ended at %q", last)
	}
}
