package fakeollama

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/ollama/ollama/api"
	"github.com/ollama/ollama/types/model"
)

// Model describes a model known to the fake server.
type Model struct {
	// Name is the model name, e.g. "llama3.2" or "llama3.2:1b". A name
	// without a tag gets ":latest", as in Ollama.
	Name string
	// Capabilities as reported by /api/show, e.g. "completion", "tools",
	// "thinking", "embedding" (default: ["completion"]).
	Capabilities []string
	// ContextLength is reported as "<family>.context_length" in model_info
	// (default 4096).
	ContextLength int
	// Size in bytes, reported by /api/tags and used for pull progress
	// (default 1,000,000).
	Size int64
	// Family is the architecture, e.g. "llama" or "bert" (default "llama").
	Family string
}

// DefaultModels returns the models a Server has unless [WithModels] is used:
// a chat model "fake-chat" with capabilities completion and tools and a
// context length of 4096, and an embedding model "fake-embed".
func DefaultModels() []Model {
	return []Model{
		{Name: DefaultChatModel, Capabilities: []string{"completion", "tools"}, ContextLength: 4096, Family: "llama"},
		{Name: DefaultEmbedModel, Capabilities: []string{"embedding"}, ContextLength: 2048, Family: "bert"},
	}
}

// modifiedAt is the fixed modification time reported for every model.
var modifiedAt = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// normalised returns m with its name normalised and defaults filled in.
func (m Model) normalised() Model {
	m.Name = normaliseName(m.Name)
	if m.Capabilities == nil {
		m.Capabilities = []string{"completion"}
	}
	m.ContextLength = cmp.Or(m.ContextLength, 4096)
	m.Size = cmp.Or(m.Size, 1_000_000)
	m.Family = cmp.Or(m.Family, "llama")
	return m
}

// has reports whether m has the capability c.
func (m Model) has(c string) bool { return slices.Contains(m.Capabilities, c) }

// digest is a stable fake digest derived from the model name.
func (m Model) digest() string {
	sum := sha256.Sum256([]byte(m.Name))
	return hex.EncodeToString(sum[:])
}

func (m Model) details() api.ModelDetails {
	return api.ModelDetails{
		Format:            "gguf",
		Family:            m.Family,
		Families:          []string{m.Family},
		ParameterSize:     "1.0B",
		QuantizationLevel: "Q4_K_M",
	}
}

// normaliseName turns "x" into "x:latest" and strips the default
// "registry.ollama.ai/library/" prefix, like Ollama's short display names.
func normaliseName(name string) string {
	n := strings.TrimSpace(name)
	n = strings.TrimPrefix(n, "registry.ollama.ai/")
	n = strings.TrimPrefix(n, "library/")
	if n != "" && !strings.Contains(n[strings.LastIndex(n, "/")+1:], ":") {
		n += ":latest"
	}
	return n
}

// qualifiedName is the fully qualified name Ollama uses in some errors,
// e.g. "registry.ollama.ai/library/x:latest".
func qualifiedName(normalised string) string {
	switch strings.Count(normalised, "/") {
	case 0:
		return "registry.ollama.ai/library/" + normalised
	case 1:
		return "registry.ollama.ai/" + normalised
	default:
		return normalised
	}
}

// findModel looks name up among models (case-insensitively, like Ollama).
func findModel(models []Model, name string) (Model, bool) {
	n := normaliseName(name)
	for _, m := range models {
		if strings.EqualFold(m.Name, n) {
			return m, true
		}
	}
	return Model{}, false
}

// model returns the installed model called name.
func (s *Server) model(name string) (Model, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return findModel(s.models, name)
}

// Models returns the installed models (with normalised names), including
// ones added by /api/pull.
func (s *Server) Models() []Model {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.models)
}

// Pulls returns the model names of every /api/pull request, in order.
func (s *Server) Pulls() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.pulls)
}

// Shows returns the model names of every /api/show request, in order.
func (s *Server) Shows() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.shows)
}

// handleTags serves GET /api/tags.
func (s *Server) handleTags(w http.ResponseWriter, r *http.Request) {
	resp := api.ListResponse{Models: []api.ListModelResponse{}}
	for _, m := range s.Models() {
		resp.Models = append(resp.Models, api.ListModelResponse{
			Name:       m.Name,
			Model:      m.Name,
			ModifiedAt: modifiedAt,
			Size:       m.Size,
			Digest:     m.digest(),
			Details:    m.details(),
		})
	}
	writeJSON(w, http.StatusOK, resp)
}

