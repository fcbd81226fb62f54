package docs

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/ledongthuc/pdf"
)

// The PDF reader is github.com/ledongthuc/pdf: pure Go with no
// dependencies, a maintained fork of rsc.io/pdf (not updated in years)
// with fixes for malformed files, and far smaller than pdfcpu for reading
// text. Its own text walk loses word and line breaks,
// so pageText interprets the content streams itself.

// PDF reading limits, against hostile files: how many page tree nodes are
// visited and how deep the tree may be.
const (
	maxPDFNodes = 100_000
	maxPDFDepth = 64
)

// parsePDF returns the text layer of a PDF, one section per page. A PDF
// that needs a password fails with ErrEncrypted (one encrypted with only
// an owner password, which anyone may open, is read); a broken one, or one
// the reader panics on, with ErrMalformed.
func parsePDF(data []byte) (p Parsed, err error) {
	defer func() {
		if r := recover(); r != nil {
			p, err = Parsed{}, fmt.Errorf("%w PDF: %v", ErrMalformed, r)
		}
	}()
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		if errors.Is(err, pdf.ErrInvalidPassword) || strings.Contains(err.Error(), "encrypt") {
			return Parsed{}, fmt.Errorf("%w PDF", ErrEncrypted)
		}
		msg := strings.TrimPrefix(err.Error(), "malformed PDF: ")
		if strings.HasPrefix(msg, "not a PDF file") {
			msg = "not a PDF file"
		}
		return Parsed{}, fmt.Errorf("%w PDF: %s", ErrMalformed, msg)
	}
	p.Title = r.Trailer().Key("Info").Key("Title").Text()
	pages := pdfPages(r.Trailer().Key("Root").Key("Pages"))
	if len(pages) == 0 {
		return Parsed{}, fmt.Errorf("%w PDF: no pages", ErrMalformed)
	}
	failed := 0
	for i, page := range pages {
		text, ok := pageText(page)
		if !ok {
			failed++
		}
		p.Sections = append(p.Sections, Section{Page: i + 1, Text: text})
	}
	if failed == len(pages) {
		return Parsed{}, fmt.Errorf("%w PDF: no page could be read", ErrMalformed)
	}
	return p, nil
}

// pdfPages walks a page tree in order, visiting at most maxPDFNodes nodes
// at most maxPDFDepth deep (so that a tree whose kids loop back ends).
func pdfPages(root pdf.Value) []pdf.Page {
	var pages []pdf.Page
	visited := 0
	var walk func(node pdf.Value, depth int)
	walk = func(node pdf.Value, depth int) {
		if visited >= maxPDFNodes || depth > maxPDFDepth {
			return
		}
		visited++
		kids := node.Key("Kids")
		if node.Key("Type").Name() == "Page" || kids.Kind() != pdf.Array {
			if node.Kind() == pdf.Dict {
				pages = append(pages, pdf.Page{V: node})
			}
			return
		}
		for i := 0; i < kids.Len(); i++ {
			walk(kids.Index(i), depth+1)
		}
	}
	walk(root, 0)
	return pages
}

// pageText returns the text a page shows, in content stream order: a new
// line where the text moves down or up, a space where it moves along the
// line or a TJ array leaves a word-sized gap. ok is false when the page's
// content could not be read.
func pageText(page pdf.Page) (text string, ok bool) {
	defer func() {
		if r := recover(); r != nil {
			text, ok = "", false
		}
	}()
	contents := page.V.Key("Contents")
	if contents.IsNull() {
		return "", true
	}
	fonts := map[string]pdf.TextEncoding{}
	for _, name := range page.Fonts() {
		f := page.Font(name)
		fonts[name] = f.Encoder()
	}
	var b strings.Builder
	var enc pdf.TextEncoding
	var y, shownY float64
	shown := false
	newline, space := false, false
	show := func(raw string) {
		s := raw
		if enc != nil {
			s = enc.Decode(raw)
		}
		if s == "" {
			return
		}
		if shown && math.Abs(y-shownY) > 0.01 {
			newline = true
		}
		if b.Len() > 0 {
			last := b.String()[b.Len()-1]
			switch {
			case newline && last != '\n':
				b.WriteByte('\n')
			case space && last != ' ' && last != '\n' && s[0] != ' ':
				b.WriteByte(' ')
			}
		}
		newline, space = false, false
		b.WriteString(s)
		shown, shownY = true, y
	}
	pdf.Interpret(contents, func(stk *pdf.Stack, op string) {
		n := stk.Len()
		args := make([]pdf.Value, n)
		for i := n - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		switch op {
		case "BT":
			y = 0
			space = true
		case "Tf":
			if n == 2 {
				enc = fonts[args[0].Name()]
			}
		case "Td", "TD":
			if n == 2 {
				if ty := args[1].Float64(); ty != 0 {
					y += ty
					newline = true
				}
				space = true
			}
		case "Tm":
			if n == 6 {
				y = args[5].Float64()
				space = true
			}
		case "T*":
			newline = true
		case "'", "\"":
			newline = true
			if n > 0 {
				show(args[n-1].RawString())
			}
		case "Tj":
			if n == 1 {
				show(args[0].RawString())
			}
		case "TJ":
			if n != 1 {
				return
			}
			for i := 0; i < args[0].Len(); i++ {
				x := args[0].Index(i)
				switch x.Kind() {
				case pdf.String:
					show(x.RawString())
				case pdf.Integer, pdf.Real:
					if x.Float64() < -200 { // thousandths of an em: a word gap
						space = true
					}
				}
			}
		}
	})
	return b.String(), true
}
