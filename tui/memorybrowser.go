package tui

import (
	"encoding/json"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/tools"
)

// WrittenNoteID returns the id of the note a successful memory_save or
// memory_update call wrote, so that the root can collect the notes of the
// current answer for SetFresh.
func WrittenNoteID(call agent.ToolActivity) (string, bool) {
	if call.Error != "" || call.Result == "" || (call.Name != tools.MemorySaveName && call.Name != tools.MemoryUpdateName) {
		return "", false
	}
	var out tools.NoteOut
	if err := json.Unmarshal([]byte(call.Result), &out); err != nil || out.NoteID == "" {
		return "", false
	}
	return out.NoteID, true
}
