package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
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
	st.Model, st.ModelWhy, st.Err = chooseModel(st.Models, configured, host)
	st.Embed, st.EmbedNote = chooseEmbedModel(st.Models, cfg.EmbedModel)
	return st
}

// chooseEmbedModel picks the configured embedding model if it is installed,
// else the first installed model with the embedding capability. Without
// one, search is keyword-only.
func chooseEmbedModel(models []ollama.ModelInfo, configured string) (ollama.ModelInfo, string) {
	if configured != "" {
		for _, m := range models {
			if ollama.SameModel(m.Name, configured) {
				return m, "configured"
			}
		}
		return ollama.ModelInfo{}, fmt.Sprintf("embedding model %q is not installed: search is keyword-only until you run `ollama pull %s`", configured, configured)
	}
	for _, m := range models {
		if m.CanEmbed() {
			return m, "first installed embedding model"
		}
	}
	return ollama.ModelInfo{}, fmt.Sprintf("no embedding model installed: search is keyword-only; for search by meaning run `ollama pull %s`", ollama.DefaultEmbedModel)
}

func chooseModel(models []ollama.ModelInfo, configured, host string) (name, why string, err error) {
	if configured != "" {
		for _, m := range models {
			if ollama.SameModel(m.Name, configured) {
				return configured, "configured", nil
			}
		}
		return configured, "configured", fmt.Errorf("%w: %q is not installed in Ollama at %s; run `ollama pull %s`",
			agent.ErrModelNotFound, configured, host, configured)
	}
	for _, m := range models {
		if m.CanChat() && m.Has(ollama.CapTools) {
			return m.Name, "first installed model with tools", nil
		}
	}
	for _, m := range models {
		if m.CanChat() {
			return m.Name, "first installed chat model (no model with tools)", nil
		}
	}
	return "", "", fmt.Errorf("%w installed in Ollama at %s: run `ollama pull llama3.2`", agent.ErrNoModel, host)
}

// registryOff in ollama_registry skips the check of the model library.
const registryOff = "off"

// registryTimeout bounds the check of the model library.
const registryTimeout = 2500 * time.Millisecond

// checkRegistry validates ollama_registry: "off", or an http(s) URL.
func checkRegistry(s string) error {
	if s == registryOff {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%w: want an http(s) URL, or %q", ErrConfigValue, registryOff)
	}
	return nil
}

// registryUnreachable checks whether the model library answers at all
// (any HTTP status will do). It only speaks for an Ollama on this machine,
// which shares its network: for another host, or with the check off, it
// returns nil.
func registryUnreachable(ctx context.Context, registry, ollamaHost string) error {
	if registry == registryOff || !isLoopback(ollamaHost) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, strings.TrimRight(registry, "/")+"/v2/", nil)
	if err != nil {
		return err
	}
	resp, err := (&http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, DialContext: dialer.DialContext}}).Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// isLoopback reports whether an Ollama address is on this machine.
func isLoopback(host string) bool {
	u, err := url.Parse(host)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
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
	st.Embed, st.EmbedNote = chooseEmbedModel(st.Models, cfg.EmbedModel)
	return st
}
