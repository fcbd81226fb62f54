package ollama_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/internal/ollama"
)

func fakeClient(t *testing.T, srv *fakeollama.Server) *api.Client {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return api.NewClient(u, http.DefaultClient)
}

func TestModelManagerListsCapabilitiesAndSizes(t *testing.T) {
	srv := fakeollama.New(t, fakeollama.WithModels(
		fakeollama.Model{Name: "llama3.2", Capabilities: []string{"completion", "tools"}, Size: 2_019_393_189, ContextLength: 131072},
		fakeollama.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}, Size: 274_302_450, Family: "bert"},
	))
	models, err := ollama.Models{Client: fakeClient(t, srv)}.List(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want := []ollama.ModelInfo{
		{Name: "llama3.2:latest", Size: 2_019_393_189, Capabilities: []string{"completion", "tools"}, ContextLength: 131072},
		{Name: "nomic-embed-text:latest", Size: 274_302_450, Capabilities: []string{"embedding"}, ContextLength: 4096},
	}
	if len(models) != len(want) {
		t.Fatalf("listed %+v", models)
	}
	for i := range want {
		m := models[i]
		if m.Name != want[i].Name || m.Size != want[i].Size || !slices.Equal(m.Capabilities, want[i].Capabilities) || m.ContextLength != want[i].ContextLength {
			t.Errorf("model %d = %+v, want %+v", i, m, want[i])
		}
	}
	if !models[0].CanChat() || models[0].CanEmbed() || !models[1].CanEmbed() || models[1].CanChat() {
		t.Errorf("capabilities read wrong: %+v", models)
	}
}

func TestModelManagerPullReportsProgress(t *testing.T) {
	srv := fakeollama.New(t, fakeollama.WithModels(), fakeollama.WithRegistry(
		fakeollama.Model{Name: "llama3.2", Capabilities: []string{"completion", "tools"}, Size: 2_000_000}))
	mgr := ollama.Models{Client: fakeClient(t, srv)}
	var reports []ollama.PullProgress
	if err := mgr.Pull(context.Background(), "llama3.2", func(p ollama.PullProgress) { reports = append(reports, p) }); err != nil {
		t.Fatal(err)
	}
	var sized []int64
	for _, r := range reports {
		if r.Total > 0 {
			if r.Total != 2_000_000 || r.Digest == "" {
				t.Errorf("report %+v", r)
			}
			sized = append(sized, r.Completed)
		}
	}
	if !slices.Equal(sized, []int64{0, 1_000_000, 2_000_000}) {
		t.Errorf("completed bytes %v over %+v", sized, reports)
	}
	if last := reports[len(reports)-1]; last.Status != "success" {
		t.Errorf("last report %+v, want success", last)
	}
	models, err := mgr.List(context.Background())
	if err != nil || len(models) != 1 || models[0].Name != "llama3.2:latest" {
		t.Fatalf("after the pull: %+v, %v", models, err)
	}

	if err := mgr.Pull(context.Background(), "no-such-model", func(ollama.PullProgress) {}); err == nil {
		t.Fatal("pulling a model the registry lacks succeeded")
	}
}

