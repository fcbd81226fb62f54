package cli

import (
	"bytes"
	"encoding/json"
	"io"

	"github.com/mneme-dev/mneme/internal/sanitize"
)

// writeJSON prints v as indented JSON, as every --json output does, with
// the characters a terminal acts on escaped (sanitize.JSON).
func writeJSON(w io.Writer, v any) error { return encodeJSON(w, v, "  ") }

// writeJSONLine prints v as one line of JSON, escaped like writeJSON.
func writeJSONLine(w io.Writer, v any) error { return encodeJSON(w, v, "") }

// encodeJSON writes v and a newline, indented by indent ("" for one line).
// <, > and & stay as they are, as in the exports ("\u003c" is for HTML).
func encodeJSON(w io.Writer, v any, indent string) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(sanitize.JSON(b.Bytes()))
	return err
}
