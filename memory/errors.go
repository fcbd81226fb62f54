package memory

import (
	"errors"
	"fmt"
)

var (
	// ErrNotFound is returned when a row does not exist or belongs to another user.
	ErrNotFound = errors.New("not found")
	// ErrAmbiguous is returned when an id prefix matches more than one row.
	ErrAmbiguous = errors.New("ambiguous id prefix")
	// ErrSchemaTooNew is returned when the database was written by a newer mneme.
	ErrSchemaTooNew = errors.New("database schema is newer than this mneme: upgrade mneme")
	// ErrNoUser is returned when an operation is attempted without a user id.
	ErrNoUser = errors.New("user id required")
	// ErrInvalid is returned for values the store refuses to write.
	ErrInvalid = errors.New("invalid value")
	// ErrShortPrefix is returned when a command that changes or deletes
	// something is given an id prefix shorter than MinChangePrefix: the
	// first characters of a UUIDv7 are its timestamp, so a short prefix
	// picks "the note saved around then", not one the user named.
	ErrShortPrefix = fmt.Errorf("an id prefix must have at least %d characters to change or delete", MinChangePrefix)
	// ErrTimeOutOfRange is returned for an imported time before 1970 or
	// more than a day ahead of now.
	ErrTimeOutOfRange = errors.New("time out of range")
	// ErrOtherUser is returned for an import line that names another user
	// when the import may only write the importing user's data.
	ErrOtherUser = errors.New("the line names another user")
	// ErrSyncLocked is returned when go-libsql's sync kept finding the
	// database locked by another connection, after every retry.
	ErrSyncLocked = errors.New("the database stayed locked during sync")
)

// ErrNoteNotFound is returned for a note that does not exist, was deleted
// or belongs to another user. It matches ErrNotFound.
var ErrNoteNotFound = fmt.Errorf("note %w", ErrNotFound)
