package cli

import (
	"testing"

	"github.com/mneme-dev/mneme/memory"
)

// TestImportInterruptedMessage: what an interrupted import tells, from a
// file (whose lines were counted) and from stdin.
func TestImportInterruptedMessage(t *testing.T) {
	for _, tc := range []struct {
		st    memory.ImportStats
		total int
		want  string
	}{
		{memory.ImportStats{Lines: 2500, Imported: 2000}, 5000,
			"import interrupted: 2,000 of ~5,000 messages are stored; the keyword index is behind them, and the next mneme command catches it up; run the same command again to resume: messages already imported are skipped"},
		{memory.ImportStats{Lines: 4100, Imported: 1200, Unchanged: 2800}, 1234567,
			"import interrupted: 4,000 of ~1,234,567 messages are stored (2,800 of them were already there); the keyword index is behind them, and the next mneme command catches it up; run the same command again to resume: messages already imported are skipped"},
		{memory.ImportStats{Lines: 2500, Imported: 2000}, -1,
			"import interrupted: 2,000 messages are stored (2,500 lines read); the keyword index is behind them, and the next mneme command catches it up; run the same command again to resume: messages already imported are skipped"},
		{memory.ImportStats{}, 5000,
			"import interrupted: 0 of ~5,000 messages are stored; run the same command again to resume: messages already imported are skipped"},
	} {
		if got := importInterrupted(tc.st, tc.total); got != tc.want {
			t.Errorf("importInterrupted(%+v, %d) =\n%q\nwant\n%q", tc.st, tc.total, got, tc.want)
		}
	}
}
