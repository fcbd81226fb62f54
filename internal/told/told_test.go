package told

import (
	"os"
	"path/filepath"
	"testing"
)

// A notice is given once per data dir and model ("m" is "m:latest"); when
// nothing can be recorded it is given again rather than never.
func TestANoticeIsGivenOnce(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		kind, model string
		want        bool
	}{{"no-tools", "m", true}, {"no-tools", "m:latest", false}, {"no-tools", "other", true}, {"other-kind", "m", true}} {
		if got, err := First(dir, c.kind, c.model); err != nil || got != c.want {
			t.Fatalf("First(%s, %s) = %v, %v; want %v", c.kind, c.model, got, err, c.want)
		}
	}
	blocked := filepath.Join(dir, "file")
	if err := os.WriteFile(blocked, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := First(blocked, "no-tools", "m"); !got || err == nil {
		t.Fatalf("with nowhere to record: %v, %v", got, err)
	}
}
