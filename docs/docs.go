// Package docs turns the files a person adds ("mneme docs add PATH…") into
// clean text: Expand finds the files named by paths, directories and globs,
// Parse reads one file's bytes into titled sections, and Split cuts those
// into overlapping chunks for the index. It reads Markdown, plain text,
// HTML, PDF (the text layer), DOCX and CSV. It does no I/O except in Expand
// and keeps no state.
//
// All text it returns is valid UTF-8 without control characters other than
// newline and tab (ANSI escape sequences are removed whole), without bidi
// override or isolate characters, with LF line ends and no runs of blank
// lines.
package docs

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
)

// Type is a document format.
type Type string

// The formats Parse reads.
const (
	Markdown Type = "markdown"
	Text     Type = "text"
	HTML     Type = "html"
	PDF      Type = "pdf"
	DOCX     Type = "docx"
	CSV      Type = "csv"
)

// Section is a run of a document's text under one heading (Markdown, HTML
// h1-h6, DOCX Heading styles) or on one page (PDF, 1-based; 0 when the
// format has no pages).
//
// Heading is the heading path, outermost first, joined by HeadingSep
// ("Install › Linux"), for every format with headings; CSV sections are
// headed by the rows they hold ("rows 1–50"). Text does not repeat the
// heading.
type Section struct {
	Heading string
	Page    int
	Text    string
}

// Parsed is a document's text.
type Parsed struct {
	Title    string
	Type     Type
	Sections []Section
}

// HeadingSep joins the headings of a heading path.
const HeadingSep = " › "

// extensions maps a lower-case extension to its format.
var extensions = map[string]Type{
	".md": Markdown, ".markdown": Markdown, ".mdx": Markdown,
	".txt": Text, ".text": Text, ".log": Text, ".rst": Text, ".org": Text, ".adoc": Text,
	".html": HTML, ".htm": HTML, ".xhtml": HTML,
	".pdf":  PDF,
	".docx": DOCX,
	".csv":  CSV, ".tsv": CSV,
}

// codeExtensions are source code and configuration, read as plain text (a
// project folder is what people add most). Not .env: it holds secrets.
var codeExtensions = strings.Fields(`.go .py .js .mjs .cjs .ts .tsx .jsx .rs .java .kt .kts .scala .c .h .cc .cpp
	.hpp .cs .swift .m .rb .php .pl .lua .r .jl .hs .ml .ex .exs .erl .clj .dart .zig .nim .sql .sh .bash .zsh .fish
	.ps1 .bat .vue .svelte .css .scss .sass .less .json .jsonl .yaml .yml .toml .ini .cfg .conf .xml .proto .graphql
	.tf .tex .bib .diff .patch .gradle .cmake .mk .dockerfile`)

// unsupported is why a file of this name is not read: its type, or, for a
// .env file, that it holds secrets.
func unsupported(name string) error {
	ext := strings.ToLower(filepath.Ext(name))
	if ext == ".env" {
		return fmt.Errorf("%w %s: it holds secrets (API keys, passwords), so it is never added", ErrUnsupported, ext)
	}
	return fmt.Errorf("%w %s", ErrUnsupported, ext)
}

// TypeOf returns the format Parse gives a file of this name by its
// extension, and false when the extension is not one Parse reads. A name
// without an extension is Text (Parse then checks that the bytes are
// text).
func TypeOf(name string) (Type, bool) {
	ext := strings.ToLower(filepath.Ext(name))
	if ext == "" {
		return Text, true
	}
	if t, ok := extensions[ext]; ok {
		return t, true
	}
	return Text, slices.Contains(codeExtensions, ext)
}

// Parse reads a file's bytes (already read, at most the size limit) and
// returns its text. name is the file name (for the extension and the
// fallback title). The errors wrap ErrUnsupported, ErrBinary,
// ErrEncrypted, ErrEmpty, ErrMalformed or ErrOversized.
func Parse(name string, data []byte) (Parsed, error) {
	t, ok := TypeOf(name)
	if !ok {
		return Parsed{}, unsupported(name)
	}
	var p Parsed
	var err error
	switch t {
	case PDF:
		p, err = parsePDF(data)
	case DOCX:
		p, err = parseDOCX(data)
	default:
		s, terr := decodeText(data)
		if terr != nil {
			return Parsed{}, terr
		}
		switch t {
		case Markdown:
			p = parseMarkdown(s)
		case HTML:
			p = parseHTML(s)
		case CSV:
			p, err = parseCSV(s, strings.EqualFold(filepath.Ext(name), ".tsv"))
		default:
			p = Parsed{Sections: []Section{{Text: s}}}
		}
	}
	if err != nil {
		return Parsed{}, err
	}
	p.Type = t
	return finish(p, name)
}

