package importer

import (
	"archive/zip"
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path"
	"strings"
)

// Format is an export format mneme imports.
type Format string

// The formats.
const (
	Mneme     Format = "mneme" // mneme's own JSON lines (memory.Store.Import)
	ChatGPT   Format = "chatgpt"
	Claude    Format = "claude"
	OpenWebUI Format = "openwebui"
)

// Name is the format's name for people.
func (f Format) Name() string {
	switch f {
	case ChatGPT:
		return "ChatGPT"
	case Claude:
		return "Claude"
	case OpenWebUI:
		return "Open WebUI"
	}
	return "mneme"
}

// ParseFormat reads a --from value; "" means detect.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case "", Mneme, ChatGPT, Claude, OpenWebUI:
		return f, nil
	case "open-webui":
		return OpenWebUI, nil
	}
	return "", fmt.Errorf("--from %q: %w", s, ErrBadFormatName)
}

// peekSize is how much of the content detection looks at: enough for the
// keys of the first conversation, which come before its long parts.
const peekSize = 64 << 10

var zipMagic = []byte("PK\x03\x04")

// Detect tells the format of what br holds, from its first bytes, without
// consuming them. A JSON object first is mneme's JSON lines (it answers
// after the first byte, so a stdin being typed is not waited on); a JSON
// array is told by its first conversation's keys: "mapping" (ChatGPT),
// "chat_messages" (Claude), "chat" or "history" (Open WebUI). Empty
// content is mneme's (an empty import).
func Detect(br *bufio.Reader) (Format, error) {
	i := 0
	for {
		b, err := br.Peek(i + 1)
		if len(b) <= i {
			if err == io.EOF {
				return Mneme, nil
			}
			return "", err
		}
		switch c := b[i]; {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
			continue
		case i == 0 && c == 0xEF: // a UTF-8 byte order mark
			i += 3
			continue
		case c == '{':
			return Mneme, nil
		case c == '[':
			head, _ := br.Peek(peekSize)
			return detectArray(head[i:])
		case i == 0 && c == 'P':
			if head, _ := br.Peek(len(zipMagic)); bytes.Equal(head, zipMagic) {
				return "", ErrZipFromStdin
			}
		}
		return "", ErrUnknownFormat
	}
}

// detectArray reads the keys of the first element of a (possibly cut)
// JSON array.
func detectArray(head []byte) (Format, error) {
	dec := json.NewDecoder(bytes.NewReader(head))
	if _, err := dec.Token(); err != nil { // [
		return "", ErrUnknownFormat
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		if t == json.Delim(']') {
			return ChatGPT, nil // an empty array: nothing to import, any reader will do
		}
		return "", ErrUnknownFormat
	}
	keys := map[string]bool{}
	for {
		t, err := dec.Token() // a key, or the end of the first conversation
		key, ok := t.(string)
		if err != nil || !ok {
			break // the end, or the peek ended inside the first conversation
		}
		keys[key] = true
		if skipValue(dec) != nil {
			break
		}
	}
	switch {
	case keys["mapping"] || keys["current_node"]:
		return ChatGPT, nil
	case keys["chat_messages"]:
		return Claude, nil
	case keys["chat"] || keys["history"]:
		return OpenWebUI, nil
	}
	return "", ErrUnknownFormat
}

// skipValue reads past the next value of dec.
func skipValue(dec *json.Decoder) error {
	for depth := 0; ; {
		t, err := dec.Token()
		if err != nil {
			return err
		}
		switch t {
		case json.Delim('{'), json.Delim('['):
			depth++
		case json.Delim('}'), json.Delim(']'):
			depth--
		}
		if depth == 0 {
			return nil
		}
	}
}

// Input is an export opened for reading.
type Input struct {
	Format Format
	Name   string // the file read (in a zip: zip!conversations.json)
	Size   int64  // its size in bytes, -1 when unknown (stdin)
	r      io.Reader
	close  func() error
}

// Reader is the export's content, after detection (bytes not consumed).
func (in *Input) Reader() io.Reader { return in.r }

// Close closes the file.
func (in *Input) Close() error {
	if in.close == nil {
		return nil
	}
	return in.close()
}

// Open opens the export at name: a .zip's conversations.json (streamed
// from the zip), or the file itself. The format is detected unless force
// names one.
func Open(name string, force Format) (*Input, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	br := bufio.NewReaderSize(f, peekSize)
	if head, _ := br.Peek(len(zipMagic)); bytes.Equal(head, zipMagic) {
		f.Close()
		return openZip(name, force)
	}
	in := &Input{Format: force, Name: name, Size: st.Size() - skipBOM(br), r: br, close: f.Close}
	if in.Format == "" {
		if in.Format, err = Detect(br); err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w", name, err)
		}
	}
	return in, nil
}

// OpenReader is Open for a stream (stdin), which cannot be a zip.
func OpenReader(r io.Reader, force Format) (*Input, error) {
	br := bufio.NewReaderSize(r, peekSize)
	skipBOM(br)
	in := &Input{Format: force, Name: "stdin", Size: -1, r: br}
	if in.Format == "" {
		var err error
		if in.Format, err = Detect(br); err != nil {
			return nil, err
		}
	}
	return in, nil
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// skipBOM reads past a UTF-8 byte order mark at the start of br (some
// editors and Windows tools write one), which no JSON decoder takes,
// whatever the format; it returns the bytes skipped. Only a first byte of
// the mark waits for more, so a stdin being typed is not waited on.
func skipBOM(br *bufio.Reader) int64 {
	if b, _ := br.Peek(1); len(b) == 0 || b[0] != bom[0] {
		return 0
	}
	if b, _ := br.Peek(len(bom)); !bytes.Equal(b, bom) {
		return 0
	}
	n, _ := br.Discard(len(bom))
	return int64(n)
}

// openZip opens the conversations.json of an export zip (ChatGPT's and
// Claude's both have one), nearest the zip's root.
func openZip(name string, force Format) (*Input, error) {
	zr, err := zip.OpenReader(name)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	var best *zip.File
	for _, f := range zr.File {
		if path.Base(f.Name) != "conversations.json" || f.FileInfo().IsDir() {
			continue
		}
		if best == nil || strings.Count(f.Name, "/") < strings.Count(best.Name, "/") {
			best = f
		}
	}
	if best == nil {
		zr.Close()
		return nil, fmt.Errorf("%s: %w", name, ErrNoConversationsJSON)
	}
	rc, err := best.Open()
	if err != nil {
		zr.Close()
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	br := bufio.NewReaderSize(rc, peekSize)
	in := &Input{Format: force, Name: name + "!" + best.Name, Size: int64(best.UncompressedSize64) - skipBOM(br), r: br,
		close: func() error { rc.Close(); return zr.Close() }}
	if in.Format == "" {
		if in.Format, err = Detect(br); err != nil {
			in.Close()
			return nil, fmt.Errorf("%s: %w", in.Name, err)
		}
	}
	return in, nil
}
