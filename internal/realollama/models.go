package realollama

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// ModelFile is the model every helper here creates models from, relative to
// the shared directory: a real 260K-parameter llama that writes children's
// stories (see shared/models/README.md).
const ModelFile = "models/stories260K.gguf"

// ToolsTemplate is a chat TEMPLATE for which Ollama reports the "tools"
// capability, because it renders .Tools, and which round-trips tool calls:
// it renders .Messages, an assistant's .ToolCalls and the "tool" role.
//
// How the server finds tool calls in a reply depends on its version, and
// this template suits both:
//   - v0.6.5 executes the {{ range .ToolCalls }} subtree with a dummy call,
//     learns from the JSON it renders that the call's name is under "name"
//     and its arguments under "arguments", then takes every JSON object in
//     the reply that has those two keys as a call.
//   - later versions use the text before "{" inside {{ if .ToolCalls }} as
//     the marker that starts a call; here that text is empty, so they too
//     parse any JSON object in the reply.
//
// stories260K cannot choose to call a tool; pair this template with
// ToolCallFormat to make it. Without a format it writes story text, which
// v0.6.5 does not stream when the request has tools: it buffers the text
// while looking for calls and sends it in the final chunk.
const ToolsTemplate = `{{- if .Tools }}Tools:{{ range .Tools }} {{ .Function.Name }}{{ end }}
{{ end }}
{{- range .Messages }}
{{- if eq .Role "system" }}{{ .Content }}
{{ else if eq .Role "user" }}User: {{ .Content }}
{{ else if eq .Role "assistant" }}Assistant: {{ .Content }}
{{- if .ToolCalls }}{{ range .ToolCalls }}{"name": "{{ .Function.Name }}", "arguments": {{ .Function.Arguments }}}{{ end }}{{ end }}
{{ else if eq .Role "tool" }}Tool: {{ .Content }}
{{ end }}
{{- end }}Assistant: `

// ToolCallFormat returns a JSON schema, for the format field of a chat
// request, that admits exactly one reply: the tool call
// {"name": name, "arguments": args}, in the shape ToolsTemplate declares.
// The server turns the schema into a grammar that constrains sampling, so
// with a model created by CreateToolsModel the reply is always that tool
// call (the request must list the tool, or the server returns plain text).
// args must marshal to JSON; its values are pinned with "const".
func ToolCallFormat(name string, args map[string]any) json.RawMessage {
	props := make(map[string]any, len(args))
	for k, v := range args {
		props[k] = map[string]any{"const": v}
	}
	required := slices.Sorted(maps.Keys(args)) // sorted: same args, same schema
	schema := map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name": map[string]any{"const": name},
			"arguments": map[string]any{
				"type":                 "object",
				"properties":           props,
				"required":             required,
				"additionalProperties": false,
			},
		},
		"required":             []string{"name", "arguments"},
		"additionalProperties": false,
	}
	b, err := json.Marshal(schema)
	if err != nil {
		panic(fmt.Sprintf("realollama: ToolCallFormat: %v", err))
	}
	return b
}

// SharedFile returns the path of rel inside the shared directory:
// $MNEME_SHARED_DIR, or else ../shared beside the repository root (the
// nearest directory above the working directory holding go.mod). If the
// file is missing, as it may be outside this project's machines, the test
// is skipped with a message naming it, or fails when CI=true.
func SharedFile(t testing.TB, rel string) string {
	t.Helper()
	dir := os.Getenv(EnvSharedDir)
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			skipOrFail(t, fmt.Sprintf("realollama: shared file %s wanted, but %v", rel, err))
		}
		dir = filepath.Join(filepath.Dir(root), "shared")
	}
	path := filepath.Join(dir, filepath.FromSlash(rel))
	if _, err := os.Stat(path); err != nil {
		skipOrFail(t, fmt.Sprintf("realollama: shared file %s wanted (see shared/README.md): %v", rel, err))
	}
	return path
}

// repoRoot walks up from the working directory to the one holding go.mod.
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}

// Replies of the models created here are bounded by their num_predict
// parameter, so that a client that sends none (as mneme does) still gets a
// short answer. A forced tool call (ToolCallFormat) needs more room.
const (
	DefaultNumPredict = 48
	ToolsNumPredict   = 200
)

// CreateChatModel creates model name from ModelFile with temperature 0 and
// the given num_ctx parameter (none when 0, as for most library models). Its template is the server's default for a GGUF
// without a chat template ({{ .Prompt }}), which does not support tools:
// a chat request with tools gets HTTP 400 "... does not support tools".
//
// Replies are bounded by the model's num_predict parameter (DefaultNumPredict):
// stories260K rarely stops by itself and can write for tens of seconds.
// The model runs on one thread (num_thread 1): the tiny model gains nothing
// from a second, and the runner's threads spin-wait on each other, which on
// a loaded two-core machine made one reply take 30 s instead of 0.3 s.
func (s *Server) CreateChatModel(t testing.TB, name string, numCtx int) {
	t.Helper()
	s.createModel(t, name, numCtx, DefaultNumPredict, "")
}

// CreateToolsModel is CreateChatModel with ToolsTemplate as the template,
// so the model accepts tools and the server parses tool calls from its
// replies (see ToolCallFormat).
func (s *Server) CreateToolsModel(t testing.TB, name string, numCtx int) {
	t.Helper()
	s.createModel(t, name, numCtx, ToolsNumPredict, ToolsTemplate)
}

// createModel uploads ModelFile as a blob and creates the model from it
// through the create API (the v0.6.5 form: files map name -> blob digest).
func (s *Server) createModel(t testing.TB, name string, numCtx, numPredict int, template string) {
	t.Helper()
	path := SharedFile(t, ModelFile)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()

	digest, err := s.uploadBlob(ctx, path)
	if err != nil {
		t.Fatalf("realollama: uploading %s: %v", path, err)
	}
	req := &api.CreateRequest{
		Model:    name,
		Files:    map[string]string{filepath.Base(path): digest},
		Template: template,
		Parameters: map[string]any{
			"temperature": 0,
			"num_predict": numPredict,
			"num_thread":  1,
		},
	}
	if numCtx > 0 {
		req.Parameters["num_ctx"] = numCtx
	}
	if err := s.client.Create(ctx, req, func(api.ProgressResponse) error { return nil }); err != nil {
		t.Fatalf("realollama: creating model %s: %v", name, err)
	}
}

// uploadBlob stores the file at path on the server and returns its digest.
func (s *Server) uploadBlob(ctx context.Context, path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return "", err
	}
	digest := "sha256:" + hex.EncodeToString(h.Sum(nil))
	if err := s.client.CreateBlob(ctx, digest, f); err != nil {
		return "", err
	}
	return digest, nil
}
