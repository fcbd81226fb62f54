package agent

import (
	"encoding/json"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/memory"
)

// toAPI maps stored messages to the messages sent to the model.
func toAPI(msgs []memory.Message) []api.Message {
	out := make([]api.Message, 0, len(msgs))
	for _, m := range msgs {
		if m.Role == memory.RoleAssistant && m.Status == memory.StatusInterrupted && m.Content == "" && len(m.ToolCalls) == 0 {
			continue // an answer stopped before its first word: nothing was said
		}
		am := api.Message{Role: string(m.Role), Content: m.Content, ToolCallID: m.ToolCallID, ToolName: m.ToolName}
		for i, c := range m.ToolCalls {
			args := api.NewToolCallFunctionArguments()
			if len(c.Arguments) > 0 {
				// Stored arguments were valid JSON when written; a bad row
				// still goes out as a call with no arguments.
				_ = json.Unmarshal(c.Arguments, &args)
			}
			am.ToolCalls = append(am.ToolCalls, api.ToolCall{
				ID:       c.ID,
				Function: api.ToolCallFunction{Index: i, Name: c.Name, Arguments: args},
			})
		}
		out = append(out, am)
	}
	return out
}

// fromAPICalls maps the model's tool calls to stored ones, giving each an
// id when the server sent none so results can be paired with calls. Calls
// that must not run (oversized or malformed arguments) have a reason in
// refused, at the same index; their stored arguments are bounded.
func fromAPICalls(calls []api.ToolCall) (out []memory.ToolCall, refused []string) {
	out = make([]memory.ToolCall, 0, len(calls))
	refused = make([]string, len(calls))
	for i, c := range calls {
		id := c.ID
		if id == "" {
			id = "call_" + memory.NewID()
		}
		args, err := json.Marshal(c.Function.Arguments)
		if err != nil || string(args) == "null" {
			args = []byte("{}")
		}
		mc := memory.ToolCall{ID: id, Name: c.Function.Name, Arguments: args}
		if raw, ok := c.Function.Arguments.Get(notAnObject); ok && c.Function.Arguments.Len() == 1 {
			s, _ := raw.(string)
			refused[i] = argumentsNotAnObject(s)
			mc.Arguments, _ = json.Marshal(map[string]string{"arguments_not_an_object": clip(s, storedArgsBytes)})
			out = append(out, mc)
			continue
		}
		refused[i] = boundCall(&mc)
		out = append(out, mc)
	}
	return out, refused
}
