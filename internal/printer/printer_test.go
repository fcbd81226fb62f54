package printer

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/agent"
)

// TestAskFoldsCallsThatFailedAlike: `mneme ask` prints a run of tool calls
// that failed the same way as one line and a count, as the chat does (a
// reply of 200 calls printed 184 identical lines), whatever tool they
// called; a call that failed otherwise, or text between, ends the run.
func TestAskFoldsCallsThatFailedAlike(t *testing.T) {
	var out, errw bytes.Buffer
	p := NewAnswer(&out, &errw, false)
	call := func(name, err string) {
		act := agent.ToolActivity{Name: name, Args: `{"query":"x"}`, Error: err, Done: true}
		p.Emit(agent.ToolCallEvent{Call: act})
		p.Emit(agent.ToolResultEvent{Call: act})
	}
	call("memory_search", "")
	for range 5 {
		call("memory_search", "not run: at most 16 tool calls are run per reply")
	}
	call("memory_save", "not run: at most 16 tool calls are run per reply") // another tool, the same failure
	call("tool_7", `unknown tool "tool_7"`)
	p.Emit(agent.ContentDelta{Text: "Done."})
	call("memory_save", "not run: at most 16 tool calls are run per reply")
	call("memory_save", "not run: at most 16 tool calls are run per reply")
	p.Finish()
	lines := strings.Split(strings.TrimSpace(errw.String()), "\n")
	want := []string{"searched memory", "memory_search failed", "… and 5 more calls that failed the same way", `unknown tool "tool_7"`,
		"memory_save failed", "… and 1 more call that failed the same way"}
	if len(lines) != len(want) {
		t.Fatalf("stderr:\n%s", errw.String())
	}
	for i, w := range want {
		if !strings.Contains(lines[i], w) {
			t.Errorf("line %d = %q, want %q in it", i+1, lines[i], w)
		}
	}
	if out.String() != "Done.\n" {
		t.Errorf("stdout %q", out.String())
	}
}
