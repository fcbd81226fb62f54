package index

import "errors"

var (
	// ErrNoteChanged is returned by UpdateNoteFrom when the note's text is
	// no longer the one the change was decided on.
	ErrNoteChanged = errors.New("the note changed meanwhile")
	// ErrSameText is UpdateNote's refusal of a text another active note
	// already holds.
	ErrSameText = errors.New("already says this; nothing changed")

	// errSliceOver stops a background embedding round between batches.
	errSliceOver = errors.New("embedding slice over")
	// errNoEmbeddings is an embedding model's answer without vectors.
	errNoEmbeddings = errors.New("embedding model returned no vectors")
)
