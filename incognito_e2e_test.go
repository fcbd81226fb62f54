package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/internal/fakeollama"
)

// incognitoDevice is a device whose temporary files go to a directory of
// its own, so a test can see that an incognito run leaves none behind.
func incognitoDevice(t *testing.T, host string) (*device, string) {
	d := newDevice(t, host).learnOn()
	tmp := t.TempDir()
	d.extra = append(d.extra, "TMPDIR="+tmp)
	return d, tmp
}

// assertNothingKept checks that an incognito run left nothing: no data
// dir at all, no temporary files, no extraction request; and that the
// commands a user would look with show nothing of it.
func assertNothingKept(t *testing.T, d *device, srv *fakeollama.Server, tmp, secret string) {
	t.Helper()
	assertNoDataDir(t, d)
	assertNothingFound(t, d, srv, tmp, secret)
}

// assertNoDataDir: the data dir was not even made.
func assertNoDataDir(t *testing.T, d *device) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(d.home, "data")); !os.IsNotExist(err) {
		entries, _ := os.ReadDir(filepath.Join(d.home, "data"))
		t.Fatalf("the data dir was written (%v): %v", err, entries)
	}
}

// assertNothingFound: no temporary files, no extraction, and no command
// shows the secret.
func assertNothingFound(t *testing.T, d *device, srv *fakeollama.Server, tmp, secret string) {
	t.Helper()
	if entries, _ := os.ReadDir(tmp); len(entries) != 0 {
		t.Fatalf("temporary files left behind: %v", entries)
	}
	if n := countRequests(srv, isExtraction); n != 0 {
		t.Fatalf("%d extraction requests", n)
	}
	if list := d.conversations(); len(list) != 0 {
		t.Fatalf("conversations after incognito: %+v", list)
	}
	if r := d.mneme("", "search", secret); !strings.Contains(r.stdout, "Nothing found") {
		t.Fatalf("search finds the incognito chat:\n%s", r.stdout)
	}
	if r := d.mustOK("", "memory", "list", "--json"); strings.Contains(r.stdout, secret) {
		t.Fatalf("memory list shows it:\n%s", r.stdout)
	}
}

