package memory

import (
	"errors"
	"fmt"
)

var (
	// ErrNotFound is returned when a row does not exist or belongs to another user.
	ErrNotFound = errors.New("not found")
	// ErrAmbiguous is returned when an id prefix matches more than one row.
	ErrAmbiguous = errors.New("ambiguous id prefix: more than one id begins so; give more of it (ids begin with their time)")
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
	// ErrEncryptedReplica is returned when encryption at rest and sync are
	// both asked for: go-libsql's synced databases ignore the encryption
	// key (the WAL they ship stays plain text), so mneme refuses rather
	// than pretend.
	ErrEncryptedReplica = errors.New("encryption at rest cannot be combined with sync in this build: go-libsql's synced databases are not encrypted; unset the encryption key or the sync URL")
	// ErrBadKey is returned when the database cannot be read with the key given (or without one).
	ErrBadKey = errors.New("cannot read the database")
	// ErrBusy is returned when another mneme process holds what is needed.
	ErrBusy = errors.New("another mneme process is using the database")
)

// Invalid is an error saying why a value is refused, in those words alone; it matches ErrInvalid.
func Invalid(format string, args ...any) error { return invalidError(fmt.Sprintf(format, args...)) }

type invalidError string

func (e invalidError) Error() string        { return string(e) }
func (e invalidError) Is(target error) bool { return target == ErrInvalid }

// ErrNoteNotFound is returned for a note that does not exist, was deleted
// or belongs to another user. It matches ErrNotFound.
var ErrNoteNotFound = fmt.Errorf("note %w", ErrNotFound)