// finish cleans a parsed document's title and sections, drops sections
// with neither heading nor text, falls back to the file name for the title,
// and fails with ErrEmpty when no text is left.
func finish(p Parsed, name string) (Parsed, error) {
	p.Title = text.OneLine(clean(p.Title))
	if p.Title == "" {
		p.Title = strings.TrimSuffix(filepath.Base(name), filepath.Ext(name))
		p.Title = text.OneLine(clean(p.Title))
	}
	kept := p.Sections[:0]
	hasText := false
	for _, s := range p.Sections {
		s.Heading = text.OneLine(clean(s.Heading))
		s.Text = clean(s.Text)
		if s.Heading == "" && s.Text == "" {
			continue
		}
		hasText = hasText || s.Text != ""
		kept = append(kept, s)
	}
	if !hasText && len(kept) > 0 && p.Type != PDF {
		// Headings alone (a README that is one title line): their words
		// are the document's text, so that it is found.
		for i := range kept {
			kept[i].Text, hasText = kept[i].Heading, true
		}
	}
	if !hasText {
		if p.Type == PDF {
			return Parsed{}, fmt.Errorf("%w (a scanned PDF?)", ErrEmpty)
		}
		return Parsed{}, ErrEmpty
	}
	p.Sections = kept
	return p, nil
}

// decodeText returns the text of a text format's bytes: UTF-16 with a byte
// order mark is decoded, a UTF-8 byte order mark dropped. Bytes that do
// not look like text fail with ErrBinary; a few invalid bytes are replaced
// later, by clean.
func decodeText(data []byte) (string, error) {
	switch {
	case bytes.HasPrefix(data, []byte{0xff, 0xfe}):
		return decodeUTF16(data[2:], false), nil
	case bytes.HasPrefix(data, []byte{0xfe, 0xff}):
		return decodeUTF16(data[2:], true), nil
	}
	data = bytes.TrimPrefix(data, []byte{0xef, 0xbb, 0xbf})
	// Text in an 8-bit code page is read as such before it is judged: its
	// accented letters are not UTF-8, and a short "café crème" would
	// otherwise look binary.
	if bytes.IndexByte(data, 0) < 0 && legacy8Bit(data) && readsAsText(data) {
		if s, err := charmap.Windows1252.NewDecoder().Bytes(data); err == nil {
			return string(s), nil
		}
	}
	if looksBinary(data) {
		return "", ErrBinary
	}
	return string(data), nil
}

// readsAsText reports whether 8-bit data looks like writing rather than
// bytes: next to no control characters, and most of it ASCII (accented
// letters are a minority in any Latin-script text; in binary data about
// half the bytes are high).
func readsAsText(data []byte) bool {
	sample := data[:min(len(data), 64<<10)]
	ctrl, high := 0, 0
	for _, c := range sample {
		switch {
		case c >= utf8.RuneSelf:
			high++
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != 0x1b || c == 0x7f:
			ctrl++
		}
	}
	return ctrl*100 <= len(sample) && high*10 <= 3*len(sample)
}

// legacy8Bit reports whether data is text in an 8-bit code page rather
// than UTF-8: it has bytes above ASCII, and not one of them starts a valid
// UTF-8 sequence ("Café" written by an old editor in Latin-1 or
// Windows-1252, which it is then read as).
func legacy8Bit(data []byte) bool {
	high := false
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r != utf8.RuneError || size > 1 {
			return false // real UTF-8
		}
		high = true
		i++
	}
	return high
}

func decodeUTF16(data []byte, bigEndian bool) string {
	u := make([]uint16, len(data)/2)
	for i := range u {
		if bigEndian {
			u[i] = uint16(data[2*i])<<8 | uint16(data[2*i+1])
		} else {
			u[i] = uint16(data[2*i+1])<<8 | uint16(data[2*i])
		}
	}
	return string(utf16.Decode(u))
}

// looksBinary reports whether data is not text: it holds a NUL byte, or
// more than a tenth of its first 64 KiB is invalid UTF-8 or control bytes
// (other than tab, new line, carriage return, form feed and escape).
func looksBinary(data []byte) bool {
	if bytes.IndexByte(data, 0) >= 0 {
		return true
	}
	sample := data[:min(len(data), 64<<10)]
	bad := 0
	for i := 0; i < len(sample); {
		c := sample[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != 0x1b || c == 0x7f {
				bad++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(sample[i:])
		if r == utf8.RuneError && size == 1 && len(sample)-i >= utf8.UTFMax {
			bad++ // (a rune cut by the end of the sample is not counted)
		}
		i += size
	}
	return bad*10 > len(sample)
}

// clean makes extracted text safe and tidy: line ends become LF, invalid
// UTF-8 becomes U+FFFD, escape sequences, control characters (but new
// line and tab) and bidi controls are removed, trailing blanks on each
// line are dropped, and runs of blank lines become one blank line, none
// at either end. It is linear in the length of s.
func clean(s string) string {
	s = strings.TrimPrefix(s, "\ufeff")
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	s = sanitize.Text(s)
	var b strings.Builder
	b.Grow(len(s))
	blank := 0 // new lines owed before the next non-blank line
	for line := range strings.Lines(s) {
		line = strings.TrimRight(line, " \t\n\u00a0")
		if strings.TrimSpace(line) == "" {
			if b.Len() > 0 {
				blank++
			}
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n")
			if blank > 1 {
				b.WriteString("\n")
			}
		}
		blank = 1
		b.WriteString(line)
	}
	return b.String()
}
