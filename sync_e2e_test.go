package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/cli"
	"github.com/mneme-dev/mneme/internal/fakeollama"
	"github.com/mneme-dev/mneme/internal/syncserver"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/memory/syncer"
)

const e2eToken = "tok-E2E-secret-7c1f9a"

// syncDevice is a device whose sync settings come from the environment.
func syncDevice(t *testing.T, ollama *fakeollama.Server, srv *syncserver.Server) *device {
	d := newDevice(t, ollama.Host())
	d.extra = []string{"MNEME_SYNC_URL=" + srv.URL, "TURSO_AUTH_TOKEN=" + e2eToken}
	return d
}

// syncNow runs `mneme sync --json` and returns its report.
func (d *device) syncNow() syncer.SyncReport {
	d.t.Helper()
	r := d.mustOK("", "sync", "--json")
	var rep syncer.SyncReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		d.t.Fatalf("sync --json: %v\n%s", err, r.stdout)
	}
	return rep
}

type syncStatusOut struct {
	Configured bool `json:"configured"`
	syncer.SyncStatus
}

func (d *device) syncStatus() (syncStatusOut, string) {
	d.t.Helper()
	r := d.mustOK("", "sync", "--status", "--json")
	var st syncStatusOut
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil {
		d.t.Fatalf("sync --status --json: %v\n%s", err, r.stdout)
	}
	return st, r.stdout
}

func (d *device) titles() []string {
	var out []string
	for _, c := range d.conversations() {
		out = append(out, c.Title)
	}
	sort.Strings(out)
	return out
}

func (d *device) noteTexts() []string {
	d.t.Helper()
	var notes []memory.Note
	r := d.mustOK("", "memory", "list", "--json")
	if err := json.Unmarshal([]byte(r.stdout), &notes); err != nil {
		d.t.Fatalf("memory list --json: %v\n%s", err, r.stdout)
	}
	var out []string
	for _, n := range notes {
		out = append(out, n.Content)
	}
	sort.Strings(out)
	return out
}

func (d *device) search(q string) []index.SearchResult {
	d.t.Helper()
	var res []index.SearchResult
	r := d.mustOK("", "search", "--json", q)
	if err := json.Unmarshal([]byte(r.stdout), &res); err != nil {
		d.t.Fatalf("search --json: %v\n%s", err, r.stdout)
	}
	return res
}

// noSecret fails if the token is in any output, log or state file of d.
func noSecret(t *testing.T, d *device, outputs ...string) {
	t.Helper()
	files := []string{"mneme.log", syncer.SyncStateFileName}
	for _, f := range files {
		data, _ := os.ReadFile(filepath.Join(d.home, "data", f))
		outputs = append(outputs, string(data))
	}
	for _, o := range outputs {
		if strings.Contains(o, e2eToken) {
			t.Fatalf("the token shows in:\n%s", o)
		}
	}
}

