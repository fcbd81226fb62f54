package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
)

// summaryInstructions is the system prompt of a summary request.
const summaryInstructions = "You keep a running summary of a conversation between a user and an assistant, " +
	"so that the assistant can go on without the older messages.\n" +
	"Write the updated summary: merge the previous summary (if any) with the new messages.\n" +
	"Keep every fact, decision, name, number and date, the open tasks and questions, and the user's preferences and instructions.\n" +
	"Drop greetings, thanks, filler and small talk.\n" +
	"Write short plain sentences or bullet points in the language of the conversation, at most %d words. " +
	"Reply with the summary only."

// maxSummaryCalls bounds the model calls of one compaction; messages left
// over are summarised on a later turn.
const maxSummaryCalls = 4

// summaryReserve is room kept in a summary request for the template.
const summaryReserve = 32

// summarise merges prev with the evicted messages into a new summary, in
// as many model calls as their size needs (at most maxSummaryCalls). It
// returns the stored summary and how many of evicted it covers.
func (a *Agent) summarise(ctx context.Context, req Request, prev memory.Summary, evicted []memory.Message, window, atSeq int) (memory.Summary, int, error) {
	cfg := a.compact.cfg
	model := firstNonEmpty(cfg.SummaryModel, a.model)
	instructions := fmt.Sprintf(summaryInstructions, cfg.SummaryTokens*3/4)
	text := prev.Text
	covered := 0
	for calls := 0; covered < len(evicted) && calls < maxSummaryCalls; calls++ {
		budget := window - cfg.SummaryTokens - estimateText(instructions) - estimateText(text) - summaryReserve
		n, chunk := summaryChunk(evicted[covered:], max(budget, 64)*charsPerToken)
		next, err := a.summaryCall(ctx, model, instructions, text, chunk)
		if err != nil {
			if covered == 0 {
				return memory.Summary{}, 0, err
			}
			a.log.Warn("summary stopped part way; the rest waits for the next turn", "conversation", req.ConversationID, "err", err)
			break
		}
		text, covered = next, covered+n
	}
	first := evicted[0].Seq
	if prev.ID != "" {
		first = prev.FirstSeq
	}
	sum, err := a.compact.summaries.SaveSummary(context.WithoutCancel(ctx), req.UserID, memory.Summary{
		ConversationID: req.ConversationID, FirstSeq: first, LastSeq: evicted[covered-1].Seq, AtSeq: atSeq,
		Text: text, Model: model,
	})
	if err != nil {
		return memory.Summary{}, 0, fmt.Errorf("store summary: %w", err)
	}
	return sum, covered, nil
}

// summaryChunk renders the first messages of msgs that fit in maxChars (at
// least one unit) for a summary request, and says how many it took. A
// tool call and its results form one unit and are never split; a unit
// longer than maxChars is cut.
func summaryChunk(msgs []memory.Message, maxChars int) (int, string) {
	var b strings.Builder
	n := 0
	for n < len(msgs) {
		end := n + 1
		for end < len(msgs) && msgs[end].Role == memory.RoleTool {
			end++
		}
		var unit strings.Builder
		for _, m := range msgs[n:end] {
			unit.WriteString(renderForSummary(m))
		}
		u := unit.String()
		if b.Len() > 0 && b.Len()+len(u) > maxChars {
			break
		}
		if len(u) > maxChars {
			u = text.Prefix(u, maxChars) + "…\n"
		}
		b.WriteString(u)
		n = end
	}
	return n, b.String()
}

