// Package realollama runs a real Ollama server on loopback for end-to-end
// tests, with its own empty model store, and creates tiny real models in it
// from ../shared/models/stories260K.gguf.
//
// The server binary is Ollama v0.6.5 built from source (see
// scripts/ollama-bin.sh; `make test` builds it). Tests call Start, which
// skips outside CI when no binary can be found and fails in CI.
package realollama

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ollama/ollama/api"
)

// Environment variables read by this package.
const (
	// EnvBin names an ollama binary to use instead of looking for one.
	EnvBin = "MNEME_OLLAMA_BIN"
	// EnvSharedDir overrides the location of the shared directory
	// (by default ../shared beside the repository root).
	EnvSharedDir = "MNEME_SHARED_DIR"
)

const (
	// startTimeout bounds how long Start waits for `ollama serve` to answer.
	// Observed: 25-65 ms from exec to the first successful GET /.
	startTimeout = 30 * time.Second
	// stopGrace is how long Stop waits after SIGTERM before killing.
	// Observed: the server and its runner exit 3-8 ms after SIGTERM.
	stopGrace = 10 * time.Second
	// startAttempts bounds retries when the free port we picked was taken
	// by someone else before the server could bind it.
	startAttempts = 3
	// logTail is how much of the server log is shown when a test fails.
	logTail = 8 << 10
)

// Server is a running `ollama serve` process owned by one test.
type Server struct {
	// URL is the base URL of the API, e.g. "http://127.0.0.1:40123".
	URL string
	// Host is the host:port the server listens on, the value of
	// OLLAMA_HOST for the server and for any ollama CLI pointed at it.
	Host string
	// Bin is the ollama binary being run.
	Bin string
	// LogPath is the file receiving the server's stdout and stderr.
	LogPath string
	// ModelsDir is the server's OLLAMA_MODELS directory.
	ModelsDir string

	client *api.Client
	cmd    *exec.Cmd
	exited chan struct{} // closed once cmd.Wait has returned
	err    error         // cmd.Wait's result, valid after exited is closed
}

// Start starts `ollama serve` on 127.0.0.1 with a free port and a private
// model store and HOME, waits until it answers, and stops it when the test
// ends. If the test fails, the tail of the server log is logged.
//
// The binary is $MNEME_OLLAMA_BIN, else
// ${XDG_CACHE_HOME:-~/.cache}/mneme-ci/bin/ollama, else `ollama` on PATH.
// Without one the test is skipped, or fails when CI=true.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := findBinary()
	if err != nil {
		t.Fatalf("realollama: %v", err)
	}
	if bin == "" {
		const msg = "realollama: no ollama binary was found ($" + EnvBin +
			", ~/.cache/mneme-ci/bin/ollama, or ollama on PATH); " +
			"`make test` builds one, or run scripts/ollama-bin.sh and set " + EnvBin + " to the path it prints"
		skipOrFail(t, msg)
	}

	var lastErr error
	for range startAttempts {
		s, err := start(t, bin)
		if err == nil {
			return s
		}
		lastErr = err
		// A port clash ("address already in use") is worth another try
		// with another port; anything else will fail the same way again.
		if s == nil || !bytes.Contains(readTail(s.LogPath), []byte("address already in use")) {
			break
		}
	}
	t.Fatalf("realollama: %v", lastErr)
	return nil
}

