package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/tools"
)

// runState is what one Run carries from one model call to the next.
type runState struct {
	req     Request
	emit    func(Event)
	session tools.Session // who calls the tools, and in which turn
	msgs    []api.Message // the next request's messages
	answers []string      // the text of each model call so far
	res     *Result       // Run's result, filled in as the run goes
	dropped int           // calls of the last reply left out (maxCallsKept)
}

// pendingCall is a tool call of the model's reply, as stored, with the
// reason it must not run, if any (see fromAPICalls).
type pendingCall struct {
	call    memory.ToolCall
	refused string
}

// Run sends the prompt, streams the answer, runs tool calls until the model
// answers without tools (at most the step limit), and stores every message.
// The user message is stored before anything is sent (unless the caller
// stored it, see Request.PromptID). Each assistant message is stored as it
// streams (at once, then every second), marked interrupted, and marked
// complete when its stream ends: an interruption, a failure or a crash
// leaves the answer so far, interrupted. A stream silent for longer than
// the stream timeouts is cut (ErrStreamStalled). Events go to emit as they
// happen; the last one is a DoneEvent or an ErrorEvent. Cancelling ctx
// interrupts the run: the partial answer is stored, marked interrupted, and
// Run returns a Result with Interrupted set and no error.
func (a *Agent) Run(ctx context.Context, req Request, emit func(Event)) (res Result, err error) {
	if emit == nil {
		emit = func(Event) {}
	}
	res = Result{ConversationID: req.ConversationID, Model: a.model, ToolCalls: []ToolActivity{}, MemoriesUsed: []Memory{}}
	defer func() {
		a.recordUsage(ctx, req, &res)
		if err != nil {
			a.log.Warn("run failed", "conversation", req.ConversationID, "err", err)
			emit(ErrorEvent{Err: err, Result: res})
			return
		}
		emit(DoneEvent{Result: res})
	}()
	st := &runState{req: req, emit: emit, res: &res}
	if err := a.prepareRun(ctx, st); err != nil {
		return res, err
	}
	for step := 1; ; step++ {
		last := step >= a.maxSteps
		calls, err := a.chatRound(ctx, st, !last)
		if err != nil || res.Interrupted || len(calls) == 0 {
			return res, err
		}
		if last {
			err = a.skipToolCalls(ctx, st, calls, fmt.Sprintf("not run: the step limit (%d) was reached", a.maxSteps))
		} else {
			err = a.executeToolCalls(ctx, st, calls)
		}
		if err != nil {
			return res, err
		}
		if ctx.Err() != nil {
			// Stopped between model calls: an empty answer marks the turn
			// interrupted, as a stream stopped before its first word does.
			if _, err := a.store.AppendMessage(context.WithoutCancel(ctx), req.UserID, memory.Unanswered(req.ConversationID)); err != nil {
				return res, fmt.Errorf("store interrupted answer: %w", err)
			}
			res.Interrupted = true
			return res, nil
		}
		if last {
			res.StepLimitReached = true
			emit(NoticeEvent{Text: fmt.Sprintf("Stopped after %d model calls: the model kept calling tools.", a.maxSteps)})
			return res, nil
		}
	}
}

// prepareRun checks the request, stores the prompt (unless the caller
// did), recalls the notes for it and builds the first request's messages.
func (a *Agent) prepareRun(ctx context.Context, st *runState) error {
	req := st.req
	if strings.TrimSpace(req.Prompt) == "" {
		return ErrEmptyPrompt
	}
	if a.model == "" {
		return fmt.Errorf("%w: pull one with `ollama pull llama3.2` or set --model", ErrNoModel)
	}
	history, err := a.store.Messages(ctx, req.UserID, req.ConversationID)
	if err != nil {
		return fmt.Errorf("load history: %w", err)
	}
	var all []memory.Message
	if req.PromptID != "" {
		// The history up to the prompt: what another process appended to
		// the conversation since is not part of this question.
		i := slices.IndexFunc(history, func(m memory.Message) bool { return m.ID == req.PromptID })
		if i < 0 {
			return fmt.Errorf("load prompt %s: %w", req.PromptID, memory.ErrNotFound)
		}
		all = history[:i+1]
	} else {
		if err := a.checkReachable(ctx); err != nil {
			return err
		}
		userMsg, err := a.store.AppendMessage(ctx, req.UserID, memory.Message{
			ConversationID: req.ConversationID, Role: memory.RoleUser, Content: req.Prompt,
		})
		if errors.Is(err, memory.ErrNotFound) {
			return fmt.Errorf("%w: %w", ErrConversationGone, err)
		}
		if err != nil {
			return fmt.Errorf("store prompt: %w", err)
		}
		all = append(history, userMsg)
	}
	st.session = tools.Session{UserID: req.UserID, ConversationID: req.ConversationID}
	if turns := memory.BuildTurns(req.UserID, req.ConversationID, all); len(turns) > 0 {
		st.session.TurnNumber = turns[len(turns)-1].Number
	}
	st.res.Turn = st.session.TurnNumber
	// The prompt does not change within a run: one recall serves every model call.
	memories := a.recall(ctx, req)
	if len(memories) > 0 {
		st.res.MemoriesUsed = memories
		st.emit(RecallEvent{Memories: memories})
	}
	st.msgs = a.modelHistory(ctx, req, a.systemMessages(memories, req.Attached...), all, st.res, st.emit)
	return nil
}

