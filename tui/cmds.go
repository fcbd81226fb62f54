package tui

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/tui/sidebar"
)

// All I/O of the TUI happens in the commands below; Update only decides
// which to run. A command never touches the model: it returns a message.

// probeTimeout bounds one probe if the Probe function sets no limit itself.
const probeTimeout = 10 * time.Second

func probeCmd(ctx context.Context, probe func(context.Context) Probe) tea.Cmd {
	return func() tea.Msg {
		if probe == nil {
			return probeMsg{Probe{Err: fmt.Errorf("no way to reach Ollama was configured")}}
		}
		ctx, cancel := context.WithTimeout(ctx, probeTimeout)
		defer cancel()
		return probeMsg{probe(ctx)}
	}
}

// loadHistoryCmd resolves the conversation to resume and loads its messages.
func loadHistoryCmd(ctx context.Context, store Store, userID, idOrPrefix string, answering func(string) bool) tea.Cmd {
	return func() tea.Msg {
		conv, err := store.Conversation(ctx, userID, idOrPrefix)
		if err != nil {
			return historyMsg{want: idOrPrefix, err: fmt.Errorf("cannot open conversation %q: %w", idOrPrefix, err)}
		}
		msgs, err := store.Messages(ctx, userID, conv.ID)
		if err != nil {
			return historyMsg{want: idOrPrefix, conv: conv, err: fmt.Errorf("cannot load conversation %q: %w", conv.ID, err)}
		}
		busy := answering != nil && answering(conv.ID)
		return historyMsg{want: idOrPrefix, conv: conv, msgs: msgs, sums: loadSummaries(ctx, store, userID, conv.ID), answering: busy}
	}
}

// createConversationCmd creates the conversation for a first prompt. The
// store titles it from the prompt when the prompt is stored.
func createConversationCmd(ctx context.Context, store Store, userID, prompt string) tea.Cmd {
	return func() tea.Msg {
		conv, err := store.CreateConversation(ctx, userID, "")
		if err != nil {
			err = fmt.Errorf("cannot start a conversation: %w", err)
		}
		return conversationMsg{conv: conv, prompt: prompt, err: err}
	}
}

// titleCmd reads the conversation back after a run, for its title.
func titleCmd(ctx context.Context, store Store, userID, id string) tea.Cmd {
	return func() tea.Msg {
		conv, err := store.Conversation(ctx, userID, id)
		return titleMsg{conv: conv, err: err}
	}
}

// runJob is one run to start.
type runJob struct {
	ctx    context.Context // cancelling it interrupts the run
	runner Runner
	req    agent.Request
	events chan<- agent.Event // closed when the run returns
}

// startRunCmd starts the run in a goroutine of runs and returns at once;
// the run's events go to job.events. Once the program is quitting (quit is
// done), emit drops events instead of blocking, and no new run starts.
func startRunCmd(quit context.Context, runs *runGroup, job runJob, log *slog.Logger) tea.Cmd {
	return func() tea.Msg {
		started := runs.Go(func() {
			defer close(job.events)
			emit := func(ev agent.Event) {
				select {
				case job.events <- ev:
				case <-quit.Done():
				}
			}
			res, err := job.runner.Run(job.ctx, job.req, emit)
			log.Debug("run finished", "conversation", job.req.ConversationID,
				"interrupted", res.Interrupted, "err", err)
		})
		if !started {
			close(job.events)
		}
		return nil
	}
}

// spinnerCmd schedules the next spinner frame.
func spinnerCmd(tick tickFunc, every time.Duration) tea.Cmd {
	return tick(every, func(time.Time) tea.Msg { return spinMsg{} })
}

// tickFunc schedules a message after a delay; tea.Tick in production.
type tickFunc func(time.Duration, func(time.Time) tea.Msg) tea.Cmd

// deleteEmptyConversationCmd deletes a conversation created for a send
// that stored nothing (cancelled, or Ollama down), unless another mneme
// has written to it meanwhile (an `ask -c` takes the latest).
func deleteEmptyConversationCmd(ctx context.Context, store Store, convs sidebar.ConversationManager, userID, id string, log *slog.Logger) tea.Cmd {
	if convs == nil {
		return nil
	}
	return func() tea.Msg {
		if c, err := store.Conversation(ctx, userID, id); err != nil || c.MessageCount > 0 {
			return nil
		}
		if err := convs.DeleteConversation(ctx, userID, id); err != nil {
			log.Warn("empty conversation left after a cancelled send", "conversation", id, "err", err)
		}
		return nil
	}
}