// start makes one attempt to start the server. On error the returned Server,
// if not nil, is still usable for its LogPath.
func start(t testing.TB, bin string) (*Server, error) {
	t.Helper()
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	dir := t.TempDir()
	s := &Server{
		Bin:       bin,
		Host:      net.JoinHostPort("127.0.0.1", strconv.Itoa(port)),
		LogPath:   filepath.Join(dir, "ollama.log"),
		ModelsDir: filepath.Join(dir, "models"),
		exited:    make(chan struct{}),
	}
	s.URL = "http://" + s.Host
	s.client = api.NewClient(&url.URL{Scheme: "http", Host: s.Host}, http.DefaultClient)

	home := filepath.Join(dir, "home")
	for _, d := range []string{s.ModelsDir, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return s, err
		}
	}
	logFile, err := os.Create(s.LogPath)
	if err != nil {
		return s, err
	}
	defer logFile.Close() // the child process keeps its own descriptor

	s.cmd = exec.Command(bin, "serve")
	// Later entries win over inherited ones (see exec.Cmd.Env).
	s.cmd.Env = append(os.Environ(),
		"OLLAMA_HOST="+s.Host,
		"OLLAMA_MODELS="+s.ModelsDir,
		"HOME="+home,
	)
	s.cmd.Stdout = logFile
	s.cmd.Stderr = logFile
	setProcessGroup(s.cmd)
	if err := s.cmd.Start(); err != nil {
		return s, fmt.Errorf("starting %s serve: %w", bin, err)
	}
	go func() {
		s.err = s.cmd.Wait()
		close(s.exited)
	}()

	// Registered after t.TempDir, so it runs before the directory is removed.
	t.Cleanup(func() {
		if err := s.stop(); err != nil {
			t.Errorf("realollama: stopping ollama: %v", err)
		}
		if t.Failed() {
			t.Logf("realollama: tail of %s:\n%s", s.LogPath, readTail(s.LogPath))
		}
	})

	if err := s.waitReady(); err != nil {
		return s, err
	}
	return s, nil
}

// waitReady polls GET / until the server answers 200, it exits, or
// startTimeout passes.
func (s *Server) waitReady() error {
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL+"/", nil)
		if err != nil {
			return err
		}
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-s.exited:
			return fmt.Errorf("ollama serve exited before answering on %s: %v", s.Host, s.err)
		case <-ctx.Done():
			return fmt.Errorf("ollama serve did not answer GET %s/ within %v", s.URL, startTimeout)
		case <-tick.C:
		}
	}
}

// stop sends SIGTERM (to the server and the runners it started), kills them
// after stopGrace, and waits for the server to exit. Stopping an already
// exited server is not an error: tests may stop it on purpose.
func (s *Server) stop() error {
	select {
	case <-s.exited:
		return nil
	default:
	}
	if err := terminate(s.cmd); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	select {
	case <-s.exited:
		return nil
	case <-time.After(stopGrace):
	}
	if err := kill(s.cmd); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	<-s.exited
	return fmt.Errorf("ollama serve ignored SIGTERM for %v and was killed", stopGrace)
}

// Client returns an API client for the server.
func (s *Server) Client() *api.Client { return s.client }

// findBinary returns the ollama binary to run, or "" if there is none.
// An EnvBin that names no executable file is an error, not a skip.
func findBinary() (string, error) {
	if bin := os.Getenv(EnvBin); bin != "" {
		if !isExecutable(bin) {
			return "", fmt.Errorf("%s=%s is not an executable file", EnvBin, bin)
		}
		return bin, nil
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		if home, err := os.UserHomeDir(); err == nil {
			cache = filepath.Join(home, ".cache")
		}
	}
	if cache != "" {
		if bin := filepath.Join(cache, "mneme-ci", "bin", "ollama"); isExecutable(bin) {
			return bin, nil
		}
	}
	if bin, err := exec.LookPath("ollama"); err == nil {
		return bin, nil
	}
	return "", nil
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// freePort asks the kernel for a free loopback port. Another process may
// take it before ollama binds it; Start retries in that case.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// readTail returns at most the last logTail bytes of the file at path.
func readTail(path string) []byte {
	b, err := os.ReadFile(path)
	if err != nil {
		return []byte(err.Error())
	}
	if len(b) > logTail {
		b = b[len(b)-logTail:]
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	return b
}

// skipOrFail skips the test for want of msg's prerequisite, or fails it
// when CI=true: in CI the real-Ollama tests must run, not pass by skipping.
func skipOrFail(t testing.TB, msg string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatal(msg + " (CI=true: these tests must run in CI)")
	}
	t.Skip(msg)
}