// TestSyncTurnOnAIsFoundOnB is the first acceptance check: a turn asked on
// device A is found by `mneme search` on device B, by keyword and by
// vector, after `mneme sync` on both; `sync init` keeps the token off the
// command line and in a 0600 file; the status JSON has no token.
func TestSyncTurnOnAIsFoundOnB(t *testing.T) {
	srv := syncserver.New(t)
	srv.Token = e2eToken
	oa, ob := fakeollama.New(t), fakeollama.New(t)
	oa.Script(fakeollama.Say("Feed the starter daily and bake at 250 degrees."))
	a := newDevice(t, oa.Host())
	var outs []string
	r := a.mustOK(e2eToken+"\n", "sync", "init", srv.URL)
	outs = append(outs, r.stdout, r.stderr)
	cfgPath := filepath.Join(a.home, "config", "mneme", "config.toml")
	fi, err := os.Stat(cfgPath)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("config file: %v %v", fi, err)
	}
	if data, _ := os.ReadFile(cfgPath); !strings.Contains(string(data), e2eToken) || !strings.Contains(string(data), "[sync]") {
		t.Fatalf("config file lacks the settings:\n%s", data)
	}
	// B takes its settings from the environment (Turso's variable names).
	b := syncDevice(t, ob, srv)

	r = a.mustOK("", "ask", "tell me about sourdough bread baking")
	outs = append(outs, r.stdout, r.stderr)
	start := time.Now()
	repA := a.syncNow()
	repB := b.syncNow()
	t.Logf("A: %s (%s); B: %s (%s); both in %s", repA, repA.Duration, repB, repB.Duration, time.Since(start))
	if repB.Received.Messages != 2 {
		t.Fatalf("B received %+v", repB.Received)
	}
	if got := b.titles(); len(got) != 1 || !strings.Contains(got[0], "sourdough") {
		t.Fatalf("B lists %q", got)
	}
	res := b.search("sourdough bread")
	if len(res) == 0 || res[0].MatchedBy != index.MatchBoth || !strings.Contains(res[0].Snippet, "sourdough") {
		t.Fatalf("B's search: %+v", res)
	}
	// The vectors came with the rows: B embedded its query, never A's turn.
	for _, req := range ob.EmbedRequests() {
		if in, _ := json.Marshal(req.Input); strings.Contains(string(in), "Feed the starter") {
			t.Fatalf("B embedded A's turn again: %s", in)
		}
	}
	st, raw := b.syncStatus()
	if !st.Configured || st.LastSuccess == nil || st.Pending != 0 || st.State != syncer.SyncSynced || st.URL != srv.URL {
		t.Fatalf("B status: %s", raw)
	}
	stA, rawA := a.syncStatus()
	if stA.LastSuccess == nil {
		t.Fatalf("A status: %s", rawA)
	}
	human := b.mustOK("", "sync", "--status").stdout
	if !strings.Contains(human, srv.URL) || !strings.Contains(human, "last success") {
		t.Fatalf("status:\n%s", human)
	}
	outs = append(outs, raw, rawA, human)
	noSecret(t, a, outs...)
	noSecret(t, b, outs...)
}

// TestSyncBothWriteWhileServerDown is the second acceptance check: after
// both devices write while the server is down, then sync (A, B, A), both
// hold every turn and note from both; a note edited on B shows on A, a
// note deleted on A is gone on B.
func TestSyncBothWriteWhileServerDown(t *testing.T) {
	srv := syncserver.New(t)
	srv.Token = e2eToken
	ollama := fakeollama.New(t)
	a, b := syncDevice(t, ollama, srv), syncDevice(t, ollama, srv)
	a.mustOK("", "ask", "first question about lisbon trams")
	a.mustOK("", "memory", "add", "Alice likes sourdough")
	a.mustOK("", "memory", "add", "Alice parks in the garage")
	a.syncNow()
	b.syncNow()
	if got := b.noteTexts(); len(got) != 2 {
		t.Fatalf("B notes before: %q", got)
	}

	srv.Down()
	r := a.mustOK("", "ask", "question asked on A while offline")
	if !strings.Contains(r.stdout, "You said") || !strings.Contains(r.stderr, "the sync server is not answering; the change is kept here") {
		t.Fatalf("ask while the sync server is down: %+v", r)
	}
	a.mustOK("", "memory", "add", "note written on A offline")
	b.mustOK("", "ask", "question asked on B while offline")
	b.mustOK("", "memory", "add", "note written on B offline")
	var gardenID string
	for _, n := range noteList(t, b) {
		if strings.Contains(n.Content, "sourdough") {
			gardenID = n.ID
		}
	}
	b.mustOK("", "memory", "edit", gardenID, "Alice likes sourdough with seeds")
	if r := a.mneme("", "sync"); r.code == 0 || !strings.Contains(r.stderr, "did not answer, or stopped answering") {
		t.Fatalf("sync while down: %+v", r)
	}
	st, raw := a.syncStatus()
	if st.State != syncer.SyncOffline || st.Pending == 0 || st.LastSuccess == nil {
		t.Fatalf("A status while down: %s", raw)
	}
	// doctor says so, and that the memory is fine: offline is a state.
	if r := a.mneme("", "doctor"); !regexp.MustCompile(`sync +http://[^ ]+: offline; last synced [^;]+; last error: sync server unreachable`).MatchString(r.stdout) {
		t.Fatalf("doctor while the sync server is down:\n%s", r.stdout)
	}
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	r1 := a.syncNow()
	r2 := b.syncNow()
	r3 := a.syncNow()
	t.Logf("A: %s; B: %s; A: %s (all three in %s)", r1, r2, r3, time.Since(start))
	if !r2.Conflict {
		t.Fatalf("B's sync should have met the conflict: %+v", r2)
	}
	wantTitles := []string{"first question about lisbon trams", "question asked on A while offline", "question asked on B while offline"}
	wantNotes := []string{"Alice likes sourdough with seeds", "Alice parks in the garage", "note written on A offline", "note written on B offline"}
	for name, d := range map[string]*device{"A": a, "B": b} {
		if got := d.titles(); strings.Join(got, "|") != strings.Join(wantTitles, "|") {
			t.Errorf("%s conversations: %q", name, got)
		}
		if got := d.noteTexts(); strings.Join(got, "|") != strings.Join(wantNotes, "|") {
			t.Errorf("%s notes: %q", name, got)
		}
		for _, q := range []string{"offline question asked on A", "offline question asked on B"} {
			if res := d.search(q); len(res) == 0 {
				t.Errorf("%s finds nothing for %q", name, q)
			}
		}
	}
	st, raw = b.syncStatus()
	if st.LastConflict == nil || st.Message == "" || st.Pending != 0 {
		t.Fatalf("B status after the merge: %s", raw)
	}

	// Deleted on A: gone on B.
	var parkID string
	for _, n := range noteList(t, a) {
		if strings.Contains(n.Content, "garage") {
			parkID = n.ID
		}
	}
	a.mustOK("", "memory", "rm", parkID)
	a.syncNow()
	if rep := b.syncNow(); rep.Received.NotesDeleted != 1 {
		t.Fatalf("B received %+v", rep.Received)
	}
	for _, n := range b.noteTexts() {
		if strings.Contains(n, "garage") {
			t.Fatalf("B still has the note deleted on A: %q", n)
		}
	}
	noSecret(t, a, raw)
	noSecret(t, b, raw)
}

