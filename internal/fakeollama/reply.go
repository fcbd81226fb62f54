package fakeollama

import (
	"cmp"
	"encoding/json"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ollama/ollama/api"
)

// Reply scripts one answer of POST /api/chat.
//
// A streamed reply is sent as NDJSON lines in this order: one line per
// Thinking chunk, one line per Content chunk, one line with all ToolCalls
// (if any), then the final line (the done line, or the StreamError line).
// A non-streaming request (stream=false) gets all of it concatenated into
// one JSON object.
type Reply struct {
	// Content chunks, streamed one NDJSON line each.
	Content []string
	// Thinking chunks, streamed before the content.
	Thinking []string
	// ToolCalls are sent together in one chunk after the content, as Ollama
	// does. Function.Index is set to each call's position.
	ToolCalls []api.ToolCall
	// RawToolCalls are sent verbatim, as the elements of message.tool_calls
	// of one more streamed line after ToolCalls: a hostile or broken model's
	// calls that api.ToolCall cannot hold, e.g.
	// {"function":{"name":"x","arguments":"not an object"}}. Streamed
	// replies only.
	RawToolCalls []json.RawMessage

	// Status, if non-zero, answers with this HTTP status and the body
	// {"error": Error} instead of a stream, e.g. 400 with
	// "registry.ollama.ai/library/x:latest does not support tools".
	Status int
	// Error is the message sent with Status.
	Error string

	// StreamError, if set, replaces the done line with {"error": StreamError}:
	// Ollama's mid-stream error. Non-streaming requests get HTTP 500.
	StreamError string
	// RawLine, if set, replaces the done line with these bytes as they are
	// (a newline added): a server's line that is not JSON, or one of 10 MB.
	RawLine string
	// DropAfter, if > 0, abruptly closes the connection after this many
	// lines (or after all chunks, if there are fewer), without a done line.
	// It takes precedence over Hold and StreamError.
	DropAfter int
	// Hold, after sending the chunks, leaves the stream open without a done
	// line until the client goes away (or the server closes). The
	// disconnection is counted by Server.Cancellations and reported on
	// Server.Cancelled.
	Hold bool
	// Stall, for a streamed reply, answers nothing at all, not even the
	// response headers, until the client goes away (or the server closes):
	// a server stuck before it starts answering. Counted and reported like
	// Hold.
	Stall bool
	// Gate, if non-nil, steps a stream deterministically: before each event
	// after the first line (each further line, the final line, or the drop)
	// the server receives from Gate. Send one value to release one event,
	// or close the channel to release the rest. Ignored when stream=false.
	Gate <-chan struct{}

	// PromptEvalCount and EvalCount are reported in the done line. Zero
	// means a rough count, as a real tokenizer's of English: the request's
	// messages at four characters a token plus four a message for the
	// template, and its tool definitions (the JSON) at four characters a
	// token; the number of words in the reply's thinking and content (plus
	// one per tool call).
	PromptEvalCount, EvalCount int
	// DoneReason is reported in the done line (default "stop").
	DoneReason string
}

// Say returns a Reply that streams text word by word (see [SplitWords]).
func Say(text string) Reply {
	return Reply{Content: SplitWords(text)}
}

