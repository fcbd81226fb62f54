package tui

import (
	"testing"

	"github.com/mneme-dev/mneme/agent"
)

func TestWrittenNoteID(t *testing.T) {
	tests := []struct {
		call agent.ToolActivity
		want string
	}{
		{agent.ToolActivity{Name: "memory_save", Result: `{"note_id":"0193abcd","status":"saved","content":"x"}`}, "0193abcd"},
		{agent.ToolActivity{Name: "memory_update", Result: `{"note_id":"0193ef01","status":"updated","content":"y"}`}, "0193ef01"},
		{agent.ToolActivity{Name: "memory_delete", Result: `{"note_id":"0193ef01","status":"deleted"}`}, ""},
		{agent.ToolActivity{Name: "memory_save", Error: "note is empty"}, ""},
		{agent.ToolActivity{Name: "memory_save", Result: `not json`}, ""},
		{agent.ToolActivity{Name: "memory_search", Result: `{"results":[]}`}, ""},
	}
	for _, tt := range tests {
		got, ok := WrittenNoteID(tt.call)
		if got != tt.want || ok != (tt.want != "") {
			t.Errorf("WrittenNoteID(%s %s) = %q, %v; want %q", tt.call.Name, tt.call.Result, got, ok, tt.want)
		}
	}
}