// TestAskIncognitoKeepsNothing: the answer is printed, and afterwards no
// command shows anything of the prompt or its answer, nothing was learnt,
// the model was offered no memory tools, and the data dir is untouched.
func TestAskIncognitoKeepsNothing(t *testing.T) {
	t.Parallel() // own data dir, temp dir and fake Ollama
	srv := fakeollama.New(t)
	srv.SetDefault(extractReply(`[{"text":"Has a cat called Zephyrine.","confidence":0.9,"tags":["cat"],"kind":"fact"}]`))
	d, tmp := incognitoDevice(t, srv.Host())

	r := d.mustOK("", "ask", "--incognito", "my cat is called Zephyrine")
	if !strings.Contains(r.stdout, "You said: my cat is called Zephyrine") {
		t.Fatalf("answer not printed: %q", r.stdout)
	}
	r = d.mustOK("", "ask", "--incognito", "--json", "Zephyrine again")
	var out struct {
		Answer    string `json:"answer"`
		Incognito bool   `json:"incognito"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil || !out.Incognito || out.Answer != "You said: Zephyrine again" {
		t.Fatalf("ask --incognito --json: %v %+v\n%s", err, out, r.stdout)
	}
	for _, req := range srv.Requests() {
		if len(req.Tools) != 0 {
			t.Fatalf("incognito offered tools: %v", req.Tools)
		}
	}
	assertNothingKept(t, d, srv, tmp, "Zephyrine")
}

// TestAskIncognitoUsageErrors: an incognito ask cannot continue a kept
// conversation.
func TestAskIncognitoUsageErrors(t *testing.T) {
	t.Parallel()
	d := newDevice(t, "127.0.0.1:1")
	if r := d.mneme("", "ask", "--incognito", "--continue", "hi"); r.code != 2 || !strings.Contains(r.stderr, "--incognito") {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
}

// incognitoAskHeld starts `mneme ask --incognito` against a fake Ollama
// that holds its answer after the first words, and returns once the
// answer has begun.
func incognitoAskHeld(t *testing.T) (*fakeollama.Server, *device, string, *exec.Cmd, *bytes.Buffer) {
	t.Helper()
	srv := fakeollama.New(t)
	srv.Script(fakeollama.Reply{Content: fakeollama.SplitWords("Zephyrine is a fine name for"), Hold: true})
	d, tmp := incognitoDevice(t, srv.Host())
	cmd := exec.Command(mnemeBin, "ask", "--incognito", "name my cat Zephyrine")
	cmd.Env = d.env()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-srv.Started():
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		t.Fatalf("the answer never started; stderr: %s", errb.String())
	}
	return srv, d, tmp, cmd, &errb
}

// TestAskIncognitoInterrupted: Ctrl+C during an incognito answer ends
// mneme within 2 s, says nothing was kept, and leaves nothing behind.
func TestAskIncognitoInterrupted(t *testing.T) {
	t.Parallel()
	srv, d, tmp, cmd, errb := incognitoAskHeld(t)
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	start := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
		cmd.Process.Kill()
		t.Fatal("mneme did not end after SIGINT")
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Fatalf("took %s to end after SIGINT", took)
	}
	if code := cmd.ProcessState.ExitCode(); code != 130 || !strings.Contains(errb.String(), "nothing was kept") {
		t.Fatalf("exit %d, stderr: %s", code, errb.String())
	}
	assertNothingKept(t, d, srv, tmp, "Zephyrine")
}

// TestIncognitoKilledLeavesNothingForLong: an incognito run killed outright
// (SIGKILL: no cleanup runs) leaves its throwaway dir, with what was said
// in it; the next incognito run removes it, and leaves one that is still
// in use alone.
func TestIncognitoKilledLeavesNothingForLong(t *testing.T) {
	t.Parallel()
	srv, d, tmp, cmd, _ := incognitoAskHeld(t)
	cmd.Process.Kill()
	cmd.Wait()
	if entries, _ := os.ReadDir(tmp); len(entries) != 1 {
		t.Fatalf("a killed run left %d entries, want its dir", len(entries))
	}
	// A dir in use (its lock held, as by a running chat) is not touched.
	inUse := filepath.Join(tmp, "mneme-incognito-inuse")
	if err := os.MkdirAll(inUse, 0o700); err != nil {
		t.Fatal(err)
	}
	lock, err := os.OpenFile(filepath.Join(inUse, "live.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}
	srv.Script(fakeollama.Say("Hello."))
	d.mustOK("", "ask", "--incognito", "hi")
	entries, _ := os.ReadDir(tmp)
	if len(entries) != 1 || entries[0].Name() != "mneme-incognito-inuse" {
		t.Fatalf("after the next incognito run: %v, want only the dir in use", entries)
	}
}

// TestTUIIncognitoKeepsNothing: `mneme --incognito` says so on screen,
// chats as usual, and after quitting nothing of the chat exists.
func TestTUIIncognitoKeepsNothing(t *testing.T) {
	srv := fakeollama.New(t)
	srv.SetDefault(extractReply(`[{"text":"Has a cat called Zephyrine.","confidence":0.9,"tags":["cat"],"kind":"fact"}]`))
	d, tmp := incognitoDevice(t, srv.Host())
	term := startTerminal(t, 100, 30, d.env(), "--incognito")
	term.waitText("Incognito: nothing of this chat is kept, learnt or synced.")
	term.waitText("fake-chat")
	if !strings.Contains(term.screen(), "incognito · fake-chat") {
		t.Fatalf("no incognito marker on the status line:\n%s", term.screen())
	}
	term.typeText("my cat is called Zephyrine")
	term.keys("Enter")
	term.waitText("You said: my cat is called Zephyrine")
	term.waitIdle()
	term.keys("C-c")
	if code := term.exitStatus(); code != 0 {
		t.Fatalf("mneme exited %d; screen:\n%s", code, term.screen())
	}
	assertNothingKept(t, d, srv, tmp, "Zephyrine")
}

// TestTUISlashIncognito: /incognito in a normal chat starts a marked chat
// that is forgotten on /new, which returns to kept conversations.
func TestTUISlashIncognito(t *testing.T) {
	srv := fakeollama.New(t)
	srv.SetDefault(extractReply(`[]`))
	d, tmp := incognitoDevice(t, srv.Host())
	term := startTerminal(t, 100, 30, d.env())
	term.waitText("fake-chat")
	term.typeText("/incognito")
	term.keys("Enter")
	term.waitText("Incognito: nothing of this chat is kept, learnt or synced.")
	term.typeText("my cat is called Zephyrine")
	term.keys("Enter")
	term.waitText("You said: my cat is called Zephyrine")
	term.waitIdle()
	term.typeText("/new")
	term.keys("Enter")
	term.waitText("the incognito chat is forgotten")
	if s := term.screen(); strings.Contains(s, "Zephyrine") || strings.Contains(s, "incognito ·") {
		t.Fatalf("the incognito chat is still shown after /new:\n%s", s)
	}
	// Quitting while incognito forgets it too.
	term.typeText("/incognito")
	term.keys("Enter")
	term.waitText("Incognito: nothing of this chat is kept, learnt or synced.")
	term.typeText("Zephyrine once more")
	term.keys("Enter")
	term.waitText("You said: Zephyrine once more")
	term.waitIdle()
	term.keys("C-c")
	if code := term.exitStatus(); code != 0 {
		t.Fatalf("mneme exited %d; screen:\n%s", code, term.screen())
	}
	assertNothingFound(t, d, srv, tmp, "Zephyrine")
}