// handleShow serves POST /api/show.
func (s *Server) handleShow(w http.ResponseWriter, r *http.Request) {
	var req api.ShowRequest
	if !decodeBody(w, r, &req) {
		return
	}
	name := cmp.Or(req.Model, req.Name)
	s.mu.Lock()
	s.shows = append(s.shows, name)
	s.mu.Unlock()
	m, ok := s.model(name)
	if !ok {
		writeError(w, http.StatusNotFound, fmt.Sprintf("model '%s' not found", name))
		return
	}
	info := map[string]any{
		"general.architecture":             m.Family,
		"general.parameter_count":          1_000_000_000,
		m.Family + ".context_length":       m.ContextLength,
		m.Family + ".embedding_length":     2048,
		m.Family + ".block_count":          16,
		m.Family + ".attention.head_count": 32,
	}
	if m.has("embedding") {
		info[m.Family+".embedding_length"] = s.embedDim
	}
	caps := make([]model.Capability, len(m.Capabilities))
	for i, c := range m.Capabilities {
		caps[i] = model.Capability(c)
	}
	template := "{{ .Prompt }}"
	if m.has("tools") {
		template = "{{- if .Tools }}{{ .Tools }}{{ end }}{{ range .Messages }}{{ .Content }}{{ end }}"
	}
	writeJSON(w, http.StatusOK, api.ShowResponse{
		Modelfile:    "# Modelfile generated by fakeollama\nFROM " + m.Name + "\n",
		Parameters:   "temperature 0",
		Template:     template,
		Details:      m.details(),
		ModelInfo:    info,
		Capabilities: caps,
		ModifiedAt:   modifiedAt,
	})
}

// handlePull serves POST /api/pull: progress lines, then the model is
// installed. Names not in the registry fail like Ollama's
// "file does not exist".
func (s *Server) handlePull(w http.ResponseWriter, r *http.Request) {
	var req api.PullRequest
	if !decodeBody(w, r, &req) {
		return
	}
	name := cmp.Or(req.Model, req.Name)
	if name == "" {
		writeError(w, http.StatusBadRequest, "invalid model name")
		return
	}
	s.mu.Lock()
	s.pulls = append(s.pulls, name)
	m, ok := findModel(s.registry, name)
	offline := s.offline
	s.mu.Unlock()

	notFound := "pull model manifest: file does not exist"
	if offline {
		ok = false
		notFound = offlinePullError(name)
	}
	stream := req.Stream == nil || *req.Stream
	if !stream {
		if !ok {
			writeError(w, http.StatusInternalServerError, notFound)
			return
		}
		s.install(m)
		writeJSON(w, http.StatusOK, api.ProgressResponse{Status: "success"})
		return
	}

	lw := newLineWriter(w)
	_ = lw.write(api.ProgressResponse{Status: "pulling manifest"})
	if !ok {
		_ = lw.write(map[string]string{"error": notFound})
		return
	}
	digest := "sha256:" + m.digest()
	for _, done := range []int64{0, m.Size / 2, m.Size} {
		p := api.ProgressResponse{Status: "pulling " + m.digest()[:12], Digest: digest, Total: m.Size, Completed: done}
		if lw.write(p) != nil {
			return
		}
	}
	_ = lw.write(api.ProgressResponse{Status: "verifying sha256 digest"})
	_ = lw.write(api.ProgressResponse{Status: "writing manifest"})
	s.install(m)
	_ = lw.write(api.ProgressResponse{Status: "success"})
}

// offlinePullError is Ollama's answer to a pull without network.
func offlinePullError(name string) string {
	repo, tag, _ := strings.Cut(normaliseName(name), ":")
	return fmt.Sprintf(`pull model manifest: Get "https://registry.ollama.ai/v2/library/%s/manifests/%s": `+
		`dial tcp: lookup registry.ollama.ai on 127.0.0.53:53: server misbehaving`, repo, tag)
}

// install adds m to the installed models unless it is already there.
func (s *Server) install(m Model) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := findModel(s.models, m.Name); !ok {
		s.models = append(s.models, m)
	}
}

// decodeBody reads the JSON request body into v, answering 400 like Ollama
// when it is missing or malformed.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) bool {
	_, ok := readBody(w, r, v)
	return ok
}

// readBody is decodeBody that also returns the raw body. The body is read
// to the end so that the server notices when the client goes away.
func readBody(w http.ResponseWriter, r *http.Request, v any) ([]byte, bool) {
	raw, err := io.ReadAll(r.Body)
	switch {
	case err != nil:
		writeError(w, http.StatusBadRequest, err.Error())
		return nil, false
	case len(strings.TrimSpace(string(raw))) == 0:
		writeError(w, http.StatusBadRequest, "missing request body")
		return nil, false
	}
	if err := json.Unmarshal(raw, v); err != nil {
		writeError(w, http.StatusBadRequest, err.Error())
		return nil, false
	}
	return raw, true
}
