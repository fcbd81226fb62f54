// Package told remembers, across mneme processes, the notices given once
// per data dir (a model that cannot use tools): one file a notice under
// told/, created atomically (O_EXCL), so that of several processes asking
// at once exactly one is told.
package told

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// dirName is the folder of the records, under the data dir.
const dirName = "told"

// First reports whether notice kind about model is given for the first
// time in dataDir, and records that it was. When the record cannot be
// written it says true, with the error: a repeated notice beats a missing
// one.
func First(dataDir, kind, model string) (bool, error) {
	name := model
	if !strings.Contains(name, ":") {
		name += ":latest"
	}
	sum := sha256.Sum256([]byte(kind + "\x00" + name))
	dir := filepath.Join(dataDir, dirName)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return true, err
	}
	path := filepath.Join(dir, kind+"-"+hex.EncodeToString(sum[:8]))
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	_, werr := f.WriteString(name + "\n") // for a person looking
	return true, errors.Join(werr, f.Close())
}