func renderForSummary(m memory.Message) string {
	var b strings.Builder
	content := strings.TrimSpace(m.Content)
	switch m.Role {
	case memory.RoleUser:
		fmt.Fprintf(&b, "User: %s\n", content)
	case memory.RoleAssistant:
		if content != "" {
			fmt.Fprintf(&b, "Assistant: %s", content)
			if m.Status == memory.StatusInterrupted {
				b.WriteString(" (interrupted)")
			}
			b.WriteByte('\n')
		}
		for _, c := range m.ToolCalls {
			fmt.Fprintf(&b, "Assistant called tool %s with %s\n", c.Name, string(c.Arguments))
		}
	case memory.RoleTool:
		fmt.Fprintf(&b, "Tool %s returned: %s\n", m.ToolName, content)
	default:
		fmt.Fprintf(&b, "%s: %s\n", m.Role, content)
	}
	return b.String()
}

// summaryCall asks the model for the summary of prev plus the messages in chunk.
func (a *Agent) summaryCall(ctx context.Context, model, instructions, prev, chunk string) (string, error) {
	cfg := a.compact.cfg
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	if prev == "" {
		prev = "(none)"
	}
	stream := false
	req := &api.ChatRequest{
		Model: model, Stream: &stream, Options: a.oneShotOptions(ctx, cfg.SummaryTokens),
		Messages: []api.Message{
			{Role: string(memory.RoleSystem), Content: instructions},
			{Role: string(memory.RoleUser), Content: "Previous summary:\n" + prev + "\n\nNew messages:\n" + chunk},
		},
	}
	var out strings.Builder
	err := a.client.Chat(ctx, req, func(r api.ChatResponse) error {
		out.WriteString(r.Message.Content)
		return nil
	})
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return "", fmt.Errorf("no summary within %s", cfg.Timeout)
		}
		return "", ExplainError(err, a.host, model)
	}
	summary := stripThinking(out.String())
	if summary == "" {
		return "", ErrEmptySummary
	}
	// Bounded here too, not only by num_predict, which a server may not
	// honour: a summary that grew with each one (each holds the last)
	// would soon fill the context itself and be compacted every turn.
	return text.Cut(summary, cfg.SummaryTokens*maxSummaryChars), nil
}

// maxSummaryChars is how many characters a token of summary_tokens allows
// a summary (English runs about four characters a token); plan reserves
// room for that many.
const maxSummaryChars = 4

// oneShotOptions are the options of a summary or title request: the
// chat's context (num_ctx), no randomness, and a bounded length.
func (a *Agent) oneShotOptions(ctx context.Context, numPredict int) map[string]any {
	return map[string]any{"temperature": 0, "num_predict": numPredict, "num_ctx": a.contextWindow(ctx)}
}

// stripThinking drops a leading <think>…</think> block that some models
// write inline, and surrounding space.
func stripThinking(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "<think>") {
		if i := strings.Index(s, "</think>"); i >= 0 {
			s = strings.TrimSpace(s[i+len("</think>"):])
		}
	}
	return s
}

// GenerateClient is the Ollama call titles are written with; *api.Client has it.
type GenerateClient interface {
	Generate(ctx context.Context, req *api.GenerateRequest, fn api.GenerateResponseFunc) error
}

// titleInstructions asks for a title as JSON (the request's format pins
// the shape, so a reply that is not such JSON is no title).
const titleInstructions = "Write a title for the conversation below: at most six words that name its topic, " +
	"no quotes, no final punctuation. Reply as JSON: {\"title\": \"...\"}.\n\n"

// titleFormat is the JSON schema of a title reply.
var titleFormat = json.RawMessage(`{"type":"object","properties":{"title":{"type":"string"}},"required":["title"]}`)

// titleTokens bounds a title reply.
const titleTokens = 32

// titleSourceRunes bounds each text a title is written from.
const titleSourceRunes = 1500