// chatRound makes one model call, offering the tools if withTools: the
// answer streams to emit and is saved as it comes, then stored complete
// and added to the next request. It returns the tool calls the answer
// made. A stream stopped by ctx leaves the answer so far stored, marked
// interrupted, sets Result.Interrupted and returns no error; a stream that
// failed is stored the same way and its failure returned, explained.
func (a *Agent) chatRound(ctx context.Context, st *runState, withTools bool) ([]pendingCall, error) {
	live := a.newLiveAnswer(ctx, st.req)
	out, streamErr := a.stream(ctx, st.msgs, withTools, live, st.emit)
	if w := st.res.ContextWindow; w > 0 && out.promptTokens >= w && !st.res.Truncated {
		// Ollama counts a prompt it cut to the context as the context: the
		// estimate (three characters a token) missed a text of shorter
		// tokens (code, CJK), and the start of the request went unsaid.
		st.res.Truncated = true
		st.emit(NoticeEvent{Text: fmt.Sprintf("The request filled the model's whole %d-token context, so Ollama cut its start: "+
			"the model did not see all of it. Raise num_ctx if the model allows more, or send less.", w)})
	}
	switch {
	case out.promptTokens+out.evalTokens > 0:
		st.res.ContextTokens = out.promptTokens + out.evalTokens
		st.res.estimated = false
	case out.capped:
		// Cut by mneme, the stream never reached Ollama's counts: the
		// request's estimate plus the answer's tokens stand in, and are
		// not kept as a measure for the next run.
		st.res.ContextTokens = estimateMessages(st.msgs) + a.toolTokens(withTools) + out.chunks
		st.res.estimated = true
	}
	if text := strings.TrimSpace(out.content.String()); text != "" {
		st.answers = append(st.answers, text)
		st.res.Answer = strings.Join(st.answers, "\n\n")
	}
	if errors.Is(streamErr, ErrDeletedMidAnswer) {
		live.finish(out, nil, memory.StatusInterrupted) // stops the saves; there is nothing to save into
		return nil, streamErr
	}
	if streamErr != nil {
		interrupted := ctx.Err() != nil
		// Even with no text yet, the answer is stored (empty, marked
		// interrupted), so that the turn reads the same live, after a
		// reload and in exports: never two prompts in a row.
		if _, err := live.finish(out, nil, memory.StatusInterrupted); errors.Is(err, memory.ErrNotFound) {
			return nil, ErrDeletedMidAnswer
		} else if err != nil {
			return nil, fmt.Errorf("store partial answer: %w", err)
		}
		if interrupted {
			st.res.Interrupted = true
			return nil, nil
		}
		return nil, a.explainStream(streamErr, out)
	}
	calls, refused := fromAPICalls(out.calls)
	status := memory.StatusComplete
	if out.cut { // stopped before the model finished: never taken for a whole answer
		status = memory.StatusInterrupted
	}
	assistant, err := live.finish(out, calls, status)
	if errors.Is(err, memory.ErrNotFound) {
		return nil, ErrDeletedMidAnswer // deleted after the last save
	} else if err != nil {
		return nil, fmt.Errorf("store answer: %w", err)
	}
	if out.cut {
		st.res.Cut = true
		st.emit(NoticeEvent{Text: a.cutNotice(out)})
	}
	st.msgs = append(st.msgs, toAPI([]memory.Message{assistant})...)
	st.dropped = out.dropped
	if out.dropped > 0 {
		a.log.Warn("tool calls left out", "conversation", st.req.ConversationID, "kept", len(calls), "dropped", out.dropped)
	}
	pending := make([]pendingCall, len(calls))
	for i, c := range calls {
		pending[i] = pendingCall{call: c, refused: refused[i]}
	}
	return pending, nil
}

