package ollama

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/sanitize"
)

// ProbeTimeout bounds a probe.
const ProbeTimeout = 4 * time.Second

// State is what a probe found.
type State struct {
	Host      string      `json:"host"`
	Reachable bool        `json:"reachable"`
	Version   string      `json:"version,omitempty"`
	Models    []ModelInfo `json:"models"`
	// Listed: the models were listed (Models may still be none).
	Listed   bool   `json:"-"`
	Model    string `json:"model,omitempty"`
	ModelWhy string `json:"model_reason,omitempty"`
	Err      error  `json:"-"`
	// Embed is the embedding model ("" means keyword-only search) and
	// EmbedNote explains its choice or absence.
	Embed     ModelInfo `json:"embed_model"`
	EmbedNote string    `json:"embed_note,omitempty"`
}

// Prober is the part of *api.Client a probe uses.
type Prober interface {
	Lister
	Version(ctx context.Context) (string, error)
}

// Probe checks the server, lists the models with their capabilities, and
// picks the chat model (ChooseChat) and the embedding model (ChooseEmbed).
// explain words an error of the server's (unreachable, refused) for people.
func Probe(ctx context.Context, c Prober, host, chatModel, embedModel string, explain func(error) error) State {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	st := State{Host: host, EmbedNote: unreachableNote}
	v, err := c.Version(ctx)
	var se api.StatusError
	switch {
	case errors.As(err, &se): // an HTTP answer, but no version: not Ollama
		st.Err = fmt.Errorf("%w at %s: it answered %q to /api/version (is OLLAMA_HOST right?)", ErrNotOllama, host,
			sanitize.Line(cmp.Or(se.Status, fmt.Sprint(se.StatusCode))))
		return st
	case err != nil:
		st.Err = explain(err)
		return st
	}
	st.Reachable, st.Version = true, v
	if st.Models, err = List(ctx, c); err != nil {
		st.Err = explain(errors.Unwrap(err))
		st.EmbedNote = "not known: the models could not be listed, so search is keyword-only for now"
		return st
	}
	st.Listed = true
	st.Model, st.ModelWhy, st.Err = ChooseChat(st.Models, chatModel, host)
	st.Embed, st.EmbedNote = ChooseEmbed(st.Models, embedModel)
	return st
}

const unreachableNote = "Ollama is unreachable, so search is keyword-only for now"

// ProbeEmbedding is the probe of the commands that only search or write
// notes: it finds the embedding model and nothing else, with as few calls
// as it takes. /api/show is asked of the configured embedding model only,
// or else of the installed models in order until one makes embeddings,
// instead of every model as Probe does.
func ProbeEmbedding(ctx context.Context, c Lister, host, embedModel string, explain func(error) error) State {
	ctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	st := State{Host: host, EmbedNote: unreachableNote}
	list, err := c.List(ctx)
	if err != nil {
		st.Err = explain(err)
		return st
	}
	st.Reachable = true
	found := false
	for _, m := range named(list.Models) {
		info := ModelInfo{Name: m.Name, Size: m.Size}
		if wanted := embedModel == "" || SameModel(m.Name, embedModel); wanted && !found {
			info, _ = Describe(ctx, c, info) // without it: listed, not described
			found = embedModel != "" || info.CanEmbed()
		}
		st.Models = append(st.Models, info)
	}
	st.Embed, st.EmbedNote = ChooseEmbed(st.Models, embedModel)
	return st
}

// ToolsSupported reports whether the probe found that the chosen model
// supports tools. A server that reports no capabilities is trusted: the
// agent still falls back if the model refuses tools.
func (st State) ToolsSupported() bool {
	for _, m := range st.Models {
		if SameModel(m.Name, st.Model) {
			return m.MayUseTools()
		}
	}
	return true
}
