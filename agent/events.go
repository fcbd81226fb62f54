package agent

import (
	"strings"

	"github.com/mneme-dev/mneme/tools"
)

// Event is something that happened during a run. The concrete types below
// are the only events; a consumer switches on them.
type Event interface{ isEvent() }

// ContentDelta is a piece of the answer text as it streams.
type ContentDelta struct{ Text string }

// ThinkingDelta is a piece of the model's thinking as it streams.
type ThinkingDelta struct{ Text string }

// ToolCallEvent says the model called a tool; the call runs next.
type ToolCallEvent struct{ Call ToolActivity }

// ToolResultEvent carries a finished tool call and its result.
type ToolResultEvent struct{ Call ToolActivity }

// RecallEvent lists the saved notes put into the system prompt for this
// run (automatic recall), so the user can see what the model was told.
type RecallEvent struct{ Memories []Memory }

// NoticeEvent is something the user should know that is not an error,
// such as tools being unavailable with the model. A Passing notice says
// what holds the run up (a wait for another mneme's answer) and is over
// once the run goes on.
type NoticeEvent struct {
	Text    string
	Passing bool
}

// CompactingEvent says the oldest messages of the model history are being
// summarised before the request is sent.
type CompactingEvent struct{ Messages int }

// CompactedEvent says the model history was compacted: messages
// FirstSeq..LastSeq are now Summary (made after message AtSeq). The
// messages themselves stay stored.
type CompactedEvent struct {
	Summary                  string
	FirstSeq, LastSeq, AtSeq int
}

// DoneEvent ends a run that finished or was interrupted.
type DoneEvent struct{ Result Result }

// ErrorEvent ends a run that failed. What was written so far is stored.
type ErrorEvent struct {
	Err    error
	Result Result
}

func (ContentDelta) isEvent()    {}
func (ThinkingDelta) isEvent()   {}
func (ToolCallEvent) isEvent()   {}
func (ToolResultEvent) isEvent() {}
func (NoticeEvent) isEvent()     {}
func (RecallEvent) isEvent()     {}
func (CompactingEvent) isEvent() {}
func (CompactedEvent) isEvent()  {}
func (DoneEvent) isEvent()       {}
func (ErrorEvent) isEvent()      {}

// ToolActivity describes one tool call and, once run (Done), its outcome:
// the result, or the error the model was sent, and the notes the call
// changed. Summary words it for a person.
type ToolActivity = tools.Activity

// NoteRef names a note a tool call changed, and how (ToolActivity.Notes).
type NoteRef = tools.NoteRef

// What a tool call did to a note (NoteRef.Action).
const (
	NoteSaved   = tools.NoteSaved
	NoteUpdated = tools.NoteUpdated
	NoteDeleted = tools.NoteDeleted
)

// Citation is a document passage a tool call gave the model
// (ToolActivity.Citations), numbered as the answer cites it ([N]).
type Citation = tools.Citation

// StoredCitations are the citations of a stored tool message (role tool):
// those of a file_search result, none for any other tool.
func StoredCitations(toolName, content string) []Citation {
	return tools.StoredCitations(toolName, content)
}

// Result summarises a run.
type Result struct {
	ConversationID string `json:"conversation_id"`
	// Turn is the number of the conversation's turn this run answered.
	Turn        int            `json:"turn,omitempty"`
	Answer      string         `json:"answer"`
	ToolCalls   []ToolActivity `json:"tool_calls"`
	Model       string         `json:"model"`
	Interrupted bool           `json:"interrupted,omitempty"`
	// ContextTokens is the size of the last request plus its answer, as
	// Ollama counted it (prompt_eval_count + eval_count); estimated when
	// mneme cut the answer (max_answer_tokens) before Ollama counted.
	ContextTokens int `json:"context_tokens"`
	// MemoriesUsed are the saved notes recalled into the system prompt.
	MemoriesUsed []Memory `json:"memories_used"`
	// ContextWindow is the context, in tokens, requests are budgeted for
	// (0 without compaction).
	ContextWindow int `json:"context_window,omitempty"`
	// Compacted says the model history was compacted into a new summary
	// before this run's request.
	Compacted bool `json:"compacted"`
	// Dropped counts old messages left out of this run's request because
	// they could not be summarised (they stay stored).
	Dropped int `json:"dropped_messages,omitempty"`
	// StepLimitReached says the model still called tools on the last model
	// call the step limit allowed: the run stopped without a final answer.
	StepLimitReached bool `json:"step_limit_reached,omitempty"`
	// Cut says an answer stopped at a length limit (max_answer_tokens, or
	// the model's own num_predict): it is kept as far as it got, stored as
	// interrupted.
	Cut bool `json:"cut,omitempty"`
	// Truncated says a request of this run filled the whole context, as
	// Ollama counted it: Ollama cut it to fit, so the model did not see
	// all of it. The user is told (a NoticeEvent), once a run.
	Truncated bool `json:"truncated,omitempty"`
	// estimated: ContextTokens is mneme's estimate, not Ollama's count.
	estimated bool
}

// NoAnswer says the run ended as asked but the model's final reply was
// empty: neither stopped, nor cut, nor out of steps, all of which say why.
func (r Result) NoAnswer() bool {
	return strings.TrimSpace(r.Answer) == "" && !r.Interrupted && !r.Cut && !r.StepLimitReached
}

// Alike is the line that counts n tool calls folded into the one before,
// which they failed like (ToolActivity.FailedLike).
func Alike(n int) string { return tools.Alike(n) }