// Retitle asks the model for the conversation's title from its first
// exchange, once: nothing happens when titles are not configured, the
// model was asked before, the user named the conversation, or there is no
// answered prompt yet. It reports whether the title changed. A failure is
// logged and recorded as the one attempt: the title stays as it was.
func (a *Agent) Retitle(ctx context.Context, userID, conversationID string) (bool, error) {
	if a.compact == nil || a.compact.titles == nil {
		return false, nil
	}
	// The title state first: most conversations need no messages read.
	if !a.needsTitle(ctx, Request{UserID: userID, ConversationID: conversationID}) {
		return a.retitleAfterSummary(ctx, Request{UserID: userID, ConversationID: conversationID})
	}
	all, err := a.store.Messages(ctx, userID, conversationID)
	if err != nil {
		return false, fmt.Errorf("retitle: %w", err)
	}
	return a.retitle(ctx, Request{UserID: userID, ConversationID: conversationID}, all), nil
}

// needsTitle reports whether the model may still title the conversation:
// the user has not named it and the model was not asked before.
func (a *Agent) needsTitle(ctx context.Context, req Request) bool {
	ts, err := a.compact.titles.ConversationTitle(ctx, req.UserID, req.ConversationID)
	if err != nil {
		a.log.Warn("title state unreadable", "conversation", req.ConversationID, "err", err)
		return false
	}
	return ts.Source != memory.TitleUser && ts.Seq == 0
}

// retitle titles from the first exchange in all (see Retitle).
func (a *Agent) retitle(ctx context.Context, req Request, all []memory.Message) bool {
	if a.compact.titles == nil || a.compact.gen == nil {
		return false
	}
	if !a.needsTitle(ctx, req) {
		return false
	}
	var prompt, answer *memory.Message
	for i := range all {
		m := &all[i]
		switch {
		case prompt == nil && m.Role == memory.RoleUser && strings.TrimSpace(m.Content) != "":
			prompt = m
		case prompt != nil && m.Role == memory.RoleAssistant && strings.TrimSpace(m.Content) != "":
			answer = m
		}
		if answer != nil {
			break
		}
	}
	if answer == nil {
		return false
	}
	source := "User: " + text.Prefix(strings.TrimSpace(prompt.Content), titleSourceRunes) +
		"\nAssistant: " + text.Prefix(strings.TrimSpace(answer.Content), titleSourceRunes)
	return a.setTitle(ctx, req, source, answer.Seq)
}

// retitleAfterSummary titles the conversation again from its latest
// summary, when that is newer than the title and the topic has clearly
// changed: no word of the title is in the messages after it. It runs with
// Retitle, after an answer (the chat's), never before one: the answer
// waited for the title call.
func (a *Agent) retitleAfterSummary(ctx context.Context, req Request) (bool, error) {
	if a.compact.summaries == nil || a.compact.gen == nil {
		return false, nil
	}
	ts, err := a.compact.titles.ConversationTitle(ctx, req.UserID, req.ConversationID)
	if err != nil || ts.Source == memory.TitleUser {
		return false, err
	}
	sum, err := a.compact.summaries.LatestSummary(ctx, req.UserID, req.ConversationID)
	if errors.Is(err, memory.ErrNotFound) || (err == nil && sum.AtSeq <= ts.Seq) {
		return false, nil // no summary, or the title came after it
	}
	if err != nil {
		return false, fmt.Errorf("retitle: %w", err)
	}
	all, err := a.store.Messages(ctx, req.UserID, req.ConversationID)
	if err != nil {
		return false, fmt.Errorf("retitle: %w", err)
	}
	var kept []memory.Message
	for _, m := range all {
		if m.Seq > sum.LastSeq {
			kept = append(kept, m)
		}
	}
	if !topicChanged(ts.Title, kept) {
		// Checked against this summary: the next Retitle reads nothing
		// until a newer one (it read the whole conversation after every
		// answer).
		if _, err := a.compact.titles.SetModelTitle(ctx, req.UserID, req.ConversationID, "", sum.AtSeq); err != nil {
			return false, fmt.Errorf("retitle: %w", err)
		}
		return false, nil
	}
	var recent strings.Builder
	for _, m := range kept {
		if m.Role == memory.RoleUser || m.Role == memory.RoleAssistant {
			recent.WriteString(renderForSummary(m))
		}
	}
	source := "Summary of the earlier part: " + text.Prefix(sum.Text, titleSourceRunes) +
		"\nLatest messages:\n" + text.Prefix(recent.String(), titleSourceRunes)
	return a.setTitle(ctx, req, source, sum.AtSeq), nil
}

