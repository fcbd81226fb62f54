package docs

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/mneme-dev/mneme/internal/testpdf"
)

func TestParsePDFPages(t *testing.T) {
	data := testpdf.Write([]string{
		"BT /F1 12 Tf 72 720 Td (Hello from page one.) Tj 0 -14 Td (A second line) Tj ET",
		"BT /F1 12 Tf 72 720 Td [(Page) -300 (two) -20 (s) ( text)] TJ ET",
	}, "<< /Title (Quarterly Report) >>", "")
	p, err := Parse("report.pdf", data)
	if err != nil {
		t.Fatal(err)
	}
	if p.Type != PDF || p.Title != "Quarterly Report" {
		t.Errorf("type %q title %q, want pdf and the Info title", p.Type, p.Title)
	}
	want := []Section{
		{Page: 1, Text: "Hello from page one.\nA second line"},
		{Page: 2, Text: "Page twos text"},
	}
	if fmt.Sprint(p.Sections) != fmt.Sprint(want) {
		t.Errorf("sections = %+v\nwant %+v", p.Sections, want)
	}
	chunks := Split(p, ChunkOptions{})
	if len(chunks) != 2 || chunks[1].Page != 2 || chunks[1].Text != "Page twos text" {
		t.Errorf("chunks = %+v, want one per page carrying its page", chunks)
	}
}

func TestParsePDFTitleFallsBackToFileName(t *testing.T) {
	p, err := Parse("dir/Field Notes.PDF", testpdf.Write([]string{"BT /F1 12 Tf 72 720 Td (x y z) Tj ET"}, "", ""))
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "Field Notes" {
		t.Errorf("title = %q, want the file name without extension", p.Title)
	}
}

func TestParsePDFWithoutTextIsEmpty(t *testing.T) {
	// A scanned page: it draws, but shows no text.
	data := testpdf.Write([]string{"0 0 612 792 re f"}, "", "")
	_, err := Parse("scan.pdf", data)
	if !errors.Is(err, ErrEmpty) || err.Error() != "no text found (a scanned PDF?)" {
		t.Errorf("err = %v, want ErrEmpty", err)
	}
}

func TestParsePDFEncrypted(t *testing.T) {
	// A standard security handler whose user password is not empty: the
	// O and U entries do not match the empty password.
	enc := fmt.Sprintf(" /ID [(%s) (%s)] /Encrypt << /Filter /Standard /V 1 /R 2 /Length 40 /O (%s) /U (%s) /P -4 >>",
		strings.Repeat("I", 16), strings.Repeat("I", 16), strings.Repeat("O", 32), strings.Repeat("U", 32))
	data := testpdf.Write([]string{"BT /F1 12 Tf 72 720 Td (secret) Tj ET"}, "", enc)
	_, err := Parse("locked.pdf", data)
	if !errors.Is(err, ErrEncrypted) || err.Error() != "encrypted PDF" {
		t.Errorf("err = %v, want ErrEncrypted reading \"encrypted PDF\"", err)
	}
}

func TestParsePDFMalformed(t *testing.T) {
	good := testpdf.Write([]string{"BT /F1 12 Tf 72 720 Td (fine) Tj ET"}, "", "")
	for _, c := range []struct {
		name, want string
		data       []byte
	}{
		{"not a PDF", "malformed PDF: not a PDF file", []byte("%PDF-1.4\nhello")},
		{"truncated", "malformed PDF: not a PDF file", good[:len(good)/2]},
		{"no xref", "malformed PDF: cross-reference table not found: xxxx", bytes.Replace(good, []byte("xref"), []byte("xxxx"), 1)},
		// The reader panics on a bad hex string; the panic is recovered.
		{"bad content", "malformed PDF: no page could be read", testpdf.Write([]string{"BT /F1 12 Tf <zz> Tj ET"}, "", "")},
		{"kids loop", "malformed PDF: no pages", bytes.Replace(good, []byte("/Kids [4 0 R]"), []byte("/Kids [2 0 R]"), 1)},
	} {
		_, err := Parse("broken.pdf", c.data)
		if !errors.Is(err, ErrMalformed) || err.Error() != c.want {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.want)
		}
	}
}
