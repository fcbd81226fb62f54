package cli

import (
	"bytes"
	"encoding/json"
	"testing"
)

// TestJSONKeepsAnglesAndEscapesControls: --json output writes <, > and &
// as they are (an error quoting "<html>" read "\u003chtml\u003e"), still
// escapes what a terminal acts on, and decodes to the text.
func TestJSONKeepsAnglesAndEscapesControls(t *testing.T) {
	in := map[string]string{"error": "a line that is not JSON: \"<html>502 & co</html>\"", "answer": "bidi \u202e here"}
	for name, write := range map[string]func(*bytes.Buffer) error{
		"indented": func(b *bytes.Buffer) error { return writeJSON(b, in) },
		"one line": func(b *bytes.Buffer) error { return writeJSONLine(b, in) },
	} {
		var b bytes.Buffer
		if err := write(&b); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		var back map[string]string
		if !bytes.Contains(b.Bytes(), []byte("<html>502 & co</html>")) || bytes.Contains(b.Bytes(), []byte("\u202e")) ||
			json.Unmarshal(b.Bytes(), &back) != nil || back["answer"] != in["answer"] || out[len(out)-1] != '\n' {
			t.Errorf("%s: %q", name, out)
		}
	}
}
