package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// noticesDir holds, under the data dir, one file per notice mneme gives
// once and must remember across processes.
const noticesDir = "told"

// firstNotice returns a function reporting whether notice kind is shown for
// model for the first time in this data dir, and recording that it was.
// Creating the record is atomic (O_EXCL), so of several mneme processes
// asking at once exactly one is told. When the record cannot be written
// the user is told, as before: a repeated notice beats a missing one.
func (s *session) firstNotice(kind string) func(model string) bool {
	return func(model string) bool {
		name := model
		if !strings.Contains(name, ":") {
			name += ":latest"
		}
		sum := sha256.Sum256([]byte(kind + "\x00" + name))
		dir := filepath.Join(s.cfg.DataDir, noticesDir)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			s.log.Warn("notice record", "err", err)
			return true
		}
		path := filepath.Join(dir, kind+"-"+hex.EncodeToString(sum[:8]))
		f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if errors.Is(err, fs.ErrExist) {
			return false
		}
		if err != nil {
			s.log.Warn("notice record", "err", err)
			return true
		}
		_, werr := f.WriteString(name + "\n") // for a person looking
		if err := errors.Join(werr, f.Close()); err != nil {
			s.log.Warn("notice record", "path", path, "err", err)
		}
		return true
	}
}