func noteList(t *testing.T, d *device) []memory.Note {
	t.Helper()
	var notes []memory.Note
	if err := json.Unmarshal([]byte(d.mustOK("", "memory", "list", "--json").stdout), &notes); err != nil {
		t.Fatal(err)
	}
	return notes
}

// TestTUIChatsWithSyncServerDown: the sync server down at start-up does
// not stop the chat, and the status line says offline.
func TestTUIChatsWithSyncServerDown(t *testing.T) {
	srv := syncserver.New(t)
	srv.Down()
	ollama := fakeollama.New(t)
	d := syncDevice(t, ollama, srv)
	term := startTerminal(t, 120, 30, d.env())
	term.waitText("fake-chat")
	term.waitText("sync offline")
	term.typeText("hello while the sync server is down")
	term.keys("Enter")
	term.waitText("You said: hello while the sync server is down")
	term.keys("C-c")
	start := time.Now()
	if code := term.exitStatus(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, term.screen())
	}
	t.Logf("quit took %s with sync pending and the server down", time.Since(start))
	st, raw := d.syncStatus()
	if st.State != syncer.SyncOffline || st.Pending == 0 {
		t.Fatalf("status: %s", raw)
	}
	// Back up: the next run sends it.
	if err := srv.Up(); err != nil {
		t.Fatal(err)
	}
	if rep := d.syncNow(); !rep.Merged {
		t.Fatalf("first sync: %+v", rep)
	}
	if st, raw := d.syncStatus(); st.State != syncer.SyncSynced || st.Pending != 0 {
		t.Fatalf("status after: %s", raw)
	}
	noSecret(t, d, raw, term.screen())
}

// TestSyncCtrlCBesideASilentServer: Ctrl+C while `mneme sync` waits on a
// server that accepted the connection and says nothing ends it at once,
// saying it was interrupted (exit 130), not that the server is unreachable.
func TestSyncCtrlCBesideASilentServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			accepted <- c // held open, never answered
		}
	}()
	d := newDevice(t, closedPort(t))
	d.mustOK("", "memory", "add", "kept here whatever the server does")
	d.extra = []string{"MNEME_SYNC_URL=http://" + l.Addr().String(), "TURSO_AUTH_TOKEN=" + e2eToken}
	cmd := exec.Command(mnemeBin, "sync")
	cmd.Env = d.env()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case c := <-accepted:
		defer c.Close()
	case <-time.After(d.timeout):
		cmd.Process.Kill()
		t.Fatalf("sync never reached the server: %s", out.String())
	}
	cmd.Process.Signal(os.Interrupt)
	err = cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != cli.ExitInterrupted || !strings.Contains(out.String(), "sync interrupted") {
		t.Fatalf("sync after Ctrl+C: %v\n%s", err, out.String())
	}
	if notes := d.noteTexts(); len(notes) != 1 {
		t.Fatalf("notes after the interrupted sync: %q", notes)
	}
}