// SplitWords splits text into chunks of one word each, with the whitespace
// before a word kept in its chunk, so that concatenating the chunks gives
// text back: "Hi there\n" -> ["Hi", " there", "\n"].
func SplitWords(text string) []string {
	var out []string
	start := 0
	for i := 1; i < len(text); i++ {
		if isSpace(text[i]) && !isSpace(text[i-1]) {
			out = append(out, text[start:i])
			start = i
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }

// ToolCall builds a tool call for Reply.ToolCalls. The arguments are stored
// in sorted key order, so the wire format is deterministic.
func ToolCall(name string, args map[string]any) api.ToolCall {
	a := api.NewToolCallFunctionArguments()
	keys := make([]string, 0, len(args))
	for k := range args {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		a.Set(k, args[k])
	}
	return api.ToolCall{Function: api.ToolCallFunction{Name: name, Arguments: a}}
}

// echo is the reply used when nothing is scripted: "You said: <last user
// message>", streamed word by word.
func echo(req api.ChatRequest) Reply {
	last := ""
	for _, m := range req.Messages {
		if m.Role == "user" {
			last = m.Content
		}
	}
	return Say("You said: " + last)
}

// toolCalls returns the reply's tool calls with Ollama's indexes set.
func (rep Reply) toolCalls() []api.ToolCall {
	calls := slices.Clone(rep.ToolCalls)
	for i := range calls {
		calls[i].Function.Index = i
	}
	return calls
}

// rawCallsLine is a streamed line carrying RawToolCalls.
type rawCallsLine struct {
	Model     string    `json:"model"`
	CreatedAt time.Time `json:"created_at"`
	Message   struct {
		Role      string            `json:"role"`
		Content   string            `json:"content"`
		ToolCalls []json.RawMessage `json:"tool_calls"`
	} `json:"message"`
	Done bool `json:"done"`
}

// chunks returns the streamed lines before the final one.
func (rep Reply) chunks(model string) []any {
	now := time.Now().UTC()
	line := func(m api.Message) api.ChatResponse {
		m.Role = "assistant"
		return api.ChatResponse{Model: model, CreatedAt: now, Message: m}
	}
	var out []any
	for _, t := range rep.Thinking {
		out = append(out, line(api.Message{Thinking: t}))
	}
	for _, c := range rep.Content {
		out = append(out, line(api.Message{Content: c}))
	}
	if len(rep.ToolCalls) > 0 {
		out = append(out, line(api.Message{ToolCalls: rep.toolCalls()}))
	}
	if len(rep.RawToolCalls) > 0 {
		raw := rawCallsLine{Model: model, CreatedAt: now}
		raw.Message.Role = "assistant"
		raw.Message.ToolCalls = rep.RawToolCalls
		out = append(out, raw)
	}
	return out
}

// done returns the final line of a stream; msg is the message it carries
// (empty when streaming, everything when stream=false).
func (rep Reply) done(req api.ChatRequest, msg api.Message) api.ChatResponse {
	prompt := rep.PromptEvalCount
	if prompt == 0 {
		for _, m := range req.Messages {
			prompt += utf8.RuneCountInString(m.Content)/4 + 4
		}
		if len(req.Tools) > 0 {
			b, _ := json.Marshal(req.Tools)
			prompt += utf8.RuneCountInString(string(b)) / 4
		}
		prompt = max(prompt, 1)
	}
	eval := rep.EvalCount
	if eval == 0 {
		eval = len(strings.Fields(strings.Join(rep.Thinking, "")+" "+strings.Join(rep.Content, ""))) + len(rep.ToolCalls)
		eval = max(eval, 1)
	}
	msg.Role = "assistant"
	return api.ChatResponse{
		Model:      req.Model,
		CreatedAt:  time.Now().UTC(),
		Message:    msg,
		Done:       true,
		DoneReason: cmp.Or(rep.DoneReason, "stop"),
		Metrics: api.Metrics{
			TotalDuration:      time.Millisecond + time.Duration(prompt+10*eval)*time.Millisecond,
			LoadDuration:       time.Millisecond,
			PromptEvalCount:    prompt,
			PromptEvalDuration: time.Duration(prompt) * time.Millisecond,
			EvalCount:          eval,
			EvalDuration:       time.Duration(10*eval) * time.Millisecond,
		},
	}
}

// whole returns the reply as one non-streaming response.
func (rep Reply) whole(req api.ChatRequest) api.ChatResponse {
	msg := api.Message{
		Content:  strings.Join(rep.Content, ""),
		Thinking: strings.Join(rep.Thinking, ""),
	}
	if len(rep.ToolCalls) > 0 {
		msg.ToolCalls = rep.toolCalls()
	}
	return rep.done(req, msg)
}