func TestModelManagerPullCancels(t *testing.T) {
	srv := fakeollama.New(t, fakeollama.WithModels(), fakeollama.WithRegistry(
		fakeollama.Model{Name: "nomic-embed-text", Capabilities: []string{"embedding"}, Size: 1_000_000}))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	calls := 0
	err := ollama.Models{Client: fakeClient(t, srv)}.Pull(ctx, "nomic-embed-text", func(ollama.PullProgress) {
		calls++
		cancel() // the user pressed Esc at the first report
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("pull returned %v, want context.Canceled", err)
	}
	if calls != 1 {
		t.Fatalf("%d reports after cancelling at the first", calls)
	}
}

// TestRegistryCheckOnlySpeaksForThisMachine: the model library is checked
// for an Ollama on this machine only; an answer of any status means
// reachable, a closed port does not.
func TestRegistryCheckOnlySpeaksForThisMachine(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	ctx := context.Background()
	if err := ollama.RegistryReachable(ctx, srv.URL, "http://127.0.0.1:11434", nil); err != nil {
		t.Errorf("a registry that answers 404 is unreachable: %v", err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String()
	l.Close()
	if err := ollama.RegistryReachable(ctx, closed, "http://localhost:11434", nil); err == nil {
		t.Error("a closed port counts as reachable")
	}
	if err := ollama.RegistryReachable(ctx, closed, "http://gpu-box.lan:11434", nil); err != nil {
		t.Errorf("the check speaks for another machine's Ollama: %v", err)
	}
	if err := ollama.RegistryReachable(ctx, ollama.RegistryOff, "http://127.0.0.1:11434", nil); err != nil {
		t.Errorf("off still checks: %v", err)
	}
}

// TestProbeOfAnotherServerSaysSo: a server on the address that answers
// 404 to /api/version is not Ollama; the probe says so, not that a model
// is missing.
func TestProbeOfAnotherServerSaysSo(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	st := ollama.Probe(context.Background(), api.NewClient(u, http.DefaultClient), srv.URL, "", "", func(err error) error { return err })
	if st.Reachable || !errors.Is(st.Err, ollama.ErrNotOllama) || errors.Is(st.Err, ollama.ErrModelNotFound) {
		t.Fatalf("probe of a 404 server: reachable %v, err %v", st.Reachable, st.Err)
	}
}

// An embedding model set by name is used, but one that reports it is not
// an embedding model is said to be so.
func TestChooseEmbedSaysAChatModelIsNoEmbeddingModel(t *testing.T) {
	models := []ollama.ModelInfo{
		{Name: "llama3.2:latest", Capabilities: []string{"completion", "tools"}},
		{Name: "nomic-embed-text:latest", Capabilities: []string{"embedding"}},
		{Name: "old:latest"}, // capabilities not reported: taken at its word
	}
	if m, note := ollama.ChooseEmbed(models, "llama3.2"); m.Name != "llama3.2:latest" || note != "configured; it is not an embedding model (it reports: completion, tools), so search by meaning may find little: an embedding model such as nomic-embed-text does better" {
		t.Errorf("a chat model: %q, %q", m.Name, note)
	}
	for _, name := range []string{"nomic-embed-text", "old"} {
		if m, note := ollama.ChooseEmbed(models, name); m.Name == "" || note != "configured" {
			t.Errorf("%s: %q, %q", name, m.Name, note)
		}
	}
}

func TestValidName(t *testing.T) {
	for _, ok := range []string{"llama3.2", "qwen2.5:7b", "nomic-embed-text:latest", "hf.co/bartowski/Llama-3.2-1B-Instruct-GGUF:Q4_K_M", "localhost:5000/team/model:v1"} {
		if !ollama.ValidName(ok) {
			t.Errorf("%q refused", ok)
		}
	}
	for _, bad := range []string{"$(rm -rf ~)", "two words", "", "x;y", "a:b:c", "/abs", "llama\x1b[31m", "model:"} {
		if ollama.ValidName(bad) {
			t.Errorf("%q taken", bad)
		}
	}
}

// TestHostileModelNamesAreLeftOut: a server that lists a model named with
// escape sequences (to rewrite the terminal's title, colour what follows)
// gets it neither listed, nor chosen, nor printed: only names a model can
// have come through.
func TestHostileModelNamesAreLeftOut(t *testing.T) {
	hostile := "nomic\x1b]0;PWNED\a\x1b[31m-embed"
	srv := fakeollama.New(t, fakeollama.WithModels(
		fakeollama.Model{Name: hostile, Capabilities: []string{"embedding"}},
		fakeollama.Model{Name: "llama3.2", Capabilities: []string{"completion", "tools"}},
	))
	c := fakeClient(t, srv)
	models, err := ollama.Models{Client: c}.List(context.Background())
	if err != nil || len(models) != 1 || models[0].Name != "llama3.2:latest" {
		t.Fatalf("listed %+v: %v", models, err)
	}
	for _, st := range []ollama.State{
		ollama.Probe(context.Background(), c, srv.URL, "", "", func(err error) error { return err }),
		ollama.ProbeEmbedding(context.Background(), c, srv.URL, "", func(err error) error { return err }),
	} {
		if len(st.Models) != 1 || st.Embed.Name == hostile {
			t.Errorf("probe: models %+v, embedding model %q", st.Models, st.Embed.Name)
		}
	}
}
