package cli

import (
	"testing"

	"github.com/mneme-dev/mneme/memory"
)

// TestImportInterruptedMessage: what an interrupted import tells, from a
// file (whose lines were counted) and from stdin.
func TestImportInterruptedMessage(t *testing.T) {
	for _, tc := range []struct {
		st               memory.ImportStats
		total, unindexed int
		want             string
	}{
		{memory.ImportStats{Lines: 2500, Imported: 2000}, 5000, 0,
			"import interrupted: 2,000 of ~5,000 messages are stored; run the same command again to resume: messages already imported are skipped"},
		{memory.ImportStats{Lines: 4100, Imported: 1200, Unchanged: 2800}, 1234567, 0,
			"import interrupted: 4,000 of ~1,234,567 messages are stored (2,800 of them were already there); run the same command again to resume: messages already imported are skipped"},
		{memory.ImportStats{Lines: 2500, Imported: 2000}, -1, 0,
			"import interrupted: 2,000 messages are stored (2,500 lines read); run the same command again to resume: messages already imported are skipped"},
		// The keyword index follows a batch or more behind: said, as the
		// next command takes its time.
		{memory.ImportStats{Lines: 34000, Imported: 34000}, 60000, 15370,
			"import interrupted: 34,000 of ~60,000 messages are stored; 15,370 turns wait to be indexed for keyword search, which the next mneme command does; run the same command again to resume: messages already imported are skipped"},
	} {
		if got := importInterrupted(tc.st, tc.total, tc.unindexed); got != tc.want {
			t.Errorf("importInterrupted(%+v, %d, %d) =\n%q\nwant\n%q", tc.st, tc.total, tc.unindexed, got, tc.want)
		}
	}
}
