package tools

import (
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/sanitize"
)

// TestAnotherToolsLineKeepsItsErrorWhateverItsArguments: arguments that
// open an escape sequence and never close it do not take the call's error
// off the line the user reads once it is sanitised for the screen.
func TestAnotherToolsLineKeepsItsErrorWhateverItsArguments(t *testing.T) {
	a := Activity{Name: "weather", Args: "{\"city\": \"\x1b]8;;http://x\"}", Done: true, Error: "unknown tool"}
	if shown := sanitize.Line(a.Summary()); !strings.Contains(shown, "✗ unknown tool") {
		t.Fatalf("the call shows as %q", shown)
	}
}
