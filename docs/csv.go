package docs

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// csvRows is how many data rows one CSV section holds.
const csvRows = 50

// parseCSV turns a table into lines "col1: v1; col2: v2" named by its
// header row, csvRows rows a section headed "rows 1–50". Empty cells are
// left out; a cell past the header is named "column N".
func parseCSV(s string, tabs bool) (Parsed, error) {
	r := csv.NewReader(strings.NewReader(s))
	if tabs {
		r.Comma = '\t'
	}
	r.FieldsPerRecord = -1
	r.LazyQuotes = true
	r.ReuseRecord = true
	var p Parsed
	var header []string
	var b strings.Builder
	first, n := 0, 0 // the section's first data row; data rows so far
	flush := func() {
		if b.Len() == 0 {
			return
		}
		p.Sections = append(p.Sections, Section{Heading: fmt.Sprintf("rows %d–%d", first, n), Text: b.String()})
		b.Reset()
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return Parsed{}, fmt.Errorf("%w CSV: %v", ErrMalformed, err)
		}
		if header == nil {
			for _, h := range rec {
				header = append(header, strings.TrimSpace(h))
			}
			continue
		}
		n++
		if b.Len() == 0 {
			first = n
		}
		sep := ""
		for i, v := range rec {
			v = strings.Join(strings.Fields(v), " ")
			if v == "" {
				continue
			}
			name := ""
			if i < len(header) {
				name = header[i]
			}
			if name == "" {
				name = fmt.Sprintf("column %d", i+1)
			}
			b.WriteString(sep)
			b.WriteString(name)
			b.WriteString(": ")
			b.WriteString(v)
			sep = "; "
		}
		b.WriteByte('\n')
		if n%csvRows == 0 {
			flush()
		}
	}
	flush()
	return p, nil
}
