package cli

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/ollama"
)

// dialer bounds connection set-up to Ollama.
var dialer = net.Dialer{Timeout: 3 * time.Second}

// ollamaClient is the client of the Ollama at u. No overall timeout:
// answers stream for as long as they take. Dialing and the first response
// byte are bounded so a dead address fails fast. Tool calls whose arguments
// are not a JSON object get an error result instead of failing the turn
// (agent.ToleratingTransport).
func ollamaClient(u *url.URL, cfg config.Config) *api.Client {
	return api.NewClient(u, &http.Client{Transport: agent.ToleratingTransport(&http.Transport{
		Proxy:       http.ProxyFromEnvironment,
		DialContext: dialer.DialContext,
		// A cold model load can be slow. Chat streams are bounded sooner,
		// with a clearer message, by first_token_timeout.
		ResponseHeaderTimeout: max(5*time.Minute, cfg.FirstTokenTimeout+time.Minute),
	})})
}

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
