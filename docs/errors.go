package docs

import "errors"

// The reasons Parse gives up on a file. Each is wrapped with a few words of
// context (fmt.Errorf and %w), so test with errors.Is; the whole message
// reads as a reason a person understands: "unsupported type .png",
// "binary file", "encrypted PDF", "no text found (a scanned PDF?)",
// "malformed DOCX: no word/document.xml".
var (
	// ErrUnsupported: the file's extension is not a format Parse reads.
	ErrUnsupported = errors.New("unsupported type")
	// ErrBinary: a text format (or a file without an extension) whose bytes
	// are not text: NUL bytes, or mostly invalid UTF-8 and control bytes.
	ErrBinary = errors.New("binary file")
	// ErrEncrypted: the document needs a password to open.
	ErrEncrypted = errors.New("encrypted")
	// ErrEmpty: the document holds no text, e.g. a scanned PDF without a
	// text layer.
	ErrEmpty = errors.New("no text found")
	// ErrMalformed: a broken PDF, DOCX or zip file.
	ErrMalformed = errors.New("malformed")
	// ErrOversized: a document that unpacks to far more than its file
	// (a hostile one), e.g. a PDF whose pages all show one small stream
	// that unpacks to megabytes.
	ErrOversized = errors.New("too large to read")
)
