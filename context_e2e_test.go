package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/internal/realollama"
	"github.com/mneme-dev/mneme/memory"
)

// longModel is a chat model like most of Ollama's library: a long
// context_length and no num_ctx parameter.
var longModel = fakeollama.Model{Name: "long", Capabilities: []string{"completion", "tools"}, ContextLength: 131072}

// numCtx is the options.num_ctx a request carried (0: none).
func numCtx(req api.ChatRequest) int {
	switch n := req.Options["num_ctx"].(type) {
	case float64:
		return int(n)
	case int:
		return n
	}
	return 0
}

// TestTenShortTurnsReachTheModelWhole: with a model of context_length
// 131072 and no num_ctx parameter, the context is 8192 tokens; ten short
// `ask --continue` turns reach the model whole, tool definitions included,
// with no summary request, and every request says num_ctx 8192.
func TestTenShortTurnsReachTheModelWhole(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t, fakeollama.WithModels(longModel))
	srv.SetDefault(ledgerSummariser(""))
	d := newDevice(t, srv.Host())
	d.extra = []string{"MNEME_MODEL=long"}
	const turns = 10
	var prompts []string
	for i := 1; i <= turns; i++ {
		p := fmt.Sprintf("question %d: we are planning the garden for the spring, and I would like to know "+
			"which vegetables grow well in partial shade by the stone wall, how deep the beds "+
			"should be, and when to sow item %d so it comes up before the summer heat.", i, i)
		if n := len(strings.Fields(p)); n >= 50 {
			t.Fatalf("prompt of %d words; the check is about short turns", n)
		}
		prompts = append(prompts, p)
		args := []string{p}
		if i > 1 {
			args = append([]string{"--continue"}, args...)
		}
		out, _ := d.askCompact(args...)
		if *out.Compacted || out.Dropped != 0 || out.ContextWindow != 8192 {
			t.Fatalf("turn %d: compacted %v, dropped %d, window %d", i, *out.Compacted, out.Dropped, out.ContextWindow)
		}
	}
	reqs := srv.Requests()
	for i, req := range reqs {
		if isSummaryRequest(req) {
			t.Fatalf("request %d is a summary request", i)
		}
		if n := numCtx(req); n != 8192 {
			t.Errorf("request %d: options.num_ctx = %v, want 8192", i, req.Options["num_ctx"])
		}
	}
	last := lastChatRequest(t, srv)
	if len(last.Tools) == 0 {
		t.Fatal("the tool definitions were not sent: the budget check would be too easy")
	}
	var users, assistants []string
	for _, m := range last.Messages {
		switch {
		case strings.HasPrefix(m.Content, "Summary of the earlier conversation"):
			t.Fatalf("the last request carries a summary: %q", m.Content)
		case m.Role == "user":
			users = append(users, m.Content)
		case m.Role == "assistant":
			assistants = append(assistants, m.Content)
		}
	}
	if len(users)+len(assistants) < 2*turns-1 {
		t.Fatalf("last request: %d user and %d assistant messages, want all %d", len(users), len(assistants), 2*turns-1)
	}
	for i, p := range prompts {
		if i >= len(users) || users[i] != p {
			t.Fatalf("user message %d of the last request is not prompt %d", i+1, i+1)
		}
	}
}

// TestContextSettingsChangeNumCtx: num_ctx_max from the file, the
// environment or a flag caps the num_ctx sent; num_ctx sets it outright;
// a nonsense size stops the command with a message naming it.
func TestContextSettingsChangeNumCtx(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t, fakeollama.WithModels(longModel))
	for _, c := range []struct {
		name string
		file string
		env  []string
		args []string
		want int
	}{
		{"default", "", nil, nil, 8192},
		{"file", "num_ctx_max = 2048\n", nil, nil, 2048},
		{"env over file", "num_ctx_max = 2048\n", []string{"MNEME_NUM_CTX_MAX=4096"}, nil, 4096},
		{"flag over env", "", []string{"MNEME_NUM_CTX_MAX=4096"}, []string{"--num-ctx-max", "16384"}, 16384},
		{"num_ctx outright", "num_ctx_max = 2048\n", nil, []string{"--num-ctx", "1024"}, 1024},
	} {
		d := newDevice(t, srv.Host())
		d.extra = append([]string{"MNEME_MODEL=long"}, c.env...)
		if c.file != "" {
			dir := filepath.Join(d.home, "config", "mneme")
			if err := os.MkdirAll(dir, 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "config.toml"), []byte(c.file), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		out, _ := d.askCompact(append(c.args, "hello there")...)
		if got := numCtx(srv.LastRequest()); got != c.want || out.ContextWindow != c.want {
			t.Errorf("%s: num_ctx sent %d, window %d; want %d", c.name, got, out.ContextWindow, c.want)
		}
	}
	before := len(srv.Requests())
	for _, c := range []struct {
		env  []string
		args []string
		want string
	}{
		{[]string{"MNEME_NUM_CTX_MAX=-1"}, nil, "MNEME_NUM_CTX_MAX=-1"},
		{nil, []string{"--num-ctx-max", "100"}, "--num-ctx-max 100"},
		{nil, []string{"--num-ctx", "-2048"}, "--num-ctx -2048"},
	} {
		d := newDevice(t, srv.Host())
		d.extra = append([]string{"MNEME_MODEL=long"}, c.env...)
		r := d.mneme("", append(append([]string{"ask"}, c.args...), "hello")...)
		if r.code == 0 || !strings.Contains(r.stderr, c.want) || !strings.Contains(r.stderr, "want 512-") {
			t.Errorf("%v %v: exit %d, stderr %q", c.env, c.args, r.code, r.stderr)
		}
	}
	if n := len(srv.Requests()); n != before {
		t.Errorf("a rejected setting still sent %d requests", n-before)
	}
}

