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
	if err != nil || !strings.HasSuffix(r.URL.Path, "/api/chat") || resp.StatusCode >= http.StatusBadRequest {
		return resp, err // an error's body (a proxy's page) is the client's to quote
	}
	resp.Body = &lineFixer{body: resp.Body, r: bufio.NewReader(resp.Body)}
	return resp, nil
}

// maxFixedLine bounds the line lineFixer reads whole: the Ollama client
// cannot read a longer one (its scanner's 8 MB) and then ends as if the
// answer had simply stopped.
const maxFixedLine = 8 << 20

// unreadableMarker begins the error of the line lineFixer puts in place of
// one the Ollama client cannot read; stream turns it into
// ErrUnreadableReply.
const unreadableMarker = "\x00mneme: unreadable line: "

// lineFixer passes a body on line by line, fixing each line's tool calls.
type lineFixer struct {
	body    io.ReadCloser
	r       *bufio.Reader
	pending []byte
	err     error
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

// next returns the next line, fixed. A line the Ollama client cannot read
// (not JSON, or longer than maxFixedLine) ends the body, replaced by an
// error line saying so: the client quoted a broken line as its error, and
// took an overlong one for the end of the answer ("Ollama stopped").
func (f *lineFixer) next() ([]byte, error) {
	var line []byte
	for {
		chunk, err := f.r.ReadSlice('\n')
		line = append(line, chunk...)
		switch {
		case errors.Is(err, bufio.ErrBufferFull) && len(line) >= maxFixedLine:
			return unreadableLine(fmt.Sprintf("a line longer than %d MB", maxFixedLine>>20)), io.EOF
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		}
		t := bytes.TrimSpace(line)
		switch {
		case len(t) == 0 || json.Valid(t):
			return fixToolArguments(line), err
		case err != nil && !bytes.HasSuffix(line, []byte("\n")):
			// Cut off mid-line (the connection dropped): the answer broke
			// off, which the client tells from the end of the body.
			return nil, err
		}
		return unreadableLine(fmt.Sprintf("a line that is not JSON: %.80q", t)), io.EOF
	}
}

// unreadableLine is Ollama's mid-stream error line, carrying why.
func unreadableLine(why string) []byte {
	b, _ := json.Marshal(map[string]string{"error": unreadableMarker + why})
	return append(b, '\n')
}

// unreadable turns the Ollama client's error for an unreadable line back
// into ErrUnreadableReply.
func unreadable(err error) error {
	if why, ok := strings.CutPrefix(err.Error(), unreadableMarker); ok {
		return fmt.Errorf("%w: %s", ErrUnreadableReply, why)
	}
	return err
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
