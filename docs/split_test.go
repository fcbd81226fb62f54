package docs

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// sentences returns n sentences of varying length, space separated.
func sentences(n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "Sentence %d has %s words.", i, strings.Repeat("many ", i%7))
	}
	return b.String()
}

func TestSplitSizesAndOverlap(t *testing.T) {
	text := sentences(200)
	chunks := Split(Parsed{Sections: []Section{{Heading: "H", Text: text}}}, ChunkOptions{Tokens: 50, Overlap: 10})
	if len(chunks) < len(text)/200 {
		t.Fatalf("%d chunks for %d bytes at 200 bytes a chunk", len(chunks), len(text))
	}
	for i, c := range chunks {
		if c.Number != i || c.Heading != "H" {
			t.Errorf("chunk %d: number %d heading %q", i, c.Number, c.Heading)
		}
		if len(c.Text) > 200 || (i < len(chunks)-1 && len(c.Text) < 100) {
			t.Errorf("chunk %d is %d bytes, want 100-200 (50 tokens of 4 bytes)", i, len(c.Text))
		}
		if i < len(chunks)-1 && !strings.HasSuffix(c.Text, ".") {
			t.Errorf("chunk %d does not end at a sentence: %q", i, c.Text)
		}
		if !strings.Contains(text, c.Text) {
			t.Errorf("chunk %d is not a run of the text: %q", i, c.Text)
		}
		if i == 0 {
			continue
		}
		// The chunk starts with about 10 tokens (40 bytes) of the one before,
		// cut between words.
		prev := chunks[i-1].Text
		k := strings.Index(text, prev) + len(prev)
		start := strings.Index(text[k-60:], c.Text) + k - 60
		overlap := k - start
		if overlap < 30 || overlap > 40 || text[start-1] != ' ' {
			t.Errorf("chunk %d overlaps the one before by %d bytes (want 30-40, from a word start): %q", i, overlap, c.Text[:overlap])
		}
	}
}

func TestSplitPrefersParagraphs(t *testing.T) {
	para := strings.TrimSpace(strings.Repeat("word ", 30)) + "." // 150 bytes
	text := para + "\n\n" + para + " Another sentence here.\n\n" + para
	chunks := Split(Parsed{Sections: []Section{{Text: text}}}, ChunkOptions{Tokens: 100, Overlap: 5})
	if len(chunks) < 2 || chunks[0].Text != para+"\n\n"+para+" Another sentence here." {
		t.Errorf("first chunk = %q, want the first two paragraphs (a cut at the blank line)", chunks[0].Text)
	}
}

func TestSplitCarriesHeadingsAndPages(t *testing.T) {
	long := strings.TrimSpace(strings.Repeat("alpha beta gamma. ", 300)) // 5,399 bytes
	p := Parsed{Sections: []Section{
		{Heading: "Install", Page: 0, Text: "short"},
		{Heading: "Install › Linux", Text: ""},
		{Heading: "Install › Mac", Page: 3, Text: long},
		{Page: 4, Text: "last page"},
	}}
	chunks := Split(p, ChunkOptions{})
	if len(chunks) != 5 {
		t.Fatalf("%d chunks, want 1 + 0 (empty section) + 3 + 1", len(chunks))
	}
	for i, c := range chunks {
		if c.Number != i {
			t.Errorf("chunk %d numbered %d", i, c.Number)
		}
	}
	if chunks[0].Text != "short" || chunks[0].Heading != "Install" {
		t.Errorf("first chunk %+v", chunks[0])
	}
	for _, c := range chunks[1:4] {
		if c.Heading != "Install › Mac" || c.Page != 3 || strings.Contains(c.Text, "last page") || len(c.Text) > 2048 {
			t.Errorf("chunk %d of the long section: heading %q page %d, %d bytes", c.Number, c.Heading, c.Page, len(c.Text))
		}
	}
	if chunks[4].Text != "last page" || chunks[4].Page != 4 || chunks[4].Heading != "" {
		t.Errorf("last chunk %+v", chunks[4])
	}
}

func TestSplitLongSingleLine(t *testing.T) {
	// 5 MB on one line: "abc abc …". With the defaults (2,048 bytes, 200
	// bytes of overlap) each chunk is 2,047 bytes (512 words) and the next
	// starts 1,848 bytes on (a 199-byte overlap).
	text := strings.TrimSpace(strings.Repeat("abc ", 5<<20/4))
	chunks := Split(Parsed{Sections: []Section{{Text: text}}}, ChunkOptions{})
	want := (len(text)-2048+1847)/1848 + 1
	if len(chunks) != want {
		t.Fatalf("%d chunks, want %d", len(chunks), want)
	}
	for i, c := range chunks[:len(chunks)-1] {
		if len(c.Text) != 2047 || c.Text[:4] != "abc " {
			t.Fatalf("chunk %d: %d bytes starting %q", i, len(c.Text), c.Text[:4])
		}
	}
	// Without spaces, a run is cut at rune boundaries.
	runes := strings.Repeat("é", 1<<20) // 2 MB
	chunks = Split(Parsed{Sections: []Section{{Text: runes}}}, ChunkOptions{Tokens: 100, Overlap: 10})
	total := 0
	for i, c := range chunks {
		if !utf8.ValidString(c.Text) || len(c.Text) > 400 {
			t.Fatalf("chunk %d: %d bytes, valid UTF-8 %v", i, len(c.Text), utf8.ValidString(c.Text))
		}
		total += len(c.Text)
	}
	if step := 400 - 40; len(chunks) != (len(runes)-400+step-1)/step+1 || total < len(runes) {
		t.Errorf("%d chunks holding %d bytes for %d bytes of text", len(chunks), total, len(runes))
	}
}

func TestSplitOptions(t *testing.T) {
	text := strings.TrimSpace(strings.Repeat("word ", 1000)) // 4,999 bytes
	if n := len(Split(Parsed{Sections: []Section{{Text: text}}}, ChunkOptions{})); n != 3 {
		t.Errorf("defaults (512 tokens): %d chunks, want 3", n)
	}
	// An overlap as large as the chunk would never finish; it is cut to a
	// quarter of the chunk.
	chunks := Split(Parsed{Sections: []Section{{Text: text}}}, ChunkOptions{Tokens: 100, Overlap: 100})
	if len(chunks) < 13 || len(chunks) > 18 {
		t.Errorf("overlap = size: %d chunks, want about 5000/(400-100)", len(chunks))
	}
}
