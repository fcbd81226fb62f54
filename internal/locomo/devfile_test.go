package locomo

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// recorder is a testing.TB that records Fatal and Skip instead of ending the test.
type recorder struct {
	testing.TB
	fatal, skip string
}

type stopped struct{}

func (r *recorder) Helper()                     {}
func (r *recorder) Fatal(args ...any)           { r.fatal = fmt.Sprint(args...); panic(stopped{}) }
func (r *recorder) Skip(args ...any)            { r.skip = fmt.Sprint(args...); panic(stopped{}) }
func (r *recorder) Skipf(f string, args ...any) { r.Skip(fmt.Sprintf(f, args...)) }

func devFileWith(t *testing.T) (path string, r *recorder) {
	r = &recorder{TB: t}
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(stopped); !ok {
				panic(v)
			}
		}
	}()
	return DevFile(r), r
}

func TestDevFileMissing(t *testing.T) {
	t.Setenv(EnvSharedDir, t.TempDir())
	t.Setenv("CI", "")
	if _, r := devFileWith(t); r.skip == "" || r.fatal != "" || !strings.Contains(r.skip, DevFileRel) {
		t.Errorf("outside CI: skip %q, fatal %q; want a skip naming the file", r.skip, r.fatal)
	}
	t.Setenv("CI", "true")
	if _, r := devFileWith(t); r.fatal == "" || r.skip != "" || !strings.Contains(r.fatal, "CI=true") {
		t.Errorf("CI=true: skip %q, fatal %q; want a failure", r.skip, r.fatal)
	}
}

func TestDevFileFound(t *testing.T) {
	dir := t.TempDir()
	want := filepath.Join(dir, filepath.FromSlash(DevFileRel))
	if err := os.MkdirAll(filepath.Dir(want), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(want, []byte("[]"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvSharedDir, dir)
	t.Setenv("CI", "true")
	if got, r := devFileWith(t); got != want || r.fatal != "" || r.skip != "" {
		t.Errorf("DevFile = %q (skip %q, fatal %q), want %q", got, r.skip, r.fatal, want)
	}
}