// topicChanged reports whether none of the title's words (of three letters
// or more) occur in the recent messages. A title without such words is
// never judged changed.
func topicChanged(title string, recent []memory.Message) bool {
	words := titleWords(title)
	if len(words) == 0 {
		return false
	}
	var text strings.Builder
	for _, m := range recent {
		text.WriteString(strings.ToLower(m.Content))
		text.WriteByte('\n')
	}
	s := text.String()
	for _, w := range words {
		if strings.Contains(s, w) {
			return false
		}
	}
	return true
}

func titleWords(title string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(strings.ToLower(title), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	}) {
		if len([]rune(w)) >= 3 && !titleStopWords[w] {
			out = append(out, w)
		}
	}
	return out
}

var titleStopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "about": true, "from": true, "how": true,
	"what": true, "your": true, "you": true, "this": true, "that": true, "help": true, "question": true,
}

// setTitle asks the model for a title of source and stores it (or only
// the attempt, when there is no usable title).
func (a *Agent) setTitle(ctx context.Context, req Request, source string, seq int) bool {
	title, err := a.titleCall(ctx, source)
	if err != nil {
		if ctx.Err() != nil {
			return false // interrupted: try again another time
		}
		a.log.Info("no title from the model", "conversation", req.ConversationID, "err", err)
	}
	changed, err := a.compact.titles.SetModelTitle(context.WithoutCancel(ctx), req.UserID, req.ConversationID, title, seq)
	if err != nil {
		a.log.Warn("title not stored", "conversation", req.ConversationID, "err", err)
	}
	return changed
}

// titleCall asks the title model for a title of source.
func (a *Agent) titleCall(ctx context.Context, source string) (string, error) {
	cfg := a.compact.cfg
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()
	model := firstNonEmpty(cfg.SummaryModel, a.model)
	stream := false
	var out strings.Builder
	err := a.compact.gen.Generate(ctx, &api.GenerateRequest{
		Model: model, Prompt: titleInstructions + source, Stream: &stream, Format: titleFormat,
		Options: a.oneShotOptions(ctx, titleTokens),
	}, func(r api.GenerateResponse) error {
		out.WriteString(r.Response)
		return nil
	})
	if err != nil {
		return "", ExplainError(err, a.host, model)
	}
	var reply struct {
		Title string `json:"title"`
	}
	if err := json.Unmarshal([]byte(stripThinking(out.String())), &reply); err != nil {
		return "", fmt.Errorf("%w: %q is not a JSON title", ErrEmptySummary, text.Prefix(out.String(), 80))
	}
	title := CleanTitle(reply.Title)
	if title == "" {
		return "", ErrEmptySummary
	}
	return title, nil
}

// CleanTitle makes a model's title safe to show and store: its first
// line, without control characters, quotes, Markdown marks or a "Title:"
// prefix, whitespace folded, at most 60 characters.
func CleanTitle(s string) string {
	// Escape sequences go whole: "\x1b]0;x\x07" leaves nothing, not "]0;x".
	s = strings.Map(func(r rune) rune {
		if r == '\n' {
			return r
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return -1
		}
		return r
	}, sanitize.Text(s))
	for _, line := range strings.Split(s, "\n") {
		line = strings.TrimSpace(line)
		for _, p := range []string{"Title:", "title:", "TITLE:"} {
			line = strings.TrimSpace(strings.TrimPrefix(line, p))
		}
		line = strings.Trim(line, "\"'`*#_ “”‘’.:")
		if line != "" {
			return memory.DeriveTitle(line)
		}
	}
	return ""
}
