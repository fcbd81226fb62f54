package docs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
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
// visited and how deep the tree may be, and how many content streams one
// page may join (each an open decompressor of some 40 KB). The budget of a
// whole file, its pages' content and fonts' ToUnicode maps unpacked and
// the text they give, is the floor or that many times the file's size: a
// few kilobytes of Flate unpack to megabytes, and pages may all name one
// such stream.
const (
	maxPDFNodes    = 100_000
	maxPDFDepth    = 64
	maxPDFContents = 1000
	minPDFUnpacked = 32 << 20
	pdfUnpackedPer = 32
	minPDFText     = 16 << 20
	pdfTextPer     = 8
)

// pdfBudget is what one PDF may still unpack and give as text, and its
// limits, for the error.
type pdfBudget struct {
	unpacked, text       int
	maxUnpacked, maxText int
}

func newPDFBudget(size int) *pdfBudget {
	b := &pdfBudget{
		maxUnpacked: max(minPDFUnpacked, pdfUnpackedPer*size),
		maxText:     max(minPDFText, pdfTextPer*size),
	}
	b.unpacked, b.text = b.maxUnpacked, b.maxText
	return b
}

// unpack reads the streams (lazily made, as each is a decompressor) to
// their end, charging the bytes they unpack to, and fails with
// ErrOversized once they pass the budget. A stream that cannot be read is
// not the budget's concern: the caller's reading of it fails.
func (b *pdfBudget) unpack(n int, stream func(i int) pdf.Value) error {
	for i := 0; i < n; i++ {
		read, _ := io.Copy(io.Discard, io.LimitReader(stream(i).Reader(), int64(b.unpacked)+1))
		b.unpacked -= int(read)
		if b.unpacked < 0 {
			return fmt.Errorf("PDF %w: over %d MB of page content", ErrOversized, b.maxUnpacked>>20)
		}
	}
	return nil
}

// pdfTextFull is panicked out of pdf.Interpret's callback when a page's
// text passes the budget, and recovered in pageText.
type pdfTextFull struct{}

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
	budget := newPDFBudget(len(data))
	encoders := map[string]pdf.TextEncoding{}
	read := map[string]bool{}
	failed := 0
	for i, page := range pages {
		// A page object the tree names again is read once (its String
		// keeps references unresolved, so only the same object, or a
		// copy of it, matches): a hostile tree names one thousands of
		// times.
		key := page.V.String()
		if read[key] {
			continue
		}
		read[key] = true
		text, ok, err := pageText(page, budget, encoders)
		if err != nil {
			return Parsed{}, err
		}
		if !ok {
			failed++
		}
		p.Sections = append(p.Sections, Section{Page: i + 1, Text: text})
	}
	if failed == len(p.Sections) {
		return Parsed{}, fmt.Errorf("%w PDF: no page could be read", ErrMalformed)
	}
	return p, nil
}

// pdfPages walks a page tree in order, visiting at most maxPDFNodes nodes
// at most maxPDFDepth deep, and each node of pages once (a node is told by
// its String, which keeps its references unresolved): a tree whose kids
// loop back to it ended only at the bounds, re-reading the loop each time
// (a 550-byte PDF took 49 s).
func pdfPages(root pdf.Value) []pdf.Page {
	var pages []pdf.Page
	visited := 0
	seen := map[string]bool{}
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
		if key := node.String(); seen[key] {
			return
		} else {
			seen[key] = true
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
// content could not be read; err wraps ErrOversized when it passes the
// budget. encoders holds the fonts' encoders already made, by font dict.
func pageText(page pdf.Page, budget *pdfBudget, encoders map[string]pdf.TextEncoding) (text string, ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			text, ok = "", false
			if _, over := r.(pdfTextFull); over {
				err = fmt.Errorf("PDF %w: over %d MB of text", ErrOversized, budget.maxText>>20)
			}
		}
	}()
	contents := page.V.Key("Contents")
	if contents.IsNull() {
		return "", true, nil
	}
	fonts := map[string]pdf.TextEncoding{}
	for _, name := range page.Fonts() {
		f := page.Font(name)
		key := f.V.String()
		if enc, ok := encoders[key]; ok {
			fonts[name] = enc
			continue
		}
		if tu := f.V.Key("ToUnicode"); tu.Kind() == pdf.Stream {
			if err := budget.unpack(1, func(int) pdf.Value { return tu }); err != nil {
				return "", false, err
			}
		}
		fonts[name] = f.Encoder()
		encoders[key] = fonts[name]
	}
	n, stream := 1, func(int) pdf.Value { return contents }
	if contents.Kind() == pdf.Array {
		n, stream = contents.Len(), contents.Index
	}
	if n > maxPDFContents {
		return "", false, fmt.Errorf("PDF %w: a page of over %d content streams", ErrOversized, maxPDFContents)
	}
	if err := budget.unpack(n, stream); err != nil {
		return "", false, err
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
		if b.Len()+len(s) > budget.text {
			panic(pdfTextFull{})
		}
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
	budget.text -= b.Len()
	return b.String(), true, nil
}
