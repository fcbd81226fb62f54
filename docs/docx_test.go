package docs

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"
)

const wordNS = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`

// para is a w:p with an optional paragraph style and runs of inner XML.
func para(style string, runs ...string) string {
	props := ""
	if style != "" {
		props = `<w:pPr><w:pStyle w:val="` + style + `"/></w:pPr>`
	}
	return "<w:p>" + props + "<w:r>" + strings.Join(runs, "") + "</w:r></w:p>"
}

// writeDOCX zips parts (name -> content) into a .docx.
func writeDOCX(t *testing.T, parts map[string]string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, name := range []string{"[Content_Types].xml", "word/document.xml", "word/styles.xml", "docProps/core.xml"} {
		content, ok := parts[name]
		if !ok {
			continue
		}
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(content))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func document(paras ...string) string {
	return `<?xml version="1.0" encoding="UTF-8"?><w:document ` + wordNS + `><w:body>` + strings.Join(paras, "") + `</w:body></w:document>`
}

func TestParseDOCX(t *testing.T) {
	doc := document(
		para("Title", "<w:t>Annual Plan</w:t>"),
		para("", "<w:t>Opening </w:t><w:t>words.</w:t>"),
		para("Heading1", "<w:t>Goals</w:t>"),
		para("", "<w:t>A</w:t><w:tab/><w:t>B</w:t><w:br/><w:t>next line</w:t>"),
		para("Berschrift2", "<w:t>Details</w:t>"),
		para("", "<w:t>Fine &amp; print</w:t><w:delText>deleted</w:delText>"),
		para("Heading1", "<w:t>Budget</w:t>"),
		para("", "<w:t>Numbers.</w:t>"),
	)
	styles := `<w:styles ` + wordNS + `><w:style w:type="paragraph" w:styleId="Berschrift2"><w:name w:val="heading 2"/></w:style></w:styles>`
	p, err := Parse("plan.docx", writeDOCX(t, map[string]string{"word/document.xml": doc, "word/styles.xml": styles}))
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "Annual Plan" || p.Type != DOCX {
		t.Errorf("title %q type %q, want the Title paragraph, docx", p.Title, p.Type)
	}
	want := []Section{
		{Heading: "Annual Plan", Text: "Opening words."},
		{Heading: "Annual Plan › Goals", Text: "A\tB\nnext line"},
		{Heading: "Annual Plan › Goals › Details", Text: "Fine & print"},
		{Heading: "Annual Plan › Budget", Text: "Numbers."},
	}
	if fmt.Sprintf("%#v", p.Sections) != fmt.Sprintf("%#v", want) {
		t.Errorf("sections =\n%#v\nwant\n%#v", p.Sections, want)
	}
}

func TestParseDOCXCoreTitle(t *testing.T) {
	core := `<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>From Properties</dc:title></cp:coreProperties>`
	data := writeDOCX(t, map[string]string{
		"word/document.xml": document(para("Title", "<w:t>In Body</w:t>"), para("", "<w:t>text</w:t>")),
		"docProps/core.xml": core,
	})
	p, err := Parse("x.docx", data)
	if err != nil || p.Title != "From Properties" {
		t.Errorf("title %q, %v; want docProps' dc:title", p.Title, err)
	}
	p, err = Parse("letter.docx", writeDOCX(t, map[string]string{"word/document.xml": document(para("Heading1", "<w:t>Tenancy letter</w:t>"), para("", "<w:t>text</w:t>"))}))
	if err != nil || p.Title != "Tenancy letter" {
		t.Errorf("title %q, %v; want the first Heading 1", p.Title, err)
	}
	p, err = Parse("dir/Minutes.docx", writeDOCX(t, map[string]string{"word/document.xml": document(para("", "<w:t>text</w:t>"))}))
	if err != nil || p.Title != "Minutes" {
		t.Errorf("title %q, %v; want the file name", p.Title, err)
	}
}

func TestParseDOCXBroken(t *testing.T) {
	bomb := document(para("", "<w:t>"+strings.Repeat("a", 40<<20)+"</w:t>"))
	for _, c := range []struct {
		name string
		data []byte
		err  error
		msg  string
	}{
		{"no document", writeDOCX(t, map[string]string{"[Content_Types].xml": "<Types/>"}), ErrMalformed, "malformed DOCX: no word/document.xml"},
		{"bad xml", writeDOCX(t, map[string]string{"word/document.xml": document("<w:p><w:t>x</w:p>")}), ErrMalformed, ""},
		{"zip bomb", writeDOCX(t, map[string]string{"word/document.xml": bomb}), ErrMalformed, "malformed DOCX: word/document.xml unpacks to more than 32 MB"},
		{"encrypted", append(append([]byte{}, cfbMagic...), make([]byte, 512)...), ErrEncrypted, "encrypted DOCX"},
		{"empty", writeDOCX(t, map[string]string{"word/document.xml": document(para("", ""))}), ErrEmpty, "no text found"},
	} {
		_, err := Parse("f.docx", c.data)
		if !errors.Is(err, c.err) || (c.msg != "" && err.Error() != c.msg) {
			t.Errorf("%s: err = %v, want %v %q", c.name, err, c.err, c.msg)
		}
	}
}
