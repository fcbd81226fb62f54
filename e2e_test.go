package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/internal/ollama"
	"github.com/mneme-dev/mneme/internal/realollama"
	"github.com/mneme-dev/mneme/memory"
)

// mnemeBin is the binary built once for the end-to-end tests in this package.
var mnemeBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mneme-e2e")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	mnemeBin = filepath.Join(dir, "mneme")
	build := exec.Command("go", "build", "-o", mnemeBin, ".")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build mneme:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// device is one user's machine: a data dir, a config dir and an Ollama address.
type device struct {
	t       *testing.T
	home    string
	ollama  string
	extra   []string
	timeout time.Duration
}

func newDevice(t *testing.T, ollamaHost string) *device {
	return &device{t: t, home: t.TempDir(), ollama: ollamaHost, timeout: 60 * time.Second}
}

func (d *device) env() []string {
	return append([]string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + d.home,
		"XDG_CONFIG_HOME=" + filepath.Join(d.home, "config"),
		"MNEME_DATA_DIR=" + filepath.Join(d.home, "data"),
		"MNEME_USER=tester",
		"OLLAMA_HOST=" + d.ollama,
		// The model library answers where Ollama does (any HTTP answer
		// means reachable); a test of the offline path overrides it.
		"MNEME_OLLAMA_REGISTRY=http://" + d.ollama,
		// The scripts of most tests predate learning from turns, which
		// would take their replies: the tests of learning turn it on
		// (learnOn).
		"MNEME_MEMORY_REVIEW=off",
	}, d.extra...)
}

type result struct {
	stdout, stderr string
	code           int
}

// mneme runs the binary with args and optional stdin.
func (d *device) mneme(stdin string, args ...string) result {
	d.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d.timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, mnemeBin, args...)
	cmd.Env = d.env()
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		d.t.Fatalf("mneme %v did not finish within %s\nstderr: %s", args, d.timeout, errb.String())
	}
	r := result{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		r.code = ee.ExitCode()
	} else if err != nil {
		d.t.Fatal(err)
	}
	return r
}

func (d *device) mustOK(stdin string, args ...string) result {
	d.t.Helper()
	r := d.mneme(stdin, args...)
	if r.code != 0 {
		d.t.Fatalf("mneme %v exited %d\nstdout: %s\nstderr: %s", args, r.code, r.stdout, r.stderr)
	}
	return r
}

func (d *device) conversations() []memory.Conversation {
	d.t.Helper()
	var list []memory.Conversation
	r := d.mustOK("", "conversations", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &list); err != nil {
		d.t.Fatalf("conversations --json: %v\n%s", err, r.stdout)
	}
	return list
}

func TestAskContinueAndList(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())

	// Nothing to continue yet: a new conversation, and ask says so.
	r := d.mustOK("", "ask", "-c", "hello world")
	if r.stdout != "You said: hello world\n" || !strings.Contains(r.stderr, "no conversation to continue yet; starting a new one") {
		t.Fatalf("stdout = %q, stderr = %q", r.stdout, r.stderr)
	}
	if r := d.mustOK("", "ask", "--continue", "second"); strings.Contains(r.stderr, "starting a new one") {
		t.Fatalf("continuing said it started anew: %q", r.stderr)
	}
	var got []string
	for _, m := range srv.LastRequest().Messages {
		got = append(got, m.Role+":"+m.Content)
	}
	want := []string{"user:hello world", "assistant:You said: hello world", "user:second"}
	if len(got) != 4 || !strings.HasPrefix(got[0], "system:") || strings.Join(got[1:], "|") != strings.Join(want, "|") {
		t.Fatalf("second request messages = %q", got)
	}
	list := d.conversations()
	if len(list) != 1 || list[0].MessageCount != 4 || list[0].Title != "hello world" {
		t.Fatalf("conversations = %+v", list)
	}
	// A new ask without --continue starts a second conversation; the
	// human listing shows both, newest first.
	d.mustOK("", "ask", "another topic")
	out := d.mustOK("", "conversations").stdout
	if strings.Index(out, "another topic") > strings.Index(out, "hello world") || !strings.Contains(out, "MESSAGES") {
		t.Fatalf("listing:\n%s", out)
	}
}

