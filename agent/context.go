package agent

import (
	"fmt"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/ollama"
)

// The context a model runs with.
//
// mneme chooses the context (num_ctx) itself and sends it with every chat,
// summary and title request, so that the budget it compacts against is the
// one the server runs the model with. Ollama would otherwise use its own
// default (2048 tokens in v0.6), whatever the model supports.

// Bounds of the context.
const (
	// DefaultMaxContext caps the context chosen from a model's
	// context_length when no cap is configured (num_ctx_max): a longer
	// context costs memory for every loaded model.
	DefaultMaxContext = 8192
	// MinContext and MaxContext bound a configured context or cap.
	MinContext = 512
	MaxContext = 1 << 20
)

// Where a chosen context comes from.
const (
	ContextConfigured = "set by num_ctx"
	ContextParameter  = "the model's num_ctx parameter"
	ContextModel      = "the model's full context"
	ContextCapped     = "capped by num_ctx_max"
	ContextUnknown    = "model context unknown; num_ctx_max"
)

// ContextChoice is the context a model runs with, and why.
type ContextChoice struct {
	// Tokens is sent as options.num_ctx.
	Tokens int
	// ModelLength is the model's context_length (0: not reported).
	ModelLength int
	// Source says where Tokens comes from (one of the Context* constants).
	Source string
	// NumPredict is the num_predict parameter of the model's Modelfile (0:
	// none, or unknown): an answer's length the model sets for itself.
	NumPredict int
}

// String reads like "8192 tokens (model 131072, capped by num_ctx_max)".
func (c ContextChoice) String() string {
	if c.ModelLength > 0 {
		return fmt.Sprintf("%d tokens (model %d, %s)", c.Tokens, c.ModelLength, c.Source)
	}
	return fmt.Sprintf("%d tokens (%s)", c.Tokens, c.Source)
}

// ChooseContext picks the context for a model: configured (num_ctx) when
// above 0; else the num_ctx parameter of the model's Modelfile; else the
// model's context_length, at most maxTokens (num_ctx_max; when 0,
// DefaultMaxContext); else, when show is nil or reports no length,
// maxTokens.
func ChooseContext(configured, maxTokens int, show *api.ShowResponse) ContextChoice {
	if maxTokens <= 0 {
		maxTokens = DefaultMaxContext
	}
	var c ContextChoice
	if show != nil {
		c.ModelLength = ollama.ContextLength(show.ModelInfo)
		c.NumPredict = ollama.Param(show.Parameters, "num_predict")
	}
	switch {
	case configured > 0:
		c.Tokens, c.Source = configured, ContextConfigured
	case show != nil && ollama.Param(show.Parameters, "num_ctx") > 0:
		c.Tokens, c.Source = ollama.Param(show.Parameters, "num_ctx"), ContextParameter
	case c.ModelLength > maxTokens:
		c.Tokens, c.Source = maxTokens, ContextCapped
	case c.ModelLength > 0:
		c.Tokens, c.Source = c.ModelLength, ContextModel
	default:
		c.Tokens, c.Source = maxTokens, ContextUnknown
	}
	return c
}

// CheckContext reports whether n tokens is a context (or cap) mneme
// accepts; the error wraps ErrContextSize.
func CheckContext(n int) error {
	if n < MinContext || n > MaxContext {
		return fmt.Errorf("%w: %d tokens; want %d-%d", ErrContextSize, n, MinContext, MaxContext)
	}
	return nil
}
