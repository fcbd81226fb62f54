package cli

import (
	"context"
	"errors"
	"net"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/ollama"
)

// dialer bounds connection set-up to Ollama.
var dialer = net.Dialer{Timeout: 3 * time.Second}

// probeTimeout bounds the start-up checks against Ollama.
const probeTimeout = 4 * time.Second

// ollamaState is what a probe found.
type ollamaState struct {
	Host      string             `json:"host"`
	Reachable bool               `json:"reachable"`
	Version   string             `json:"version,omitempty"`
	Models    []ollama.ModelInfo `json:"models"`
	Model     string             `json:"model,omitempty"`
	ModelWhy  string             `json:"model_reason,omitempty"`
	Err       error              `json:"-"`
	// Embed is the embedding model ("" means keyword-only search) and
	// EmbedNote explains its choice or absence.
	Embed     ollama.ModelInfo `json:"embed_model"`
	EmbedNote string           `json:"embed_note,omitempty"`
}

// probeOllama checks the server, lists models with their capabilities, and
// picks the chat model: the configured one, else the first installed model
// with tools, else any chat model.
func probeOllama(ctx context.Context, client *api.Client, host string, cfg Config) ollamaState {
	configured := cfg.Model
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	st := ollamaState{Host: host, EmbedNote: "Ollama is unreachable, so search is keyword-only for now"}
	v, err := client.Version(ctx)
	if err != nil {
		st.Err = agent.ExplainError(err, host, configured)
		return st
	}
	st.Reachable, st.Version = true, v
	if st.Models, err = ollama.List(ctx, client); err != nil {
		st.Err = agent.ExplainError(errors.Unwrap(err), host, configured)
		return st
	}
	st.Model, st.ModelWhy, st.Err = ollama.ChooseChat(st.Models, configured, host)
	st.Embed, st.EmbedNote = ollama.ChooseEmbed(st.Models, cfg.EmbedModel)
	return st
}

// probeEmbedding is the probe of the commands that only search or write
// notes: it finds the embedding model and nothing else, with as few calls
// as it takes. /api/show is asked of the configured embedding model only,
// or else of the installed models in order until one makes embeddings,
// instead of every model as the full probe does.
func probeEmbedding(ctx context.Context, client ollama.Lister, host string, cfg Config) ollamaState {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	st := ollamaState{Host: host, EmbedNote: "Ollama is unreachable, so search is keyword-only for now"}
	list, err := client.List(ctx)
	if err != nil {
		st.Err = agent.ExplainError(err, host, cfg.EmbedModel)
		return st
	}
	st.Reachable = true
	found := false
	for _, m := range list.Models {
		info := ollama.ModelInfo{Name: m.Name, Size: m.Size}
		wanted := cfg.EmbedModel == "" || ollama.SameModel(m.Name, cfg.EmbedModel)
		if wanted && !found {
			info, _ = ollama.Describe(ctx, client, info) // without it: listed, not described
			found = cfg.EmbedModel != "" || info.CanEmbed()
		}
		st.Models = append(st.Models, info)
	}
	st.Embed, st.EmbedNote = ollama.ChooseEmbed(st.Models, cfg.EmbedModel)
	return st
}