func TestAskJSONAndStdin(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	r := d.mustOK("summarise this piped text\n", "ask", "--json")
	var res struct {
		ConversationID string            `json:"conversation_id"`
		Answer         string            `json:"answer"`
		ToolCalls      []json.RawMessage `json:"tool_calls"`
		Model          string            `json:"model"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatalf("--json output %q: %v", r.stdout, err)
	}
	if res.Answer != "You said: summarise this piped text" || !ollama.SameModel(res.Model, fakeollama.DefaultChatModel) ||
		res.ConversationID == "" || res.ToolCalls == nil {
		t.Fatalf("json = %+v", res)
	}
	if r := d.mneme("", "ask"); r.code != 2 || !strings.Contains(r.stderr, "nothing to ask") {
		t.Fatalf("empty ask: %+v", r)
	}
	// Nothing visible is nothing to ask; the model is given what the user
	// sees: a piped log's colours and hidden tag characters go.
	if r := d.mneme("", "ask", "\u200b\ufeff"); r.code != 2 || !strings.Contains(r.stderr, "nothing to ask") {
		t.Fatalf("an invisible ask: %+v", r)
	}
	r = d.mustOK("\x1b[31mFAIL\x1b[0m build\n", "ask", "--json", "why\U000E0049\U000E0047\U000E004E")
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.Answer != "You said: why\n\nFAIL build" {
		t.Fatalf("the model was given %q (%v)", strings.TrimPrefix(res.Answer, "You said: "), err)
	}
	// A prompt and piped text: the model is given both, the prompt first.
	r = d.mustOK("The secret code is PURPLE-42.\n", "ask", "--json", "summarise", "this")
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		t.Fatal(err)
	}
	if res.Answer != "You said: summarise this\n\nThe secret code is PURPLE-42." {
		t.Fatalf("prompt and stdin: the model was given %q", strings.TrimPrefix(res.Answer, "You said: "))
	}
	// --no-stdin leaves stdin to the loop that reads its lines from it.
	r = d.mustOK("line two\nline three\n", "ask", "--json", "--no-stdin", "line one")
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil || res.Answer != "You said: line one" {
		t.Fatalf("--no-stdin: the model was given %q (%v)", res.Answer, err)
	}
}

// TestAskSaysWhatItWaitsFor: beside a prompt, a pipe on stdin that stays
// open and silent is named on stderr with the ways out; its text, once it
// comes and the pipe closes, is added to the prompt.
func TestAskSaysWhatItWaitsFor(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	cmd := exec.Command(mnemeBin, "ask", "--json", "what is this")
	cmd.Env = d.env()
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	stderr, pw := io.Pipe()
	defer stderr.Close()
	cmd.Stdout, cmd.Stderr = &out, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(stderr)
	line, err := br.ReadString('\n') // blocks until mneme says it
	go io.Copy(io.Discard, br)       // the rest of stderr, until the pipe closes
	if err != nil || !strings.Contains(line, "waiting for the text piped on stdin") || !strings.Contains(line, "--no-stdin") {
		t.Fatalf("stderr %q, %v", line, err)
	}
	io.WriteString(in, "a late line")
	in.Close()
	err = cmd.Wait()
	pw.Close()
	if err != nil {
		t.Fatalf("ask: %v", err)
	}
	var res struct{ Answer string }
	if err := json.Unmarshal(out.Bytes(), &res); err != nil || res.Answer != "You said: what is this\n\na late line" {
		t.Fatalf("answer %q (%v)", res.Answer, err)
	}
}

func TestAskClosedPortFailsFastNamingTheAddress(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	d := newDevice(t, addr)
	d.timeout = 5 * time.Second // the acceptance bound
	r := d.mneme("", "ask", "hi")
	if r.code == 0 || !strings.Contains(r.stderr, addr) || !strings.Contains(r.stderr, "ollama serve") {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	// No answer could come: the conversation this ask began goes again.
	if list := d.conversations(); len(list) != 0 || !strings.Contains(r.stderr, "nothing was stored") {
		t.Fatalf("after a failed ask: conversations %+v, stderr %q", list, r.stderr)
	}
	// A prompt to a conversation that goes on is kept, and said to be.
	d.mustOK("", "import", writeFile(t, "chat.jsonl", `{"conversation":"c","role":"user","content":"hello"}`+"\n"+`{"conversation":"c","role":"assistant","content":"hi"}`+"\n"))
	if r := d.mneme("", "ask", "-c", "still there?"); r.code != 1 || !strings.Contains(r.stderr, "your prompt is kept in the conversation, marked unanswered") {
		t.Fatalf("ask -c with Ollama down: %+v", r)
	}
	if list := d.conversations(); len(list) != 1 || list[0].MessageCount != 4 {
		t.Fatalf("after ask -c: %+v", list)
	}
}

func TestAskUnknownToolStillCompletes(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.Script(
		fakeollama.Reply{ToolCalls: []api.ToolCall{fakeollama.ToolCall("remember_forever", map[string]any{"content": "cat is Tom"})}},
		fakeollama.Say("Noted."),
	)
	d := newDevice(t, srv.Host())
	r := d.mustOK("", "ask", "remember that my cat is called Tom")
	if r.stdout != "Noted.\n" || !strings.Contains(r.stderr, "remember_forever") || !strings.Contains(r.stderr, "unknown tool") {
		t.Fatalf("stdout %q stderr %q", r.stdout, r.stderr)
	}
	sent := srv.LastRequest().Messages
	if last := sent[len(sent)-1]; last.Role != "tool" || !strings.Contains(last.Content, "unknown tool") {
		t.Fatalf("error result not sent to the model: %+v", last)
	}
}

func TestAskMidStreamFailureKeepsPartial(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.Script(fakeollama.Reply{Content: []string{"Half", " an", " answer"}, DropAfter: 2})
	d := newDevice(t, srv.Host())
	r := d.mneme("", "ask", "question")
	if r.code == 0 || !strings.Contains(r.stderr, "stopped mid-answer") || r.stdout != "Half an\n" {
		t.Fatalf("exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
	list := d.conversations()
	if len(list) != 1 || list[0].MessageCount != 2 {
		t.Fatalf("conversations = %+v", list)
	}
	// With --json the answer kept is said to be interrupted, as the
	// stored one is, besides the error.
	srv.Script(fakeollama.Reply{Content: []string{"Half", " an", " answer"}, DropAfter: 2})
	r = d.mneme("", "ask", "--json", "question")
	var out struct {
		Answer, Error string
		Interrupted   bool
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code == 0 || out.Answer != "Half an" || !out.Interrupted || !strings.Contains(out.Error, "stopped mid-answer") {
		t.Fatalf("--json: exit %d, %v, stdout %q", r.code, err, r.stdout)
	}
}

func TestAskNeutralisesTerminalEscapes(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	srv.Script(fakeollama.Reply{Content: []string{"\x1b]0;pwned\x07safe ", "\x1b[2J\x1b[Htext", "\x1b]52;c;aGk=\x07!"}})
	d := newDevice(t, srv.Host())
	r := d.mustOK("", "ask", "x")
	if strings.ContainsAny(r.stdout, "\x1b\x07") || !strings.Contains(r.stdout, "safe") || !strings.Contains(r.stdout, "text") {
		t.Fatalf("stdout %q", r.stdout)
	}
}

func TestAskMissingModel(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	r := d.mneme("", "ask", "--model", "nosuch", "hi")
	if r.code == 0 || !strings.Contains(r.stderr, "ollama pull nosuch") {
		t.Fatalf("exit %d stderr %q", r.code, r.stderr)
	}
	d.extra = []string{"MNEME_MODEL=nosuch"}
	if r := d.mneme("", "ask", "hi"); r.code == 0 || !strings.Contains(r.stderr, "nosuch") {
		t.Fatalf("env model: exit %d stderr %q", r.code, r.stderr)
	}
	// With --json, a failure before the answer is JSON on stdout too (it
	// printed nothing there), so that a script reads its "error".
	// It names the model that was asked for.
	r = d.mneme("", "ask", "--json", "hi")
	var out struct {
		Answer, Error, Model string
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 1 || !strings.Contains(out.Error, "ollama pull nosuch") || out.Answer != "" ||
		out.Model != "nosuch" {
		t.Fatalf("--json: exit %d, %v, stdout %q", r.code, err, r.stdout)
	}
	// So is a database that does not open (a wrong key).
	d.extra = []string{"MNEME_ENCRYPTION_KEY=not-the-key"}
	r = d.mneme("", "ask", "--json", "hi")
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || r.code != 1 || !strings.Contains(out.Error, "encryption key") {
		t.Fatalf("--json with a database that does not open: exit %d, %v, stdout %q", r.code, err, r.stdout)
	}
}

func TestDoctor(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t)
	d := newDevice(t, srv.Host())
	r := d.mustOK("", "doctor")
	for _, want := range []string{"reachable, version 0.6.5", "fake-chat", "tools", "first installed model with tools",
		fmt.Sprintf("schema %d of %d", memory.LatestSchemaVersion(), memory.LatestSchemaVersion()), "tester"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, r.stdout)
		}
	}
	// An extract_model that is not installed learns nothing: a problem
	// (learning failed in the log only, and doctor said "all good").
	d.extra = []string{"MNEME_MEMORY_REVIEW=auto"}
	if r := d.mustOK("", "doctor"); !strings.Contains(r.stdout, "from each turn, with fake-chat:latest (the chat model); new notes are kept at once") {
		t.Errorf("doctor with learning on:\n%s", r.stdout)
	}
	// An embedding model set to chat or to learn with cannot: a problem
	// (doctor said "all good").
	d.extra = []string{"MNEME_MEMORY_REVIEW=auto", "MNEME_MODEL=fake-embed", "MNEME_EXTRACT_MODEL=fake-embed"}
	if r := d.mneme("", "doctor"); r.code != 1 || !strings.Contains(r.stdout, `problem: model "fake-embed" cannot chat (it reports: embedding)`) ||
		!strings.Contains(r.stdout, `problem: extract_model "fake-embed" cannot chat`) {
		t.Errorf("doctor with an embedding model to chat with: exit %d\n%s", r.code, r.stdout)
	}
	d.extra = []string{"MNEME_MEMORY_REVIEW=auto", "MNEME_EXTRACT_MODEL=nosuch"}
	if r := d.mneme("", "doctor"); r.code != 1 || !strings.Contains(r.stdout, "with nosuch (extract_model)") ||
		!strings.Contains(r.stdout, `problem: extract_model "nosuch" is not installed: nothing is learnt from your turns until you run `+"`ollama pull nosuch`") {
		t.Errorf("doctor with extract_model not installed: exit %d\n%s", r.code, r.stdout)
	}
	// A chat model not installed names the setting that asked for it.
	d.extra = []string{"MNEME_MODEL=nosuch"}
	if r := d.mneme("", "doctor"); r.code != 1 || !strings.Contains(r.stdout, "run `ollama pull nosuch` (set by MNEME_MODEL)") {
		t.Errorf("doctor with a chat model not installed: exit %d\n%s", r.code, r.stdout)
	}
	d.extra = nil
	down := newDevice(t, "127.0.0.1:1")
	if r := down.mneme("", "doctor"); r.code == 0 || !strings.Contains(r.stdout, "NOT reachable") || !strings.Contains(r.stdout, "ollama serve") {
		t.Fatalf("doctor with Ollama down: exit %d\n%s", r.code, r.stdout)
	}

	// Bad settings do not stop the check: each is named, and the rest is
	// checked with it unset.
	writeFiles(t, filepath.Join(d.home, "config", "mneme"), map[string]string{"config.toml": "recall_limit = 99\nmodel_changes = \"never\"\n"})
	d.extra = []string{"MNEME_WINDOW_SIZE=2000"}
	r = d.mneme("", "doctor")
	for _, want := range []string{"3 bad settings below, each read as unset", "reachable, version 0.6.5", "fake-chat",
		"problem: MNEME_WINDOW_SIZE=2000: invalid value", "problem: config " + filepath.Join(d.home, "config", "mneme", "config.toml") + ": recall_limit = 99: invalid value",
		`model_changes = "never": invalid value`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("doctor with bad settings lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.code != 1 || strings.Contains(r.stdout, "all good") {
		t.Errorf("doctor with bad settings: exit %d\n%s", r.code, r.stdout)
	}
	// Every other command still refuses to run on a bad setting.
	if r := d.mneme("", "search", "x"); r.code == 0 || !strings.Contains(r.stderr, "recall_limit = 99: invalid value") {
		t.Errorf("search with bad settings: exit %d stderr %q", r.code, r.stderr)
	}
	// A key that does not open the database, with a sync URL beside it:
	// both said, not only the first failure, and the rest (Ollama, its
	// models) is still checked: the doctor is needed most then.
	enc := newDevice(t, srv.Host())
	enc.mustOK("", "memory", "add", "made without a key")
	enc.extra = []string{"MNEME_ENCRYPTION_KEY=k-never-shown-1234", "MNEME_SYNC_URL=http://127.0.0.1:9"}
	if r := enc.mneme("", "doctor"); r.code != 1 || !strings.Contains(r.stdout, "problem: MNEME_SYNC_URL with MNEME_ENCRYPTION_KEY") ||
		!strings.Contains(r.stdout, "problem: database:") || !strings.Contains(r.stdout, "cannot be opened (below)") ||
		!strings.Contains(r.stdout, "reachable, version 0.6.5") || !strings.Contains(r.stdout, "fake-chat") ||
		strings.Contains(r.stdout+r.stderr, "k-never-shown-1234") {
		t.Errorf("doctor with a key that opens nothing: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	// A data_dir that names no folder is a problem doctor stops at:
	// checking the default one instead would make it.
	writeFiles(t, filepath.Join(d.home, "config", "mneme"), map[string]string{"config.toml": "data_dir = \"rel/mem\"\n"})
	d.extra = []string{"MNEME_DATA_DIR="}
	if r := d.mneme("", "doctor"); r.code != 1 || !strings.Contains(r.stdout, `problem: config `) || !strings.Contains(r.stdout, `data_dir = "rel/mem"`) ||
		strings.Contains(r.stdout, "database") {
		t.Errorf("doctor with a relative data_dir: exit %d\n%s", r.code, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(d.home, ".local", "share", "mneme")); !os.IsNotExist(err) {
		t.Errorf("doctor made the default data dir: %v", err)
	}
	d.extra = nil
	// A file that is not TOML is named, and none of its settings is used.
	writeFiles(t, filepath.Join(d.home, "config", "mneme"), map[string]string{"config.toml": "model = [\n"})
	d.extra = nil
	if r := d.mneme("", "doctor"); r.code != 1 || !strings.Contains(r.stdout, "config.toml (not read, so none of its settings is used)\n") ||
		!strings.Contains(r.stdout, "problem: config file "+filepath.Join(d.home, "config", "mneme", "config.toml")+": toml: line 1") ||
		!strings.Contains(r.stdout, "reachable, version 0.6.5") {
		t.Errorf("doctor with a broken file: exit %d\n%s", r.code, r.stdout)
	}
}

// TestOneCommandsEmbedModelLeavesTheVectorsKept: --embed-model on one
// command embeds its query with that model, but embeds nothing again under
// it (each turn keeps one model's vectors: those of the model kept would
// go); doctor says a chat model is no embedding model, and calls one not
// installed a problem.
func TestOneCommandsEmbedModelLeavesTheVectorsKept(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	srv := fakeollama.New(t, fakeollama.WithModels(append(fakeollama.DefaultModels(),
		fakeollama.Model{Name: "other-embed", Capabilities: []string{"embedding"}, Family: "bert"})...))
	d := newDevice(t, srv.Host())
	d.mustOK("", "ask", "My kitten keeps scratching the sofa")
	waiting := func() string {
		r := d.mneme("", "doctor")
		for _, line := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(line, "search ") {
				return line
			}
		}
		return r.stdout
	}
	if w := waiting(); !strings.Contains(w, "0 waiting for embeddings") {
		t.Fatalf("before: %s", w)
	}
	d.mustOK("", "search", "--embed-model", "other-embed", "kitten")
	d.mustOK("", "memory", "add", "--embed-model", "other-embed", "The sofa is green")
	if r := d.mustOK("", "docs", "add", "--embed-model", "other-embed", writeFile(t, "sofa.md", "# Sofa\n\nThe sofa is green velvet.")); strings.Contains(r.stdout, "Search by meaning is ready") ||
		!strings.Contains(r.stdout, "embedded later, with the embedding model you keep") {
		t.Fatalf("docs add with a one-off model:\n%s", r.stdout)
	}
	for _, req := range srv.EmbedRequests() {
		if req.Model == "other-embed:latest" || req.Model == "other-embed" {
			if in, ok := req.Input.(string); !ok || in != "kitten" {
				t.Fatalf("a command with --embed-model other-embed embedded more than its query: %+v", req.Input)
			}
		}
	}
	if w := waiting(); !strings.Contains(w, "0 waiting for embeddings") {
		t.Fatalf("after commands with another --embed-model: %s", w)
	}
	r := d.mneme("", "doctor", "--embed-model", "fake-chat")
	if !strings.Contains(r.stdout, "it is not an embedding model (it reports: completion, tools)") {
		t.Fatalf("doctor with a chat model to embed: exit %d\n%s", r.code, r.stdout)
	}
	r = d.mneme("", "doctor", "--embed-model", "nosuch-embed")
	if r.code != 1 || !strings.Contains(r.stdout, `problem: embedding model "nosuch-embed" is not installed`) {
		t.Fatalf("doctor with an embedding model not installed: exit %d\n%s", r.code, r.stdout)
	}
}

// TestIDsNotInUTF8AreNotFound: an id with bytes that are no UTF-8 text
// (a Latin-1 argument) gave the database driver's two-line error about
// binding arguments; it is an id like any other that names nothing.
func TestIDsNotInUTF8AreNotFound(t *testing.T) {
	t.Parallel() // own data dir
	d := newDevice(t, closedPort(t))
	d.mustOK("", "memory", "add", "Has a cat called Tom")
	bad := "\xff\xfe12345678"
	for _, args := range [][]string{
		{"memory", "rm", bad}, {"memory", "edit", bad, "x"}, {"memory", "history", bad}, {"memory", "undo", bad},
		{"conversations", "rm", bad}, {"docs", "show", bad}, {"docs", "rm", bad}, {"search", "--conversation", bad, "cat"},
	} {
		r := d.mneme("", args...)
		if r.code != 1 || !strings.Contains(r.stderr, "not found") || strings.Contains(r.stderr, "bind") {
			t.Errorf("mneme %q: exit %d\n%s", args, r.code, r.stderr)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	d := newDevice(t, "127.0.0.1:1")
	if r := d.mneme("", "frobnicate"); r.code != 2 || !strings.Contains(r.stderr, "unknown command") {
		t.Fatalf("unknown command: %+v", r)
	}
	if r := d.mneme("", "ask", "--continue", "--conversation", "abcd", "x"); r.code != 2 {
		t.Fatalf("conflicting flags: %+v", r)
	}
	if r := d.mneme(""); r.code != 2 || !strings.Contains(r.stderr, "needs a terminal") {
		t.Fatalf("chat without a terminal: %+v", r)
	}
	if r := d.mneme("", "search", "--since", "2030-01-01", "--until", "2020-01-01", "x"); r.code != 2 || !strings.Contains(r.stderr, "is not before --until") {
		t.Fatalf("an empty date range: %+v", r)
	}
	// Stray words are usage errors too, and so is a bad setting, wherever
	// it was written.
	for _, args := range [][]string{{"version", "extra"}, {"search", "--batch", "-", "stray", "words"}, {"search", "--num-ctx", "3", "x"}, {"reindex", "extra"}, {"doctor", "extra"}} {
		if r := d.mneme("", args...); r.code != 2 {
			t.Errorf("mneme %q: exit %d, stderr %q", args, r.code, r.stderr)
		}
	}
	for _, env := range []string{"MNEME_WINDOW_SIZE=2000", "MNEME_SYNC_URL=ftp://x"} {
		d.extra = []string{env}
		if r := d.mneme("", "search", "x"); r.code != 2 || !strings.Contains(r.stderr, env[:strings.Index(env, "=")]) {
			t.Errorf("a bad setting in the environment (%s): exit %d, stderr %q", env, r.code, r.stderr)
		}
	}
	d.extra = nil
	writeFiles(t, filepath.Join(d.home, "config", "mneme"), map[string]string{"config.toml": "bogus_key = 1\n"})
	if r := d.mneme("", "search", "x"); r.code != 2 || !strings.Contains(r.stderr, "unknown keys: bogus_key") {
		t.Errorf("an unknown key in the file: exit %d, stderr %q", r.code, r.stderr)
	}
	os.Remove(filepath.Join(d.home, "config", "mneme", "config.toml"))
	// A bad flag is said once, after the usage.
	if r := d.mneme("", "memory", "add", "--tag"); r.code != 2 || strings.Count(r.stderr, "flag needs an argument") != 1 ||
		!strings.HasSuffix(r.stderr, "mneme: flag needs an argument: --tag\n") {
		t.Fatalf("a flag without its value: %+v", r)
	}
}

// TestAskRealOllama runs mneme against a real Ollama server on loopback
// with the tiny stories260K model.
func TestAskRealOllama(t *testing.T) {
	srv := realollama.Start(t)
	srv.CreateChatModel(t, "stories", 256)
	d := newDevice(t, srv.Host)
	r := d.mustOK("", "ask", "--model", "stories", "Once upon a time")
	if len(strings.TrimSpace(r.stdout)) == 0 {
		t.Fatal("the real model printed nothing")
	}
	// The model's num_predict (48) ended the answer: Ollama's done_reason
	// "length", said so that a cut answer is not taken for a whole one.
	if !strings.Contains(r.stderr, "mneme: the answer reached the model's length limit") {
		t.Fatalf("no word of the model's length limit: %q", r.stderr)
	}
	list := d.conversations()
	if len(list) != 1 || list[0].MessageCount != 2 {
		t.Fatalf("conversations = %+v", list)
	}
	// The stored answer is what was printed.
	store, err := memory.Open(context.Background(), filepath.Join(d.home, "data", memory.DBFileName))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	msgs, err := store.Messages(context.Background(), "tester", list[0].ID)
	if err != nil || len(msgs) != 2 {
		t.Fatalf("messages %d %v", len(msgs), err)
	}
	// Cut by the model's num_predict: stored as far as it got, marked
	// interrupted (not a whole answer).
	if strings.TrimSpace(msgs[1].Content) != strings.TrimSpace(r.stdout) || msgs[1].Status != memory.StatusInterrupted {
		t.Fatalf("stored %q (%s), printed %q", msgs[1].Content, msgs[1].Status, r.stdout)
	}
	// max_answer_tokens below the model's own limit cuts the stream there.
	d.extra = []string{"MNEME_MAX_ANSWER_TOKENS=16"}
	r = d.mustOK("", "ask", "--json", "--model", "stories", "Once upon a time")
	var out struct {
		Answer string `json:"answer"`
		Cut    bool   `json:"cut"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || !out.Cut || out.Answer == "" ||
		!strings.Contains(r.stderr, "cut at about 16 tokens (max_answer_tokens)") {
		t.Fatalf("ask with max_answer_tokens 16: %q %q (%v)", r.stdout, r.stderr, err)
	}
	if len(out.Answer) >= len(strings.TrimSpace(msgs[1].Content)) {
		t.Fatalf("the capped answer %q is no shorter than the model's own %q", out.Answer, msgs[1].Content)
	}
}

// mneme -h, --help and help all list the commands, and flag help reads
// as written (no usage text mistaken for an argument name).
func TestHelpListsTheCommands(t *testing.T) {
	t.Parallel() // own data dir and fake Ollama
	d := newDevice(t, "127.0.0.1:1")
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		r := d.mneme("", args...)
		out := r.stdout + r.stderr
		if r.code != 0 || !strings.Contains(out, "mneme ask [flags] PROMPT") || !strings.Contains(out, "mneme search --batch FILE") {
			t.Fatalf("mneme %v: exit %d, output:\n%s", args, r.code, out)
		}
	}
	r := d.mneme("", "--help")
	if out := r.stdout + r.stderr; strings.Contains(out, "-turn mneme") || !strings.Contains(out, "--turn N\n") {
		t.Fatalf("the --turn flag's help reads wrong:\n%s", out)
	}
	// A subcommand's usage names its own command, lists its own flags in
	// full, and the common ones (the chat's) on one line; asked for, it
	// goes to stdout (`mneme import -h | less`), after a bad flag to stderr.
	for _, group := range []string{"docs", "memory"} {
		if r := d.mneme("", group, "rm", "--help"); !strings.HasPrefix(r.stdout, "Usage: mneme "+group+" rm ") || r.code != 0 {
			t.Errorf("%s rm --help: %+v", group, r)
		}
	}
	if r := d.mneme("", "export", "--help"); !strings.Contains(r.stdout, "--format FORMAT\n") || strings.Contains(r.stdout, "num-ctx N") ||
		!strings.Contains(r.stdout, "Common flags: --config --data-dir") {
		t.Errorf("export --help:\n%s", r.stdout)
	}
	if r := d.mneme("", "export", "--no-such-flag"); r.code != 2 || !strings.Contains(r.stderr, "Usage: mneme export") || r.stdout != "" {
		t.Errorf("export with a bad flag: %+v", r)
	}
	// Every command takes -h: version and eval said "unexpected argument".
	for _, cmd := range []string{"version", "eval"} {
		if r := d.mneme("", cmd, "-h"); r.code != 0 || !strings.HasPrefix(r.stdout, "Usage: mneme "+cmd) {
			t.Errorf("%s -h: %+v", cmd, r)
		}
	}
}
