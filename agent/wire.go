package agent

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// notAnObject is the key under which ToleratingTransport hands on tool-call
// arguments that are not a JSON object, as the raw JSON they were.
const notAnObject = "\x00mneme: arguments not an object"

// ToleratingTransport wraps base (nil: http.DefaultTransport) for the
// Ollama client. A tool call whose arguments are not a JSON object (a
// string, an array, a number) makes api.Client.Chat fail on the whole
// line, losing the turn; this transport rewrites such arguments, in
// /api/chat answers, into an object that Run recognises and answers with
// an error result, so the turn goes on.
func ToleratingTransport(base http.RoundTripper) http.RoundTripper {
	if base == nil {
		base = http.DefaultTransport
	}
	return toleratingTransport{base}
}

type toleratingTransport struct{ base http.RoundTripper }

func (t toleratingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err != nil || !strings.HasSuffix(r.URL.Path, "/api/chat") {
		return resp, err
	}
	resp.Body = &lineFixer{body: resp.Body, r: bufio.NewReader(resp.Body)}
	return resp, nil
}

// maxFixedLine bounds the line lineFixer reads whole: the Ollama client
// refuses a longer one (its scanner's 8 MB), so it passes on unfixed, in
// pieces, rather than be gathered whole from a server that never ends it.
const maxFixedLine = 8 << 20

// lineFixer passes a body on line by line, fixing each line's tool calls.
type lineFixer struct {
	body    io.ReadCloser
	r       *bufio.Reader
	pending []byte
	err     error
	passing bool // in a line longer than maxFixedLine
}

func (f *lineFixer) Read(p []byte) (int, error) {
	for len(f.pending) == 0 {
		if f.err != nil {
			return 0, f.err
		}
		f.pending, f.err = f.next()
	}
	n := copy(p, f.pending)
	f.pending = f.pending[n:]
	return n, nil
}

// next returns the next line, fixed, or the next piece of an overlong one.
func (f *lineFixer) next() ([]byte, error) {
	var line []byte
	for {
		chunk, err := f.r.ReadSlice('\n')
		line = append(line, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull) && (f.passing || len(line) >= maxFixedLine):
			f.passing = true
			return line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case f.passing:
			f.passing = false
			return line, err
		}
		return fixToolArguments(line), err
	}
}

func (f *lineFixer) Close() error { return f.body.Close() }

// fixToolArguments returns line with every tool call's arguments that are
// not a JSON object replaced by {notAnObject: "<the raw JSON>"}; any other
// line comes back unchanged.
func fixToolArguments(line []byte) []byte {
	if !bytes.Contains(line, []byte(`"tool_calls"`)) {
		return line
	}
	var top map[string]json.RawMessage
	var msg map[string]json.RawMessage
	var calls []map[string]json.RawMessage
	if json.Unmarshal(line, &top) != nil || json.Unmarshal(top["message"], &msg) != nil ||
		json.Unmarshal(msg["tool_calls"], &calls) != nil {
		return line
	}
	changed := false
	for _, c := range calls {
		var fn map[string]json.RawMessage
		if json.Unmarshal(c["function"], &fn) != nil {
			continue
		}
		args, ok := fn["arguments"]
		var obj map[string]json.RawMessage
		if !ok || json.Unmarshal(args, &obj) == nil {
			continue // an object, or null
		}
		fn["arguments"], _ = json.Marshal(map[string]string{notAnObject: string(args)})
		c["function"], _ = json.Marshal(fn)
		changed = true
	}
	if !changed {
		return line
	}
	msg["tool_calls"], _ = json.Marshal(calls)
	top["message"], _ = json.Marshal(msg)
	out, err := json.Marshal(top)
	if err != nil {
		return line
	}
	if bytes.HasSuffix(line, []byte("\n")) {
		out = append(out, '\n')
	}
	return out
}

// argumentsNotAnObject explains arguments that ToleratingTransport marked
// as not an object, quoting them (bounded).
func argumentsNotAnObject(raw string) string {
	kind := "malformed JSON"
	switch t := strings.TrimSpace(raw); {
	case strings.HasPrefix(t, `"`):
		kind = "a string"
	case strings.HasPrefix(t, "["):
		kind = "an array"
	case t == "true" || t == "false":
		kind = "a boolean"
	case json.Valid([]byte(t)):
		kind = "a number"
	}
	return fmt.Sprintf("not run: the arguments must be a JSON object, and they were %s: %s", kind, clip(raw, 200))
}
