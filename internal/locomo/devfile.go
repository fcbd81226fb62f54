package locomo

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// EnvSharedDir overrides the shared directory holding bench/locomo-dev.json
// (by default ../shared beside the repository root); the same variable as
// internal/realollama's.
const EnvSharedDir = "MNEME_SHARED_DIR"

// DevFileRel is the dev set's path inside the shared directory.
const DevFileRel = "bench/locomo-dev.json"

// DevFile returns the path of the dev set, bench/locomo-dev.json in the
// shared directory. When it is missing the test is skipped, or fails when
// CI=true: the recall check must run in CI (the rule of the other tests
// that need something from outside the repository).
func DevFile(t testing.TB) string {
	t.Helper()
	path, err := devFilePath()
	if err == nil {
		_, err = os.Stat(path)
	}
	if err != nil {
		msg := "LoCoMo dev set " + DevFileRel + " not found in the shared directory ($" + EnvSharedDir +
			" or ../shared beside the repository; see shared/bench/README.md): " + err.Error()
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " (CI=true: the LoCoMo recall check must run in CI)")
		}
		t.Skip(msg)
	}
	return path
}

func devFilePath() (string, error) {
	if dir := os.Getenv(EnvSharedDir); dir != "" {
		return filepath.Join(dir, filepath.FromSlash(DevFileRel)), nil
	}
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return filepath.Join(filepath.Dir(dir), "shared", filepath.FromSlash(DevFileRel)), nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod above the working directory")
		}
		dir = parent
	}
}
