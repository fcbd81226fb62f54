package ingest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/docstore"
)

// Named are the user's documents arg names (`mneme docs rm ARG`): those added from it (a file,
// or every file under a folder), else the document whose id it is or
// begins (a prefix of at least memory.MinChangePrefix characters: a
// shorter one names a moment, not a document).
func Named(ctx context.Context, docs *docstore.Store, user, arg string) ([]docstore.Document, error) {
	path, err := filepath.Abs(arg)
	if err == nil {
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real // as docs add stored it: links resolved
		}
		if fi, err := os.Stat(path); err == nil && fi.IsDir() {
			all, err := docs.List(ctx, user, "")
			under := slices.DeleteFunc(all, func(d docstore.Document) bool { return !strings.HasPrefix(d.Path, path+string(filepath.Separator)) })
			if err == nil && len(under) == 0 {
				err = fmt.Errorf("no document was added from %s", sanitize.Line(path))
			}
			return under, err
		}
		if d, ok, err := docs.Lookup(ctx, user, path); err != nil || ok {
			return []docstore.Document{d}, err
		}
		// A path as docs list shows it: one with control characters in its
		// name is listed cleaned, and is named back that way.
		all, err := docs.List(ctx, user, "")
		if err != nil {
			return nil, err
		}
		if shown := slices.DeleteFunc(all, func(d docstore.Document) bool { return sanitize.Line(d.Path) != path }); len(shown) > 0 {
			return shown, nil
		}
	}
	if strings.ContainsAny(arg, `/\.~`) { // a path, not an id
		return nil, fmt.Errorf("no document was added from %s", sanitize.Line(arg))
	}
	d, err := docs.Get(ctx, user, arg)
	if short := strings.TrimSpace(arg); short != "" && len(short) < memory.MinChangePrefix && (err != nil || d.ID != short) {
		return nil, fmt.Errorf("%s: %w", short, memory.ErrShortPrefix)
	}
	return []docstore.Document{d}, err
}
