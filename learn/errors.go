package learn

import "errors"

// Errors of this package.
var (
	// ErrMalformed means the model's reply did not follow the schema.
	ErrMalformed = errors.New("malformed reply")
	// ErrChanged is Notes.Update's answer for a note whose text is no
	// longer the one the decision read (edited meanwhile).
	ErrChanged = errors.New("the note changed meanwhile")
	// ErrKept is Notes.Update's answer for a text another note already
	// holds.
	ErrKept = errors.New("another note already says it")
)
