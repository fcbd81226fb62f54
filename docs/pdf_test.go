package docs

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/ledongthuc/pdf"
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

// hostilePDF builds a small PDF whose page objects all show one Flate
// stream that unpacks to content repeated to about size bytes. pages is
// how many page objects there are (each its own, not a copy), with /Contents contents
// ("4 0 R" names the stream); kids lists them, by index, in the page tree.
func hostilePDF(content string, size, pages int, contents string, kids []int) []byte {
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	for n := 0; n < size; n += len(content) {
		w.Write([]byte(content))
	}
	w.Close()
	var b bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	b.WriteString("%PDF-1.4\n")
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	var refs []string
	for _, k := range kids {
		refs = append(refs, fmt.Sprintf("%d 0 R", 5+k))
	}
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(refs, " "), len(kids)))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	obj(fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.String()))
	for i := 0; i < pages; i++ {
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /StructParents %d /Resources << /Font << /F1 3 0 R >> >> /Contents %s >>", i, contents))
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return b.Bytes()
}

func TestParsePDFPageNamedAgainIsReadOnce(t *testing.T) {
	// Two page objects, the first named 500 times: 340 KB of text each
	// time from a file of a few KB.
	kids := []int{0}
	for range 499 {
		kids = append(kids, 0)
	}
	kids = append(kids, 1)
	data := hostilePDF("BT /F1 12 Tf (hello world) Tj ET ", 1<<20, 2, "4 0 R", kids)
	p, err := Parse("evil.pdf", data)
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sections) != 2 || p.Sections[0].Page != 1 || p.Sections[1].Page != 501 {
		t.Fatalf("%d sections, want pages 1 and 501 (the first page once, the second in its place)", len(p.Sections))
	}
	if n := len(p.Sections[0].Text); n > 1<<20 || p.Sections[1].Text != p.Sections[0].Text {
		t.Errorf("page texts of %d and %d bytes, want one page's text each", n, len(p.Sections[1].Text))
	}
}

// pageIndexes is 0, 1, …, n-1: each page object named once.
func pageIndexes(n int) []int {
	kids := make([]int, n)
	for i := range kids {
		kids[i] = i
	}
	return kids
}

func TestParsePDFOversized(t *testing.T) {
	show := "(hello world) Tj "
	thousand := strings.TrimSpace(strings.Repeat("4 0 R ", maxPDFContents+1))
	for _, c := range []struct {
		name, want string
		data       []byte
	}{
		// 40 pages draw one stream that unpacks to 1 MiB of blanks: 40
		// MiB of content from 7 KB, past the 32 MiB floor.
		{"content", "PDF too large to read: over 32 MB of page content",
			hostilePDF(strings.Repeat(" ", 64), 1<<20, 40, "4 0 R", pageIndexes(40))},
		// 30 pages show 1 MiB of "hello world": 19 MB of text, past the
		// 16 MiB floor.
		{"text", "PDF too large to read: over 16 MB of text",
			hostilePDF(show, 1<<20, 30, "4 0 R", pageIndexes(30))},
		{"streams", "PDF too large to read: a page of over 1000 content streams",
			hostilePDF(show, 100, 1, "["+thousand+"]", []int{0})},
	} {
		_, err := Parse("evil.pdf", c.data)
		if !errors.Is(err, ErrOversized) || err.Error() != c.want {
			t.Errorf("%s (%d KB): err = %v, want %q", c.name, len(c.data)>>10, err, c.want)
		}
	}
}

// TestPDFPageTreeThatLoopsIsWalkedOnce: a page tree whose kids name the
// tree again is walked once: its one page is found once (a 550-byte file
// whose root named itself 20 times took 49 s, walking the loop to the
// bound of 100,000 nodes, and 200 times, longer than 15 minutes).
func TestPDFPageTreeThatLoopsIsWalkedOnce(t *testing.T) {
	data := hostilePDF("BT /F1 12 Tf 72 720 Td (Hello loop page) Tj ET ", 40, 1, "4 0 R", []int{0, -3, -3}) // 5-3: the tree itself
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	if pages := pdfPages(r.Trailer().Key("Root").Key("Pages")); len(pages) != 1 {
		t.Fatalf("%d pages found in a tree of one page", len(pages))
	}
	p, err := parsePDF(data)
	if err != nil || len(p.Sections) != 1 || !strings.Contains(p.Sections[0].Text, "Hello loop page") {
		t.Fatalf("parsed %+v, %v", p, err)
	}
}
