package keyword

import (
	"context"
	"fmt"
	"os"

	"github.com/mneme-dev/mneme/internal/flock"
)

// Rebuilding reports whether a process, this one or another, rebuilds the
// index now (mneme reindex).
func (ix *Index) Rebuilding() bool {
	lockf, err := os.OpenFile(ix.dir+".building.lock", os.O_RDWR, 0o600)
	if err != nil {
		return false // never made: no rebuild ever ran here
	}
	defer lockf.Close()
	return !flock.Try(lockf, flock.Shared)
}

// Rebuild builds a new index beside this one while this one goes on
// answering every process: build is given put, which writes documents to
// the new index. Once build is done, the new index is swapped in as Reset
// swaps in an empty one, and during runs while no other process can use
// the index, so that records kept elsewhere about what is indexed can be
// made to match. A build that fails or is cancelled (Ctrl+C) leaves the
// index as it was. One process rebuilds at a time: another gets
// ErrRebuilding.
func (ix *Index) Rebuild(ctx context.Context, build func(put func(docs ...Doc) error) error, during func() error) error {
	building := ix.dir + ".building"
	lockf, err := os.OpenFile(building+".lock", os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("keyword: rebuild: %w", err)
	}
	defer lockf.Close()
	if !flock.Try(lockf, flock.Exclusive) {
		return ErrRebuilding
	}
	bi, err := ix.make(building)
	if err != nil {
		os.RemoveAll(building)
		return fmt.Errorf("keyword: rebuild: the old index is kept: %w", err)
	}
	err = build(func(docs ...Doc) error {
		for _, d := range docs {
			if err := validate(d); err != nil {
				return err
			}
		}
		return ix.put(bi, docs)
	})
	if cerr := bi.Close(); err == nil && cerr != nil {
		err = fmt.Errorf("keyword: rebuild: the old index is kept: %w", cerr)
	}
	if err == nil {
		err = ix.swapIn(ctx, building, during)
	}
	os.RemoveAll(building) // gone when swapped in; what is left of a failed build
	return err
}
