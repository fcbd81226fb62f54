package agent

import (
	"errors"

	"github.com/mneme-dev/mneme/internal/ollama"
)

var (
	// ErrOllamaUnreachable means no Ollama server answered at the configured address.
	ErrOllamaUnreachable = errors.New("cannot reach Ollama")
	// ErrModelNotFound means the server does not have the model
	// (internal/ollama's, so that either name matches).
	ErrModelNotFound = ollama.ErrModelNotFound
	// ErrUnreadableReply means Ollama sent a line of its answer that could
	// not be read (not JSON, or too long).
	ErrUnreadableReply = errors.New("a reply mneme could not read")
	// ErrStreamBroken means the answer stream ended before the model finished.
	ErrStreamBroken = errors.New("the answer stream broke off")
	// ErrStreamStalled means Ollama sent nothing for longer than the
	// first-token or idle timeout, and the stream was cut.
	ErrStreamStalled = errors.New("the answer stream stalled")
	// ErrNoModel means no chat model is configured or installed.
	ErrNoModel = ollama.ErrNoModel
	// ErrConversationGone means the conversation was deleted (by another
	// process) before the prompt could be stored: nothing was written.
	ErrConversationGone = errors.New("the conversation was deleted")
	// ErrDeletedMidAnswer means another process deleted the conversation
	// while its answer streamed: the answer stopped there, not kept.
	ErrDeletedMidAnswer = errors.New("the conversation was deleted in another mneme while the answer was written; the answer stopped and was not kept")
	// ErrNotSent means the prompt was not stored: the run was stopped
	// first (while another mneme answered in the conversation), or Ollama
	// was not running (with ErrOllamaUnreachable). Nothing was written.
	ErrNotSent = errors.New("not sent")
	// ErrEmptyPrompt is returned for a prompt with no text.
	ErrEmptyPrompt = errors.New("empty prompt")
	// ErrNoCompaction is returned by Compact when compaction is not configured.
	ErrNoCompaction = errors.New("compaction is not configured")
	// ErrEmptySummary means the model answered a summary or title request with nothing usable.
	ErrEmptySummary = errors.New("the model wrote no usable summary or title")
	// ErrContextSize means a configured context (num_ctx, num_ctx_max) is out of bounds.
	ErrContextSize = errors.New("context size out of bounds")
)