// TestDoctorShowsTheContext: doctor says which context the chat model
// runs with and why, naming the setting's layer (which one to change).
func TestDoctorShowsTheContext(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t, fakeollama.WithModels(longModel,
		fakeollama.Model{Name: "short", Capabilities: []string{"completion"}, ContextLength: 4096}))
	for _, c := range []struct {
		extra []string
		want  string
	}{
		{[]string{"MNEME_MODEL=long"}, "8192 tokens (model 131072, capped by num_ctx_max)"},
		{[]string{"MNEME_MODEL=long", "MNEME_NUM_CTX_MAX=32768"}, "32768 tokens (model 131072, capped by MNEME_NUM_CTX_MAX)"},
		{[]string{"MNEME_MODEL=short"}, "4096 tokens (model 4096, the model's full context)"},
		{[]string{"MNEME_MODEL=long", "MNEME_NUM_CTX=2048"}, "2048 tokens (model 131072, set by MNEME_NUM_CTX)"},
	} {
		d := newDevice(t, srv.Host())
		d.extra = c.extra
		r := d.mustOK("", "doctor")
		if !strings.Contains(r.stdout, "context") || !strings.Contains(r.stdout, c.want) || !strings.Contains(r.stdout, "(set by MNEME_MODEL)") {
			t.Errorf("%v: doctor lacks %q:\n%s", c.extra, c.want, r.stdout)
		}
	}
}

// chatRecorder is a reverse proxy in front of a real Ollama that records
// the chat requests passing through it.
type chatRecorder struct {
	mu   sync.Mutex
	reqs []api.ChatRequest
	host string // host:port of the proxy
}

func newChatRecorder(t *testing.T, target string) *chatRecorder {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rec := &chatRecorder{}
	proxy := httputil.NewSingleHostReverseProxy(u)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/chat" {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			var req api.ChatRequest
			if err := json.Unmarshal(body, &req); err != nil {
				t.Errorf("chat request is not JSON: %v", err)
			}
			rec.mu.Lock()
			rec.reqs = append(rec.reqs, req)
			rec.mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		proxy.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	rec.host = strings.TrimPrefix(srv.URL, "http://")
	return rec
}

func (rec *chatRecorder) requests() []api.ChatRequest {
	rec.mu.Lock()
	defer rec.mu.Unlock()
	return slices.Clone(rec.reqs)
}

