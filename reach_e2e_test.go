package main

import (
	"database/sql"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/internal/syncserver"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/syncer"
)

// TestSearchDateOutOfRange: a date the index cannot hold is a usage error
// naming the range, not an error from the search engine.
func TestSearchDateOutOfRange(t *testing.T) {
	d := newDevice(t, closedPort(t))
	d.mustOK("", "import", writeFile(t, "chat.jsonl", tripImport))
	for _, args := range [][]string{{"--since", "0000-01-01"}, {"--until", "9999-12-31"}, {"--since", "1500-06-01T00:00:00Z"}} {
		r := d.mneme("", append(append([]string{"search"}, args...), "lisbon")...)
		if r.code != 2 || !strings.Contains(r.stderr, "out of range: want a date from 1678-01-01 to 2261-12-31") ||
			strings.Contains(r.stderr, "unsupported date range") {
			t.Errorf("search %v: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	// Ollama down: the search still answers, by keyword, and says so.
	if r := d.mneme("", "search", "--since", "2000-01-01", "lisbon"); r.code != 0 ||
		!strings.Contains(r.stderr, "search by meaning is unavailable, results are by keyword only: cannot reach Ollama") {
		t.Fatalf("a date in range: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestChatNegativeTurn: --turn -3 says turns are numbered from 1, not that
// --resume is missing.
func TestChatNegativeTurn(t *testing.T) {
	d := newDevice(t, closedPort(t))
	r := d.mneme("", "--continue", "--turn", "-3")
	if r.code != 2 || !strings.Contains(r.stderr, "--turn -3: turns are numbered from 1") || strings.Contains(r.stderr, "needs --resume") {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
	// --turn 0 is not "no turn": it is said as -3 is.
	if r := d.mneme("", "--continue", "--turn", "0"); r.code != 2 || !strings.Contains(r.stderr, "--turn 0: turns are numbered from 1") {
		t.Fatalf("--turn 0: exit %d, stderr %q", r.code, r.stderr)
	}
	// -c and --resume name two conversations.
	if r := d.mneme("", "-c", "--resume", "01a2b3c4"); r.code != 2 || !strings.Contains(r.stderr, "give one of them") {
		t.Fatalf("-c with --resume: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestSyncStatusErrorOnOneLine: a last error spanning several lines (as
// the sync driver writes them) is shown on the one "last error" line.
func TestSyncStatusErrorOnOneLine(t *testing.T) {
	srv := syncserver.New(t)
	srv.Token = e2eToken
	d := syncDevice(t, fakeollama.New(t), srv)
	d.syncNow()
	path := filepath.Join(d.home, "data", syncer.SyncStateFileName)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var st map[string]any
	if err := json.Unmarshal(data, &st); err != nil {
		t.Fatal(err)
	}
	st["state"], st["last_error"] = syncer.SyncError, "sync failed: stream error\n\nCaused by:\n    connection reset"
	if data, err = json.Marshal(st); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	out := d.mustOK("", "sync", "--status").stdout
	var errLine string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if !regexp.MustCompile(`^[a-z][a-z ]*: `).MatchString(l) {
			t.Fatalf("a line that is not a row: %q in\n%s", l, out)
		}
		if strings.HasPrefix(l, "last error:") {
			errLine = l
		}
	}
	if !strings.HasSuffix(errLine, " sync failed: stream error Caused by: connection reset") {
		t.Fatalf("status:\n%s", out)
	}
}

// TestNewerSchemaStillExportsAndDoctors: a database a newer mneme wrote
// (a migration this build does not know) can still be exported, and doctor
// runs and says exactly why it is read-only; a writing command still
// refuses, saying to upgrade.
func TestNewerSchemaStillExportsAndDoctors(t *testing.T) {
	d := newDevice(t, closedPort(t))
	d.mustOK("", "import", writeFile(t, "chat.jsonl", tripImport))
	db, err := sql.Open("libsql", "file:"+filepath.Join(d.home, "data", memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec(`INSERT INTO schema_migrations(version, applied_at) VALUES (999, 0)`); err != nil {
		t.Fatal(err)
	}
	db.Close()

	out := d.mustOK("", "export").stdout
	if !strings.Contains(strings.ToLower(out), "lisbon") {
		t.Fatalf("export of a newer schema:\n%s", out)
	}
	r := d.mneme("", "doctor")
	if r.code != 1 || !strings.Contains(r.stdout, "schema version 999 is unknown") || !strings.Contains(r.stdout, "upgrade mneme") ||
		!strings.Contains(r.stdout, "problem:") || !strings.Contains(r.stdout, "read-only") {
		t.Fatalf("doctor: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	if r := d.mneme("", "memory", "add", "x"); r.code == 0 || !strings.Contains(r.stderr, "upgrade mneme") {
		t.Fatalf("a write on a newer schema: %+v", r)
	}
}