// cutNotice says where an answer stopped at a length limit.
func (a *Agent) cutNotice(out *streamOut) string {
	if out.capped {
		return fmt.Sprintf("The answer was cut at about %d tokens (max_answer_tokens): ask the model to go on, or raise the limit.", a.maxAnswer)
	}
	return "The answer reached the model's length limit (its num_predict or context) and stopped there: ask the model to go on."
}

// executeToolCalls runs a reply's tool calls in order through the tools,
// at most MaxToolCallsPerReply of them: the calls past it are skipped,
// saying why. A call that must not run gets its reason as an error result.
// Every call is answered: its result is stored and sent on the next
// model call.
func (a *Agent) executeToolCalls(ctx context.Context, st *runState, calls []pendingCall) error {
	run := calls[:min(len(calls), MaxToolCallsPerReply)]
	for _, c := range run {
		act := toolCalled(st, c.call)
		switch {
		case c.refused != "":
			act.Error = c.refused
		case a.tools == nil:
			act.Error = fmt.Sprintf("%v %q", tools.ErrUnknownTool, c.call.Name)
		default:
			out, err := a.tools.Execute(ctx, st.session, tools.Call{ID: c.call.ID, Name: c.call.Name, Args: c.call.Arguments})
			act.Result = out.Content
			if err != nil {
				act.Error = err.Error()
			} else {
				act.Notes, act.Citations, act.Mark = out.Notes, out.Citations, out.Mark
			}
		}
		if err := a.answerToolCall(ctx, st, c.call, act); err != nil {
			return err
		}
	}
	if len(run) == len(calls) {
		return nil
	}
	reason := fmt.Sprintf("not run: at most %d tool calls are run per reply, and this reply made %d", MaxToolCallsPerReply, len(calls)+st.dropped)
	if st.dropped > 0 {
		reason += fmt.Sprintf(" (the last %d were dropped unanswered)", st.dropped)
	}
	return a.skipToolCalls(ctx, st, calls[len(run):], reason+"; make the calls that matter first")
}

// skipToolCalls answers calls that are not run with reason as their error
// result, so that the model reads why.
func (a *Agent) skipToolCalls(ctx context.Context, st *runState, calls []pendingCall, reason string) error {
	for _, c := range calls {
		act := toolCalled(st, c.call)
		act.Error = reason
		if err := a.answerToolCall(ctx, st, c.call, act); err != nil {
			return err
		}
	}
	return nil
}

// toolCalled tells that the model called a tool; the call is run or
// skipped next.
func toolCalled(st *runState, c memory.ToolCall) ToolActivity {
	act := ToolActivity{ID: c.ID, Name: c.Name, Args: clip(string(c.Arguments), maxEchoBytes)}
	st.emit(ToolCallEvent{Call: act})
	return act
}

// answerToolCall stores the outcome of call c as the tool message the
// model reads next, and tells it. The store write is not cancelled with
// the run: a call that ran is answered.
func (a *Agent) answerToolCall(ctx context.Context, st *runState, c memory.ToolCall, act ToolActivity) error {
	act.Error = clip(act.Error, maxEchoBytes)
	act.Done = true
	toolMsg, err := a.store.AppendMessage(context.WithoutCancel(ctx), st.req.UserID, memory.Message{
		ConversationID: st.req.ConversationID, Role: memory.RoleTool, Content: toolContent(act),
		ToolCallID: c.ID, ToolName: c.Name,
	})
	if err != nil {
		return fmt.Errorf("store tool result: %w", err)
	}
	st.msgs = append(st.msgs, toAPI([]memory.Message{toolMsg})...)
	st.res.ToolCalls = append(st.res.ToolCalls, act)
	st.emit(ToolResultEvent{Call: act})
	return nil
}

// toolContent is what is stored and sent to the model for a call: its
// result, or {"error": "..."} when it failed or did not run. ToolOutcome
// reads it back.
func toolContent(act ToolActivity) string {
	if act.Error == "" {
		return act.Result
	}
	b, _ := json.Marshal(map[string]string{"error": act.Error})
	return string(b)
}

// ToolOutcome splits a stored tool message's content into the call's
// result and its error (toolContent's inverse).
func ToolOutcome(content string) (result, errText string) {
	var e map[string]any
	if json.Unmarshal([]byte(content), &e) == nil && len(e) == 1 {
		if s, ok := e["error"].(string); ok {
			return "", s
		}
	}
	return content, ""
}
