package agent

import (
	"encoding/json"
	"fmt"
	"unicode/utf8"

	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
)

// The model's reach: how much one reply may make mneme do, echo and store.
const (
	// MaxToolCallsPerReply bounds the tool calls run for one model reply;
	// the calls past it are answered with an error result and not run.
	MaxToolCallsPerReply = 16
	// maxCallsKept bounds the calls of one reply that are stored and
	// answered (those past MaxToolCallsPerReply with an error result);
	// the calls past it are left out, and the model told how many.
	maxCallsKept = 256
	// MaxStepsLimit is the largest step limit (max_steps) accepted.
	MaxStepsLimit = 50
	// maxArgsBytes bounds a call's arguments: larger ones are not run, and
	// only their start is stored.
	maxArgsBytes = 64 << 10
	// storedArgsBytes is how much of oversized arguments is stored.
	storedArgsBytes = 1 << 10
	// maxEchoBytes bounds a tool error (which may quote the model's input)
	// stored and sent back to the model, and the arguments shown to the user.
	maxEchoBytes = 2 << 10
)

// clip returns s cut to at most n bytes (at a character boundary), with
// the cut marked: "…[cut: 1,048,576 bytes]".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	k := n
	for k > 0 && !utf8.RuneStart(s[k]) {
		k--
	}
	return s[:k] + "…[cut: " + text.Thousands(len(s)-k) + " bytes]"
}

// boundCall bounds a call's arguments before it is stored: oversized
// arguments are replaced by an object holding their start, marked cut, and
// the returned reason says why the call is not run.
func boundCall(c *memory.ToolCall) (reason string) {
	if len(c.Arguments) <= maxArgsBytes {
		return ""
	}
	size := len(c.Arguments)
	c.Arguments, _ = json.Marshal(map[string]string{"cut_arguments": clip(string(c.Arguments), storedArgsBytes)})
	return fmt.Sprintf("not run: the arguments are %s bytes, more than the %s allowed", text.Thousands(size), text.Thousands(maxArgsBytes))
}
