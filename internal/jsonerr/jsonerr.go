// Package jsonerr words encoding/json's errors for people: what a file
// has where, not Go's types ("its "title" is a number where text belongs",
// not "cannot unmarshal number into Go struct field Record.title of type
// string").
package jsonerr

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
)

// Error is a decoding error worded by Describe; Unwrap gives the original.
type Error struct{ Err error }

func (e Error) Error() string { return Describe(e.Err) }
func (e Error) Unwrap() error { return e.Err }

// Describe words err, a decoding error, for a person; another error is
// its own text.
func Describe(err error) string {
	var te *json.UnmarshalTypeError
	var se *json.SyntaxError
	switch {
	case errors.As(err, &te):
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
			return fmt.Sprintf("it is %s where %s belongs", kind(te.Value), want)
		}
		return fmt.Sprintf("its %q is %s where %s belongs", te.Field, kind(te.Value), want)
	case errors.As(err, &se):
		return fmt.Sprintf("not JSON (at byte %d)", se.Offset)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "JSON cut off before its end"
	}
	return err.Error()
}

// kind names a JSON value kind as UnmarshalTypeError.Value gives it.
func kind(v string) string {
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
