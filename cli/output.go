package cli

import (
	"encoding/json"
	"io"

	"github.com/mneme-dev/mneme/internal/sanitize"
)

// writeJSON prints v as indented JSON, as every --json output does, with
// the characters a terminal acts on escaped (sanitize.JSON).
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(sanitize.JSON(b), '\n'))
	return err
}

// writeJSONLine prints v as one line of JSON, escaped like writeJSON.
func writeJSONLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(sanitize.JSON(b), '\n'))
	return err
}
