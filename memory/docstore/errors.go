package docstore

import (
	"fmt"

	"github.com/mneme-dev/mneme/memory"
)

// ErrNotFound is returned for a document that does not exist or belongs
// to another user. It matches memory.ErrNotFound.
var ErrNotFound = fmt.Errorf("document %w", memory.ErrNotFound)
