// Package ollama is mneme's one home for what it knows about an Ollama
// server: installed models and their capabilities, context lengths, model
// names, listing and pulling. The commands, the TUI and the agent use it.
package ollama

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/ollama/ollama/api"
)

// Models mneme suggests when none is installed.
const (
	DefaultChatModel  = "llama3.2"
	DefaultEmbedModel = "nomic-embed-text"
)

// Model capabilities as /api/show reports them.
const (
	CapCompletion = "completion"
	CapTools      = "tools"
	CapEmbedding  = "embedding"
)

// ModelInfo is an installed model, from /api/tags and /api/show.
type ModelInfo struct {
	Name          string   `json:"name"`
	Size          int64    `json:"size"` // bytes on disk
	Capabilities  []string `json:"capabilities"`
	ContextLength int      `json:"context_length,omitempty"`
}

// Has reports whether the model has capability c.
func (m ModelInfo) Has(c string) bool { return slices.Contains(m.Capabilities, c) }

// CanChat reports whether the model can chat. A server that reports no
// capabilities is trusted unless the name says embedding.
func (m ModelInfo) CanChat() bool {
	if len(m.Capabilities) == 0 {
		return !strings.Contains(m.Name, "embed")
	}
	return m.Has(CapCompletion)
}

// CanEmbed reports whether the model makes embeddings. A server that
// reports no capabilities is trusted when the name says embedding.
func (m ModelInfo) CanEmbed() bool {
	if len(m.Capabilities) == 0 {
		return strings.Contains(m.Name, "embed")
	}
	return m.Has(CapEmbedding)
}

// MayUseTools reports whether mneme should offer the model tools: it says
// so, or the server reports no capabilities at all.
func (m ModelInfo) MayUseTools() bool {
	return len(m.Capabilities) == 0 || m.Has(CapTools)
}

// Lister is the Ollama call List needs; *api.Client has it.
type Lister interface {
	List(ctx context.Context) (*api.ListResponse, error)
	Show(ctx context.Context, req *api.ShowRequest) (*api.ShowResponse, error)
}

// List returns the installed models with their sizes and, where /api/show
// answers, their capabilities and context lengths. A model /api/show fails
// for is listed without them; a cancelled ctx ends the listing.
func List(ctx context.Context, c Lister) ([]ModelInfo, error) {
	list, err := c.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	out := make([]ModelInfo, 0, len(list.Models))
	for _, m := range named(list.Models) {
		info, err := Describe(ctx, c, ModelInfo{Name: m.Name, Size: m.Size})
		if err != nil && ctx.Err() != nil {
			return nil, fmt.Errorf("list models: %w", ctx.Err())
		}
		out = append(out, info)
	}
	return out, nil
}

// named are the models in list whose name a model can have: a name with
// escapes or spaces (a hostile or broken server's) is left out, so that it
// is never printed, chosen or sent back.
func named(list []api.ListModelResponse) []api.ListModelResponse {
	out := list[:0:0]
	for _, m := range list {
		if ValidName(m.Name) {
			out = append(out, m)
		}
	}
	return out
}

// Describe adds what /api/show says of m: its capabilities and context
// length. On error m is returned as it was, with the error.
func Describe(ctx context.Context, c Lister, m ModelInfo) (ModelInfo, error) {
	show, err := c.Show(ctx, &api.ShowRequest{Model: m.Name})
	if err != nil {
		return m, err
	}
	for _, c := range show.Capabilities {
		m.Capabilities = append(m.Capabilities, string(c))
	}
	m.ContextLength = ContextLength(show.ModelInfo)
	return m, nil
}

// modelName is what Ollama takes as a model name: [host[:port]/][namespace/]model[:tag],
// of letters, digits, ".", "_", "-" (and ":" and "/" between the parts).
var modelName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*(:[0-9]+)?(/[A-Za-z0-9][A-Za-z0-9._-]*)*(:[A-Za-z0-9][A-Za-z0-9._-]*)?$`)

// ValidName reports whether s could name a model in Ollama ("llama3.2",
// "qwen2.5:7b", "hf.co/org/model:Q4_K_M").
func ValidName(s string) bool { return len(s) <= 350 && modelName.MatchString(s) }

// Installed reports whether the model name is among models (SameModel).
func Installed(models []ModelInfo, name string) bool {
	return slices.ContainsFunc(models, func(m ModelInfo) bool { return SameModel(m.Name, name) })
}

// CannotChat says why the installed model name cannot chat ("it reports:
// embedding"), or "" when it can or is not among models.
func CannotChat(models []ModelInfo, name string) string {
	i := slices.IndexFunc(models, func(m ModelInfo) bool { return SameModel(m.Name, name) })
	if i < 0 || models[i].CanChat() {
		return ""
	}
	return "it reports: " + strings.Join(models[i].Capabilities, ", ")
}

// SameModel compares names the way Ollama does: "x" is "x:latest", and
// case and surrounding space do not count. A registry host's port
// ("host:5000/x") is not a tag.
func SameModel(a, b string) bool {
	norm := func(s string) string {
		s = strings.ToLower(strings.TrimSpace(s))
		if !strings.Contains(s[strings.LastIndex(s, "/")+1:], ":") {
			s += ":latest"
		}
		return s
	}
	return norm(a) == norm(b)
}

// ContextLength finds "<arch>.context_length" in /api/show's model_info
// (0 when absent). The number may have been decoded as any Go number type
// (float64 from JSON by default).
func ContextLength(info map[string]any) int {
	for k, v := range info {
		if strings.HasSuffix(k, ".context_length") {
			if n := Number(v); n > 0 {
				return n
			}
		}
	}
	return 0
}

// Param finds the whole-number parameter name ("num_ctx N") in /api/show's
// parameters text: its value when above 0, else 0 (absent, or -1, "no
// limit", for num_predict).
func Param(params, name string) int {
	for _, line := range strings.Split(params, "\n") {
		f := strings.Fields(line)
		if len(f) == 2 && f[0] == name {
			if n, err := strconv.Atoi(f[1]); err == nil && n > 0 {
				return n
			}
		}
	}
	return 0
}

// Number reads a whole number of any Go number type, or a JSON number, as
// options and model_info hold them (0 for anything else).
func Number(v any) int {
	switch n := v.(type) {
	case int:
		return n
	case int32:
		return int(n)
	case int64:
		return int(n)
	case uint32:
		return int(n)
	case uint64:
		return int(n)
	case float32:
		return int(n)
	case float64:
		return int(n)
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return int(i)
		}
	}
	return 0
}
