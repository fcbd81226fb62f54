package ingest

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mneme-dev/mneme/docs"
	"github.com/mneme-dev/mneme/memory/docstore"
)

// Gone are the user's documents added from under the folders among paths
// whose files are no longer there: a folder added again drops them, as
// rsync --delete would, so that a deleted file's text is no longer found
// or recalled. A file the folder still holds but now leaves out (.gitignore,
// a type) stays; a folder that is not there (an unmounted disk) drops
// nothing, nor does a glob or a file named outright.
func Gone(ctx context.Context, store *docstore.Store, user string, paths []string) ([]docstore.Document, error) {
	var roots []string
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			continue
		}
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			abs = real // as docs add stored the paths: links resolved
		}
		if fi, err := os.Stat(abs); err == nil && fi.IsDir() {
			roots = append(roots, abs)
		}
	}
	if len(roots) == 0 {
		return nil, nil
	}
	all, err := store.List(ctx, user, "")
	if err != nil {
		return nil, err
	}
	var gone []docstore.Document
	for _, d := range all {
		for _, root := range roots {
			if docs.Within(root, d.Path) {
				if _, err := os.Lstat(d.Path); errors.Is(err, fs.ErrNotExist) {
					gone = append(gone, d)
				}
				break
			}
		}
	}
	return gone, nil
}