// TestSyncSaysItMerges: a sync that merges this device's rows with a fresh
// copy of the server's (a first sync with local data, a conflict) says so
// on stderr as it begins: it can take a while, and it was silent.
func TestSyncSaysItMerges(t *testing.T) {
	srv := syncserver.New(t)
	srv.Token = e2eToken
	d := newDevice(t, closedPort(t))
	d.mustOK("", "memory", "add", "written before sync was set up")
	d.extra = []string{"MNEME_SYNC_URL=" + srv.URL, "TURSO_AUTH_TOKEN=" + e2eToken}
	r := d.mustOK("", "sync")
	if !strings.Contains(r.stderr, "merging this device's memory with the server's copy…") || !strings.Contains(r.stdout, "synced with") {
		t.Fatalf("first sync: %+v", r)
	}
	if r := d.mustOK("", "sync"); strings.Contains(r.stderr, "merging") {
		t.Fatalf("a sync with nothing to merge says it merges: %+v", r)
	}
}

// TestSyncedDocsAddLeavesAnotherDevicesDocuments: with sync set up, a
// folder added again names a document whose file is not in the folder
// here, and leaves it: it may be another device's, added from the same
// path there.
func TestSyncedDocsAddLeavesAnotherDevicesDocuments(t *testing.T) {
	srv := syncserver.New(t)
	srv.Token = e2eToken
	d := syncDevice(t, fakeollama.New(t), srv)
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"plan.md": "# Plan\n\nThe zanzibar launch is in May.\n"})
	d.mustOK("", "docs", "add", dir)
	if err := os.Remove(filepath.Join(dir, "plan.md")); err != nil {
		t.Fatal(err)
	}
	r := d.mneme("", "docs", "add", dir)
	if strings.Contains(r.stdout, "removed") || !strings.Contains(r.stderr, "plan.md is no longer in the folder here; another device may still have it") {
		t.Fatalf("synced docs add of a folder missing a file: %+v", r)
	}
	if hits := d.docHits("zanzibar"); len(hits) != 1 {
		t.Fatalf("the synced document was removed: %+v", hits)
	}
}

// TestSyncInitCtrlCAtTheTokenPromptKeepsEcho: Ctrl+C at `sync init`'s
// hidden token prompt ends it at once: the terminal is as it was (echo
// stayed off), the config keeps its token, and what is typed next is not
// taken for a token (it was, for 1.5 s, and written to the config).
func TestSyncInitCtrlCAtTheTokenPromptKeepsEcho(t *testing.T) {
	d := newDevice(t, closedPort(t))
	writeFiles(t, filepath.Join(d.home, "config", "mneme"), map[string]string{"config.toml": "[sync]\nurl = \"http://127.0.0.1:9\"\ntoken = \"GOOD-TOKEN\"\n"})
	stty := filepath.Join(t.TempDir(), "stty")
	script := mnemeBin + " sync init http://127.0.0.1:9; echo exit=$?; stty -a > " + stty + "; echo SHELL-GOES-ON; exec sleep 600"
	term := openTerminal(t, 100, 20, terminalCommand(d.env(), "/bin/bash", "-c", script)...)
	term.waitText("empty keeps the one set")
	term.keys("C-c", "ls", "Enter") // one burst: the line typed on is no token either
	screen := term.waitText("SHELL-GOES-ON")
	b, err := os.ReadFile(stty)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(^|\s)echo(\s|$)`).Match(b) {
		t.Fatalf("echo is off after Ctrl+C at the token prompt:\n%s", b)
	}
	cfg, err := os.ReadFile(filepath.Join(d.home, "config", "mneme", "config.toml"))
	if err != nil || !strings.Contains(string(cfg), "GOOD-TOKEN") || !strings.Contains(screen, "exit=130") {
		t.Fatalf("after Ctrl+C at the prompt, config:\n%s\nscreen:\n%s", cfg, screen)
	}
	// No token given (to change the URL): the one set stays.
	d.mustOK("\n", "sync", "init", "http://127.0.0.1:8")
	if cfg, err := os.ReadFile(filepath.Join(d.home, "config", "mneme", "config.toml")); err != nil || !strings.Contains(string(cfg), "GOOD-TOKEN") {
		t.Fatalf("sync init without a token dropped the one set:\n%s", cfg)
	}
}