// TestContextRealOllama: against a real Ollama server and a model with no
// num_ctx parameter, mneme sends the context it chose (the model's length
// capped by num_ctx_max, here 512) with every chat and summary request,
// the server accepts it, and compaction at that small context works.
func TestContextRealOllama(t *testing.T) {
	srv := realollama.Start(t)
	srv.CreateChatModel(t, "stories-plain", 0)
	rec := newChatRecorder(t, srv.URL)
	d := newDevice(t, rec.host)
	d.extra = []string{"MNEME_MODEL=stories-plain", "MNEME_NUM_CTX_MAX=512", "MNEME_SUMMARY_TOKENS=32"}
	if r := d.mustOK("", "doctor"); !strings.Contains(r.stdout, "512 tokens (model ") {
		t.Fatalf("doctor does not show the context:\n%s", r.stdout)
	}
	prompts := []string{
		"Once upon a time there was a little dog.", "The dog liked to play in the park.",
		"One day the dog met a cat.", "The cat was called Tom.", "Tom and the dog became friends.",
		"They went to the river together.", "The river was big and blue.", "At night they went home.",
	}
	compacted := false
	for i, p := range prompts {
		args := []string{p}
		if i > 0 {
			args = []string{"--continue", p}
		}
		out, _ := d.askCompact(args...)
		if strings.TrimSpace(out.Answer) == "" || out.ContextWindow != 512 {
			t.Fatalf("turn %d: %+v", i+1, out)
		}
		compacted = compacted || *out.Compacted
	}
	if !compacted {
		t.Fatal("a context of 512 tokens never compacted")
	}
	reqs := rec.requests()
	summaries := 0
	for i, req := range reqs {
		if isSummaryRequest(req) {
			summaries++
		}
		if n := numCtx(req); n != 512 {
			t.Errorf("request %d: options.num_ctx = %v, want 512", i, req.Options["num_ctx"])
		}
	}
	if len(reqs) < len(prompts) || summaries == 0 {
		t.Fatalf("%d chat requests, %d of them summaries", len(reqs), summaries)
	}
}

// TestAServerThatIsNotOllamaIsSaid: a server that answers /api/version as
// Ollama does but /api/tags with a web page (a proxy, the wrong port) is
// said to be no Ollama: doctor says the models could not be listed (not
// "none installed"), and ask says what to check instead of quoting Go's
// JSON error.
func TestAServerThatIsNotOllamaIsSaid(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/api/version" {
			fmt.Fprint(w, `{"version":"0.6.5"}`)
			return
		}
		fmt.Fprint(w, "<html><body>Welcome to nginx!</body></html>")
	}))
	t.Cleanup(srv.Close)
	d := newDevice(t, strings.TrimPrefix(srv.URL, "http://"))
	r := d.mneme("", "doctor")
	if !strings.Contains(r.stdout, "could not be listed: not an Ollama server at") || strings.Contains(r.stdout, "none installed") ||
		!strings.Contains(r.stdout, "not known: the models could not be listed") {
		t.Fatalf("doctor:\n%s", r.stdout)
	}
	r = d.mneme("", "ask", "hello")
	if r.code == 0 || !strings.Contains(r.stderr, "not Ollama's JSON (is OLLAMA_HOST right?)") || strings.Contains(r.stderr, "invalid character") {
		t.Fatalf("ask: exit %d, stderr %q", r.code, r.stderr)
	}
}

// TestDoctorWithNoModelsSaysNoneInstalled: an Ollama with no model listed
// them, and none is installed: doctor says so, not "could not be listed"
// (the missing chat model is its own problem line).
func TestDoctorWithNoModelsSaysNoneInstalled(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t, fakeollama.WithModels())
	d := newDevice(t, srv.Host())
	r := d.mneme("", "doctor")
	if !strings.Contains(r.stdout, "none installed") || strings.Contains(r.stdout, "could not be listed") || !strings.Contains(r.stdout, "problem: ") {
		t.Fatalf("doctor with no models:\n%s", r.stdout)
	}
}

// TestDoctorQuotesAPathWithAnEscape: a data dir whose name holds an escape
// is shown quoted, as the folder it is, not cleaned into another plausible
// name; its database is inside it.
func TestDoctorQuotesAPathWithAnEscape(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	dir := filepath.Join(d.home, "d\x1b[31mx")
	r := d.mustOK("", "--data-dir", dir, "doctor")
	if !strings.Contains(r.stdout, strconv.Quote(dir)) || strings.ContainsRune(r.stdout, '\x1b') {
		t.Fatalf("doctor:\n%s", r.stdout)
	}
	if _, err := os.Stat(filepath.Join(dir, memory.DBFileName)); err != nil {
		t.Fatalf("the database is not in the data dir: %v", err)
	}
}

// TestDoctorChecksPastAnOverriddenDataDir: a bad data_dir in the file that
// the environment overrides is named, and the data dir in use is checked
// (doctor stopped there, though every other command ran).
func TestDoctorChecksPastAnOverriddenDataDir(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	writeFiles(t, filepath.Join(d.home, "config", "mneme"), map[string]string{"config.toml": "data_dir = \"rel\"\n"})
	r := d.mneme("", "doctor")
	if !strings.Contains(r.stdout, `data_dir = "rel": invalid value`) || !strings.Contains(r.stdout, "overrides it") ||
		!strings.Contains(r.stdout, "schema ") || !strings.Contains(r.stdout, "reachable, version") {
		t.Fatalf("doctor with an overridden bad data_dir:\n%s", r.stdout)
	}
}
