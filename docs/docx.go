package docs

import (
	"archive/zip"
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Unpacking limits for DOCX, against zip bombs: document.xml may unpack
// to docxRatio times the file's size, at least docxFloor and at most
// docxCeiling bytes; the other parts read are small.
const (
	docxRatio   = 8
	docxFloor   = 32 << 20
	docxCeiling = 200 << 20
	docxPartMax = 4 << 20
)

// cfbMagic starts an OLE compound file: what Word writes when it encrypts
// a .docx.
var cfbMagic = []byte{0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1}

// parseDOCX reads the paragraphs of word/document.xml. Paragraphs styled
// Heading 1-6 or Title start sections; the title is docProps/core.xml's
// dc:title, else the Title paragraph, else the first Heading 1.
func parseDOCX(data []byte) (Parsed, error) {
	if bytes.HasPrefix(data, cfbMagic) {
		return Parsed{}, fmt.Errorf("%w DOCX", ErrEncrypted)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return Parsed{}, fmt.Errorf("%w DOCX: not a zip file", ErrMalformed)
	}
	limit := min(max(int64(len(data))*docxRatio, docxFloor), docxCeiling)
	doc, err := readPart(zr, "word/document.xml", limit)
	if err != nil {
		return Parsed{}, err
	}
	if doc == nil {
		return Parsed{}, fmt.Errorf("%w DOCX: no word/document.xml", ErrMalformed)
	}
	levels := map[string]int{} // style id -> heading level; 0 for Title
	if styles, err := readPart(zr, "word/styles.xml", docxPartMax); err == nil && styles != nil {
		levels = styleLevels(styles)
	}
	p, err := docxBody(doc, levels)
	if err != nil {
		return Parsed{}, err
	}
	if core, err := readPart(zr, "docProps/core.xml", docxPartMax); err == nil && core != nil {
		if t := coreTitle(core); t != "" {
			p.Title = t
		}
	}
	return p, nil
}

// readPart reads a zip entry of at most limit bytes unpacked; nil when the
// entry is missing.
func readPart(zr *zip.Reader, name string, limit int64) ([]byte, error) {
	for _, f := range zr.File {
		if f.Name != name {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return nil, fmt.Errorf("%w DOCX: %s: %v", ErrMalformed, name, err)
		}
		defer rc.Close()
		data, err := io.ReadAll(io.LimitReader(rc, limit+1))
		if err != nil {
			return nil, fmt.Errorf("%w DOCX: %s: %v", ErrMalformed, name, err)
		}
		if int64(len(data)) > limit {
			return nil, fmt.Errorf("%w DOCX: %s unpacks to more than %d MB", ErrMalformed, name, limit>>20)
		}
		return data, nil
	}
	return nil, nil
}

// styleLevels maps the ids of word/styles.xml's heading styles to their
// level: "heading 1".."heading 6" (or an outline level 0-5) are 1-6 and
// "Title" is 0. Style ids differ by language ("berschrift1"); names and
// outline levels do not.
func styleLevels(data []byte) map[string]int {
	levels := map[string]int{}
	d := xml.NewDecoder(bytes.NewReader(data))
	var id string
	for {
		tok, err := d.Token()
		if err != nil {
			return levels
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		switch se.Name.Local {
		case "style":
			id = attr(se, "styleId")
		case "name":
			if id == "" {
				continue
			}
			name := strings.ToLower(attr(se, "val"))
			if name == "title" {
				levels[id] = 0
			} else if n, ok := strings.CutPrefix(name, "heading "); ok {
				if l, err := strconv.Atoi(n); err == nil && l >= 1 && l <= 6 {
					levels[id] = l
				}
			}
		case "outlineLvl":
			if l, err := strconv.Atoi(attr(se, "val")); err == nil && l >= 0 && l <= 5 && id != "" {
				if _, ok := levels[id]; !ok {
					levels[id] = l + 1
				}
			}
		}
	}
}

// headingLevel returns the heading level of a paragraph style (0 for
// Title) and whether the style is a heading at all.
func headingLevel(style string, levels map[string]int) (int, bool) {
	if l, ok := levels[style]; ok {
		return l, true
	}
	if style == "Title" {
		return 0, true
	}
	if n, ok := strings.CutPrefix(style, "Heading"); ok {
		if l, err := strconv.Atoi(n); err == nil && l >= 1 && l <= 6 {
			return l, true
		}
	}
	return 0, false
}

// docxBody reads document.xml's paragraphs (w:p) into sections: w:t is
// text, w:tab a tab, w:br and w:cr a new line.
func docxBody(data []byte, levels map[string]int) (Parsed, error) {
	var p Parsed
	var path []string
	var body, para strings.Builder
	heading, style := "", ""
	firstH1 := "" // the title when there is no Title paragraph
	inText := false
	flush := func() {
		p.Sections = append(p.Sections, Section{Heading: heading, Text: body.String()})
		body.Reset()
	}
	endParagraph := func() {
		text := strings.TrimSpace(para.String())
		para.Reset()
		level, isHeading := headingLevel(style, levels)
		style = ""
		if !isHeading || text == "" {
			body.WriteString(text)
			body.WriteString("\n\n")
			return
		}
		flush()
		if (level == 0 || level == 1 && firstH1 == "") && p.Title == "" {
			if level == 0 {
				p.Title = text
			} else {
				firstH1 = text
			}
		}
		// path[0] is the Title paragraph, path[l] the heading of level l.
		for len(path) < level {
			path = append(path, "")
		}
		path = append(path[:level], text)
		heading = joinPath(path)
	}
	d := xml.NewDecoder(bytes.NewReader(data))
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Parsed{}, fmt.Errorf("%w DOCX: %v", ErrMalformed, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !isWord(t.Name) {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = true
			case "tab":
				para.WriteByte('\t')
			case "br", "cr":
				para.WriteByte('\n')
			case "pStyle":
				style = attr(t, "val")
			}
		case xml.EndElement:
			if !isWord(t.Name) {
				continue
			}
			switch t.Name.Local {
			case "t":
				inText = false
			case "p":
				endParagraph()
			}
		case xml.CharData:
			if inText {
				para.Write(t)
			}
		}
	}
	flush()
	if p.Title == "" {
		p.Title = firstH1
	}
	return p, nil
}

// coreTitle returns docProps/core.xml's dc:title.
func coreTitle(data []byte) string {
	var core struct {
		Title string `xml:"http://purl.org/dc/elements/1.1/ title"`
	}
	if xml.Unmarshal(data, &core) != nil {
		return ""
	}
	return strings.TrimSpace(core.Title)
}

// isWord reports whether an element is in a WordprocessingML namespace
// (transitional or strict).
func isWord(n xml.Name) bool {
	return strings.Contains(n.Space, "wordprocessingml")
}

// attr returns the value of the attribute with this local name.
func attr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}
