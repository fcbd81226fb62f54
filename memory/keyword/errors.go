package keyword

import "errors"

var (
	// ErrCorrupt is returned by Open when the directory exists but does not
	// hold a readable index; the caller should remove it and rebuild.
	ErrCorrupt = errors.New("keyword index corrupt")
	// ErrStale is returned by Open when the index was built by another
	// analyzer or mapping version; the caller should remove it and rebuild.
	ErrStale = errors.New("keyword index built by another version")
	// ErrNoUser is returned when a search or document has no user id.
	ErrNoUser = errors.New("keyword: user id required")
	// ErrInvalid is returned for documents the index refuses.
	ErrInvalid = errors.New("keyword: invalid document")
	// ErrClosed is returned when the index has been closed.
	ErrClosed = errors.New("keyword index closed")
	// ErrRebuilding is returned by Rebuild while another process rebuilds.
	ErrRebuilding = errors.New("another mneme is rebuilding the keyword index (mneme reindex)")
)
