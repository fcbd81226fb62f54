package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/internal/ollama"
	"github.com/mneme-dev/mneme/memory"
)

// waitStored polls the store until the conversation's messages satisfy ok.
func (h *harness) waitStored(what string, ok func([]memory.Message) bool) []memory.Message {
	h.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		msgs := h.messages()
		if ok(msgs) {
			return msgs
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("not stored within 10 s: %s; stored %+v", what, msgs)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestAnswerIsSavedWhileItStreams(t *testing.T) {
	h := newHarness(t, nil)
	gate := make(chan struct{})
	h.srv.Script(fakeollama.Reply{Content: []string{"Once", " upon", " a", " time"}, Gate: gate})
	done := make(chan error, 1)
	go func() {
		_, _, err := h.run(context.Background(), "story")
		done <- err
	}()
	// The first chunk is saved at once, marked interrupted: a crash now
	// would leave it so.
	first := h.waitStored("the first chunk", func(m []memory.Message) bool {
		return len(m) == 2 && m[1].Content == "Once"
	})
	if first[1].Status != memory.StatusInterrupted || first[0].Content != "story" {
		t.Fatalf("while streaming: %+v", first)
	}
	// Later chunks follow within the save interval, in the same row.
	gate <- struct{}{}
	h.waitStored("the second chunk", func(m []memory.Message) bool {
		return len(m) == 2 && m[1].Content == "Once upon" && m[1].ID == first[1].ID
	})
	close(gate)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	msgs := h.messages()
	if len(msgs) != 2 || msgs[1].ID != first[1].ID || msgs[1].Content != "Once upon a time" || msgs[1].Status != memory.StatusComplete {
		t.Fatalf("after the stream: %+v", msgs)
	}
}

func TestStalledStreamIsCutAndKeepsPartial(t *testing.T) {
	h := newHarness(t, nil, WithStreamTimeouts(time.Minute, time.Second))
	h.srv.Script(fakeollama.Reply{Content: []string{"Half", " an"}, Hold: true})
	start := time.Now()
	_, events, err := h.run(context.Background(), "question")
	if !errors.Is(err, ErrStreamStalled) || !strings.Contains(err.Error(), "sent nothing for 1 s") ||
		!strings.Contains(err.Error(), "partial answer is saved") {
		t.Fatalf("err = %v", err)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("the stall was cut after %s, not by the idle timeout", took)
	}
	if _, ok := events[len(events)-1].(ErrorEvent); !ok {
		t.Fatalf("last event = %T", events[len(events)-1])
	}
	<-h.srv.Cancelled() // the connection to Ollama was closed
	msgs := h.messages()
	if roles(msgs) != "user,assistant" || msgs[1].Content != "Half an" || msgs[1].Status != memory.StatusInterrupted {
		t.Fatalf("stored %+v", msgs)
	}
}

func TestStallBeforeTheFirstChunk(t *testing.T) {
	for name, rep := range map[string]fakeollama.Reply{
		"no headers":   {Stall: true},
		"headers only": {Hold: true},
	} {
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, nil, WithStreamTimeouts(300*time.Millisecond, time.Minute))
			h.srv.Script(rep)
			_, _, err := h.run(context.Background(), "question")
			if !errors.Is(err, ErrStreamStalled) || !strings.Contains(err.Error(), "sent no answer within 0.3 s") ||
				!strings.Contains(err.Error(), "prompt is saved") || strings.Contains(err.Error(), "is it running") {
				t.Fatalf("err = %v", err)
			}
			if msgs := h.messages(); roles(msgs) != "user,assistant" || msgs[1].Content != "" || msgs[1].Status != memory.StatusInterrupted {
				t.Fatalf("stored %+v", msgs)
			}
		})
	}
}

// A consumer slower than the idle timeout (a paused terminal, a pipe that
// is not read) is not mistaken for a stalled Ollama.
func TestSlowConsumerIsNotAStall(t *testing.T) {
	idle := 250 * time.Millisecond
	h := newHarness(t, nil, WithStreamTimeouts(time.Minute, idle))
	gate := make(chan struct{})
	h.srv.Script(fakeollama.Reply{Content: []string{"one", " two", " three"}, Gate: gate})
	var got strings.Builder
	res, err := h.agent.Run(context.Background(), Request{UserID: "alice", ConversationID: h.conv.ID, Prompt: "count"}, func(e Event) {
		if d, ok := e.(ContentDelta); ok {
			got.WriteString(d.Text)
			if d.Text == "one" {
				time.Sleep(3 * idle) // the reader is slow, not the server
				close(gate)          // which answers the rest at once
			}
		}
	})
	if err != nil || res.Answer != "one two three" || got.String() != "one two three" {
		t.Fatalf("answer %q printed %q err %v", res.Answer, got.String(), err)
	}
}

