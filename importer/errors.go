package importer

import (
	"errors"
	"fmt"

	"github.com/mneme-dev/mneme/internal/jsonerr"
)

// Sentinel errors of an import. Callers test them with errors.Is.
var (
	// ErrUnknownFormat: the content is none of the formats mneme reads.
	ErrUnknownFormat = errors.New("not an export mneme can read: expected a ChatGPT or Claude conversations.json (or the .zip it came in), an Open WebUI chat export, or mneme's JSON lines")
	// ErrNoConversationsJSON: a zip without a conversations.json.
	ErrNoConversationsJSON = errors.New("the zip has no conversations.json")
	// ErrZipFromStdin: a zip can only be read from a file.
	ErrZipFromStdin = errors.New("a .zip export must be named as a file, not piped to stdin")
	// ErrBadFormatName: --from names no format.
	ErrBadFormatName = errors.New("unknown format: use chatgpt, claude, openwebui or mneme")
	// ErrNotArray: the export is not a JSON array of conversations.
	ErrNotArray = errors.New("not a JSON array of conversations")
	// ErrDuplicateID: a conversation has the id of one before it in the export.
	ErrDuplicateID = errors.New("the same id as a conversation before it")
	// ErrBroken: the JSON is cut off or malformed; nothing after it can be read.
	ErrBroken = errors.New("the export is cut off or malformed")
)

// ConversationError is a conversation of an export that could not be read.
// The import reports it and goes on with the next one.
type ConversationError struct {
	Index int    // 0-based position in the export's array
	ID    string // its id, when it could be read
	Err   error
}

func (e ConversationError) Error() string {
	if e.ID != "" {
		return fmt.Sprintf("conversation at index %d (id %q): %s", e.Index, e.ID, jsonerr.Describe(e.Err))
	}
	return fmt.Sprintf("conversation at index %d: %s", e.Index, jsonerr.Describe(e.Err))
}

func (e ConversationError) Unwrap() error { return e.Err }
