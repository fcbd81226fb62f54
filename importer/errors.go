package importer

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
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
		return fmt.Sprintf("conversation at index %d (id %q): %s", e.Index, e.ID, readable(e.Err))
	}
	return fmt.Sprintf("conversation at index %d: %s", e.Index, readable(e.Err))
}

func (e ConversationError) Unwrap() error { return e.Err }

// readable words a JSON shape error for a person: what the export has
// where, instead of Go's types.
func readable(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err.Error()
	}
	want := "something else"
	switch te.Type.Kind() {
	case reflect.Map, reflect.Struct:
		want = "an object"
	case reflect.Slice, reflect.Array:
		want = "a list"
	case reflect.String:
		want = "text"
	case reflect.Bool:
		want = "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64, reflect.Uint, reflect.Uint8, reflect.Uint16,
		reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		want = "a number"
	}
	if te.Field == "" {
		return fmt.Sprintf("it is %s where %s belongs", jsonKind(te.Value), want)
	}
	return fmt.Sprintf("its %q is %s where %s belongs", te.Field, jsonKind(te.Value), want)
}

// jsonKind names a JSON value kind as UnmarshalTypeError.Value gives it.
func jsonKind(v string) string {
	switch {
	case v == "object":
		return "an object"
	case v == "array":
		return "a list"
	case v == "string":
		return "text"
	case v == "bool":
		return "true or false"
	case strings.HasPrefix(v, "number"):
		return "a number"
	}
	return v
}