func TestPromptStoredByTheCaller(t *testing.T) {
	h := newHarness(t, nil)
	ctx := context.Background()
	p, err := h.store.AppendMessage(ctx, "alice", memory.Message{ConversationID: h.conv.ID, Role: memory.RoleUser, Content: "hello"})
	if err != nil {
		t.Fatal(err)
	}
	res, err := h.agent.Run(ctx, Request{UserID: "alice", ConversationID: h.conv.ID, Prompt: "hello", PromptID: p.ID}, nil)
	if err != nil || res.Answer != "You said: hello" {
		t.Fatalf("answer %q err %v", res.Answer, err)
	}
	msgs := h.messages()
	if roles(msgs) != "user,assistant" || msgs[0].ID != p.ID {
		t.Fatalf("stored %+v", msgs)
	}

	// Another process appended to the conversation after the prompt was
	// stored: the model is asked the prompt, not the later message.
	p2, err := h.store.AppendMessage(ctx, "alice", memory.Message{ConversationID: h.conv.ID, Role: memory.RoleUser, Content: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := h.store.AppendMessage(ctx, "alice", memory.Message{ConversationID: h.conv.ID, Role: memory.RoleUser, Content: "theirs"}); err != nil {
		t.Fatal(err)
	}
	res, err = h.agent.Run(ctx, Request{UserID: "alice", ConversationID: h.conv.ID, Prompt: "mine", PromptID: p2.ID}, nil)
	if err != nil || res.Answer != "You said: mine" {
		t.Fatalf("answer %q err %v", res.Answer, err)
	}
	if _, err := h.agent.Run(ctx, Request{UserID: "alice", ConversationID: h.conv.ID, Prompt: "x", PromptID: "nosuch"}, nil); !errors.Is(err, memory.ErrNotFound) {
		t.Fatalf("unknown prompt id: %v", err)
	}
}

// A conversation deleted (say, from another window) while its answer
// streams stays deleted: the rest of the answer is not saved anywhere.
func TestConversationDeletedMidAnswerStaysDeleted(t *testing.T) {
	h := newHarness(t, nil)
	gate := make(chan struct{})
	h.srv.Script(fakeollama.Reply{Content: []string{"Once", " upon", " a", " time"}, Gate: gate})
	done := make(chan error, 1)
	go func() {
		_, _, err := h.run(context.Background(), "story")
		done <- err
	}()
	h.waitStored("the first chunk", func(m []memory.Message) bool { return len(m) == 2 && m[1].Content == "Once" })
	if err := h.store.DeleteConversation(context.Background(), "alice", h.conv.ID); err != nil {
		t.Fatal(err)
	}
	close(gate)
	if err := <-done; !errors.Is(err, ErrDeletedMidAnswer) {
		t.Fatalf("err = %v, want ErrDeletedMidAnswer", err)
	}
	if msgs := h.messages(); len(msgs) != 0 {
		t.Fatalf("the deleted conversation has messages again: %+v", msgs)
	}
}

// A small model caught in a loop streams until max_answer_tokens: the
// stream is cut there, the answer kept as far as it got (marked
// interrupted: it is not whole), and the user told.
func TestRunawayAnswerIsCutAtMaxAnswerTokens(t *testing.T) {
	h := newHarness(t, nil, WithMaxAnswerTokens(20))
	loop := make([]string, 500)
	for i := range loop {
		loop[i] = " again"
	}
	h.srv.Script(fakeollama.Reply{Content: loop, Hold: true}) // never ends by itself
	res, events, err := h.run(context.Background(), "tell me a story")
	if err != nil || !res.Cut || res.Interrupted {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	<-h.srv.Cancelled() // the stream to Ollama was closed
	if got := strings.Count(res.Answer, "again"); got != 20 {
		t.Fatalf("the answer holds %d chunks, want 20", got)
	}
	// Ollama never counted the cut stream: the context is estimated, the
	// prompt and the 20 tokens of the answer at least (ask --json, status).
	if res.ContextTokens <= 20 {
		t.Fatalf("context_tokens = %d, want the request and the answer's 20 tokens", res.ContextTokens)
	}
	if !hasNotice(events, "cut at about 20 tokens (max_answer_tokens)") {
		t.Fatalf("no notice of the cut in %+v", events)
	}
	msgs := h.messages()
	if roles(msgs) != "user,assistant" || msgs[1].Status != memory.StatusInterrupted || strings.TrimSpace(msgs[1].Content) != res.Answer {
		t.Fatalf("stored %+v", msgs)
	}
}

// An answer Ollama stopped at the model's own limit (done_reason
// "length") is said to be cut too.
func TestAnswerAtTheModelsLengthLimitIsSaidToBeCut(t *testing.T) {
	h := newHarness(t, nil)
	h.srv.Script(fakeollama.Reply{Content: []string{"Once", " upon"}, DoneReason: "length"})
	res, events, err := h.run(context.Background(), "tell me a story")
	if err != nil || !res.Cut || res.Answer != "Once upon" {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	if !hasNotice(events, "the model's length limit") {
		t.Fatalf("no notice of the cut in %+v", events)
	}
	h.srv.Script(fakeollama.Say("The end."))
	if res, events, _ := h.run(context.Background(), "and then?"); res.Cut || hasNotice(events, "length") {
		t.Fatalf("an answer that ended by itself is said to be cut: %+v", res)
	}
}

func hasNotice(events []Event, text string) bool {
	for _, e := range events {
		if n, ok := e.(NoticeEvent); ok && strings.Contains(n.Text, text) {
			return true
		}
	}
	return false
}

// TestAnswerStopsWhenItsConversationIsDeleted: another mneme deletes the
// conversation while its answer streams: within a save the answer stops
// (the model is no longer paid for), and the run says why.
func TestAnswerStopsWhenItsConversationIsDeleted(t *testing.T) {
	h := newHarness(t, nil)
	gate := make(chan struct{})
	words := make([]string, 200)
	for i := range words {
		words[i] = fmt.Sprintf(" w%d", i)
	}
	h.srv.Script(fakeollama.Reply{Content: words, Gate: gate})
	done := make(chan error, 1)
	go func() {
		_, _, err := h.run(context.Background(), "story")
		done <- err
	}()
	h.waitStored("the first chunk", func(m []memory.Message) bool { return len(m) == 2 })
	if err := h.store.DeleteConversation(context.Background(), "alice", h.conv.ID); err != nil {
		t.Fatal(err)
	}
	gate <- struct{}{} // one more word: the next save finds the conversation gone
	select {
	case err := <-done:
		if !errors.Is(err, ErrDeletedMidAnswer) {
			t.Fatalf("err = %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the answer went on streaming into a deleted conversation")
	}
	<-h.srv.Cancelled() // the connection to Ollama was closed
}

// Every chat request asks Ollama for at most max_answer_tokens
// (num_predict): Ollama v0.6 sends the reply to a request with tools only
// when it is whole, so a looping model streamed nothing to count until the
// first-token timeout. The answer it stops there is said to be cut at
// max_answer_tokens.
func TestMaxAnswerTokensIsSentAsNumPredict(t *testing.T) {
	h := newHarness(t, nil, WithMaxAnswerTokens(20))
	h.srv.Script(fakeollama.Reply{Content: []string{strings.Repeat(" again", 20)}, DoneReason: "length", EvalCount: 20})
	res, events, err := h.run(context.Background(), "tell me a story")
	if err != nil || !res.Cut {
		t.Fatalf("res = %+v, err = %v", res, err)
	}
	if got := ollama.Number(h.srv.LastRequest().Options["num_predict"]); got != 20 {
		t.Fatalf("num_predict = %v, want 20", h.srv.LastRequest().Options["num_predict"])
	}
	if !hasNotice(events, "cut at about 20 tokens (max_answer_tokens)") {
		t.Fatalf("no notice of the cut in %+v", events)
	}
	// The model's own num_predict wins, and its limit is the model's.
	h = newHarness(t, nil, WithMaxAnswerTokens(20), WithModelOptions(map[string]any{"num_predict": 5}))
	h.srv.Script(fakeollama.Reply{Content: []string{"Once", " upon"}, DoneReason: "length", EvalCount: 5})
	_, events, _ = h.run(context.Background(), "tell me a story")
	if got := ollama.Number(h.srv.LastRequest().Options["num_predict"]); got != 5 || !hasNotice(events, "the model's length limit") {
		t.Fatalf("num_predict = %v; events %+v", h.srv.LastRequest().Options["num_predict"], events)
	}
}
