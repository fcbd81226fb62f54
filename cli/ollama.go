package cli

import (
	"context"
	"net"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/ollama"
)

// dialer bounds connection set-up to Ollama.
var dialer = net.Dialer{Timeout: 3 * time.Second}

// ollamaState is what a probe found (ollama.State).
type ollamaState = ollama.State

// probeOllama is ollama.Probe with the configured models, its errors
// worded by agent.ExplainError.
func probeOllama(ctx context.Context, client *api.Client, host string, cfg config.Config) ollamaState {
	return ollama.Probe(ctx, client, host, cfg.Model, cfg.EmbedModel, func(err error) error { return agent.ExplainError(err, host, cfg.Model) })
}

// probeEmbedding is ollama.ProbeEmbedding with the configured model.
func probeEmbedding(ctx context.Context, client ollama.Lister, host string, cfg config.Config) ollamaState {
	return ollama.ProbeEmbedding(ctx, client, host, cfg.EmbedModel, func(err error) error { return agent.ExplainError(err, host, cfg.EmbedModel) })
}
