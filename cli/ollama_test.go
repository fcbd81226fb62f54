package cli

import (
	"context"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/fakeollama"
)

// TestSearchProbeAsksOnlyWhatItNeeds: a command that only searches asks
// /api/show about the installed models in order until one makes
// embeddings (or only about the configured one), not about every model as
// the chat's probe does; it finds the same embedding model.
func TestSearchProbeAsksOnlyWhatItNeeds(t *testing.T) {
	srv := fakeollama.New(t, fakeollama.WithModels(
		fakeollama.Model{Name: "chat-a", Capabilities: []string{"completion", "tools"}},
		fakeollama.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}, ContextLength: 2048},
		fakeollama.Model{Name: "chat-b", Capabilities: []string{"completion"}},
		fakeollama.Model{Name: "mxbai-embed-large", Capabilities: []string{"embedding"}},
	))
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	client := api.NewClient(u, http.DefaultClient)
	ctx := context.Background()

	full := probeOllama(ctx, client, srv.URL, config.Config{})
	if n := len(srv.Shows()); n != 4 {
		t.Fatalf("the full probe asked /api/show %d times, want every model", n)
	}
	before := len(srv.Shows())
	st := probeEmbedding(ctx, client, srv.URL, config.Config{})
	if got := srv.Shows()[before:]; !slices.Equal(got, []string{"chat-a:latest", "nomic-embed-text:latest"}) {
		t.Errorf("the search probe asked about %q", got)
	}
	if st.Embed.Name != full.Embed.Name || st.Embed.ContextLength != 2048 || !st.Reachable {
		t.Errorf("search probe chose %+v, the full probe %+v", st.Embed, full.Embed)
	}

	before = len(srv.Shows())
	st = probeEmbedding(ctx, client, srv.URL, config.Config{EmbedModel: "mxbai-embed-large"})
	if got := srv.Shows()[before:]; !slices.Equal(got, []string{"mxbai-embed-large:latest"}) || st.Embed.Name != "mxbai-embed-large:latest" {
		t.Errorf("with embed_model set: asked about %q, chose %q", got, st.Embed.Name)
	}
}
