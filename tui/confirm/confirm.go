// Package confirm carries a question from a running tool call to the chat
// and the user's answer back: whether the model may change or delete a
// note (model_changes = "confirm").
package confirm

import (
	"context"

	tea "charm.land/bubbletea/v2"
)

// Request asks the user one question. The tool call waits for the answer
// on Reply; the run's context ending (Done) makes the question moot.
type Request struct {
	// Question says what the model wants to do, on one line.
	Question string
	// Reply receives the answer; the asker buffers it (capacity 1).
	Reply chan<- bool
	// Done is closed when the asking run ends.
	Done <-chan struct{}
}

// Msg carries a question from a running tool call.
type Msg struct{ Req Request }

// Wait waits for the next question; Update issues it again for the next.
func Wait(ctx context.Context, ch <-chan Request) tea.Cmd {
	if ch == nil {
		return nil
	}
	return func() tea.Msg {
		select {
		case r := <-ch:
			return Msg{r}
		case <-ctx.Done():
			return nil
		}
	}
}

// Answer sends the answer in a command: the run may have ended.
func Answer(req Request, yes bool) tea.Cmd {
	return func() tea.Msg {
		select {
		case req.Reply <- yes:
		case <-req.Done:
		}
		return nil
	}
}
