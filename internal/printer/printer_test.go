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

// TestSourcesListAPassageOnce: a passage recalled into the prompt and
// cited by the answer as [1] is listed once, as [1] (it was listed twice,
// the second time as recalled).
func TestSourcesListAPassageOnce(t *testing.T) {
	lease := agent.Citation{N: 1, DocumentID: "d1", Chunk: 3, Title: "Lease agreement", Path: "/home/u/lease.docx"}
	recalled := lease
	recalled.N = 0
	other := agent.Citation{DocumentID: "d2", Chunk: 1, Title: "Boiler manual", Path: "/home/u/boiler.pdf"}
	res := agent.Result{
		Answer:       "The notice period is two months [1].",
		ToolCalls:    []agent.ToolActivity{{Name: "file_search", Done: true, Citations: []agent.Citation{lease}}},
		MemoriesUsed: []agent.Memory{{Citation: &recalled}, {Citation: &other}},
	}
	var out, errw bytes.Buffer
	NewAnswer(&out, &errw, false).Sources(res)
	if strings.Count(out.String(), "Lease agreement") != 1 || !strings.Contains(out.String(), "[1] Lease agreement") ||
		!strings.Contains(out.String(), "↺ Boiler manual") {
		t.Fatalf("sources:\n%s", out.String())
	}
}
