package main

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/agent"
)

// dialer bounds connection set-up to Ollama.
var dialer = net.Dialer{Timeout: 3 * time.Second}

// probeTimeout bounds the start-up checks against Ollama.
const probeTimeout = 4 * time.Second

// Model capabilities as /api/show reports them.
const (
	capCompletion = "completion"
	capTools      = "tools"
	capEmbedding  = "embedding"
)

type modelInfo struct {
	Name          string   `json:"name"`
	Size          int64    `json:"size"`
	Capabilities  []string `json:"capabilities"`
	ContextLength int      `json:"context_length,omitempty"`
}

func (m modelInfo) has(c string) bool { return slices.Contains(m.Capabilities, c) }

// chatCapable reports whether the model can chat. Servers that report no
// capabilities at all are trusted unless the name says embedding.
func (m modelInfo) chatCapable() bool {
	if len(m.Capabilities) == 0 {
		return !strings.Contains(m.Name, "embed")
	}
	return m.has(capCompletion)
}

// ollamaState is what a probe found.
type ollamaState struct {
	Host      string      `json:"host"`
	Reachable bool        `json:"reachable"`
	Version   string      `json:"version,omitempty"`
	Models    []modelInfo `json:"models"`
	Model     string      `json:"model,omitempty"`
	ModelWhy  string      `json:"model_reason,omitempty"`
	Err       error       `json:"-"`
	// Embed is the embedding model ("" means keyword-only search) and
	// EmbedNote explains its choice or absence.
	Embed     modelInfo `json:"embed_model"`
	EmbedNote string    `json:"embed_note,omitempty"`
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
	list, err := client.List(ctx)
	if err != nil {
		st.Err = agent.ExplainError(err, host, configured)
		return st
	}
	for _, m := range list.Models {
		info := modelInfo{Name: m.Name, Size: m.Size}
		if show, err := client.Show(ctx, &api.ShowRequest{Model: m.Name}); err == nil {
			for _, c := range show.Capabilities {
				info.Capabilities = append(info.Capabilities, string(c))
			}
			info.ContextLength = agent.ContextLength(show.ModelInfo)
		}
		st.Models = append(st.Models, info)
	}
	st.Model, st.ModelWhy, st.Err = chooseModel(st.Models, configured, host)
	st.Embed, st.EmbedNote = chooseEmbedModel(st.Models, cfg.EmbedModel)
	return st
}

// defaultEmbedModel is what mneme suggests pulling for vector search.
const defaultEmbedModel = "nomic-embed-text"

// chooseEmbedModel picks the configured embedding model if it is installed,
// else the first installed model with the embedding capability. Without
// one, search is keyword-only.
func chooseEmbedModel(models []modelInfo, configured string) (modelInfo, string) {
	if configured != "" {
		for _, m := range models {
			if sameModel(m.Name, configured) {
				return m, "configured"
			}
		}
		return modelInfo{}, fmt.Sprintf("embedding model %q is not installed: search is keyword-only until you run `ollama pull %s`", configured, configured)
	}
	for _, m := range models {
		if m.has(capEmbedding) {
			return m, "first installed embedding model"
		}
	}
	return modelInfo{}, fmt.Sprintf("no embedding model installed: search is keyword-only; for search by meaning run `ollama pull %s`", defaultEmbedModel)
}

func chooseModel(models []modelInfo, configured, host string) (name, why string, err error) {
	if configured != "" {
		for _, m := range models {
			if sameModel(m.Name, configured) {
				return configured, "configured", nil
			}
		}
		return configured, "configured", fmt.Errorf("%w: %q is not installed in Ollama at %s; run `ollama pull %s`",
			agent.ErrModelNotFound, configured, host, configured)
	}
	for _, m := range models {
		if m.chatCapable() && m.has(capTools) {
			return m.Name, "first installed model with tools", nil
		}
	}
	for _, m := range models {
		if m.chatCapable() {
			return m.Name, "first installed chat model (no model with tools)", nil
		}
	}
	return "", "", fmt.Errorf("%w installed in Ollama at %s: run `ollama pull llama3.2`", agent.ErrNoModel, host)
}

// sameModel compares names the way Ollama does: "x" means "x:latest".
func sameModel(a, b string) bool {
	norm := func(s string) string {
		if !strings.Contains(s, ":") {
			return s + ":latest"
		}
		return s
	}
	return norm(a) == norm(b)
}
