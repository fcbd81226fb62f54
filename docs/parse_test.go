package docs

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestParseMarkdownSectionsAndFences(t *testing.T) {
	src := "Intro line.\n\n# Guide\n\nWelcome.\n\n## Install\n\n### Linux\n\n```sh\n# not a heading\nmake\n```\n\nDone.\n\n## Use ##\n\nRun it.\n"
	p, err := Parse("guide.md", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "Guide" || p.Type != Markdown {
		t.Errorf("title %q type %q, want Guide, markdown", p.Title, p.Type)
	}
	want := []Section{
		{Text: "Intro line."},
		{Heading: "Guide", Text: "Welcome."},
		{Heading: "Guide › Install"},
		{Heading: "Guide › Install › Linux", Text: "```sh\n# not a heading\nmake\n```\n\nDone."},
		{Heading: "Guide › Use", Text: "Run it."},
	}
	if fmt.Sprintf("%#v", p.Sections) != fmt.Sprintf("%#v", want) {
		t.Errorf("sections =\n%#v\nwant\n%#v", p.Sections, want)
	}
	chunks := Split(p, ChunkOptions{})
	if len(chunks) != 4 || chunks[2].Heading != "Guide › Install › Linux" || !strings.Contains(chunks[2].Text, "# not a heading") {
		t.Errorf("chunks = %#v, want four, the code block under its heading path", chunks)
	}
}

func TestParseMarkdownTitle(t *testing.T) {
	for _, c := range []struct{ name, src, want string }{
		{"a.md", "---\ntitle: \"From Front Matter\"\ndate: 2024\n---\n## Only h2\n\ntext\n", "From Front Matter"},
		{"b.md", "---\ntitle: Front\n---\n# The H1\n\ntext\n", "The H1"},
		{"notes/c.markdown", "## no h1\n\ntext\n", "c"},
	} {
		p, err := Parse(c.name, []byte(c.src))
		if err != nil {
			t.Fatal(err)
		}
		if p.Title != c.want {
			t.Errorf("%s: title %q, want %q", c.name, p.Title, c.want)
		}
		if strings.Contains(fmt.Sprint(p.Sections), "date: 2024") || strings.Contains(fmt.Sprint(p.Sections), "title:") {
			t.Errorf("%s: front matter kept as text: %#v", c.name, p.Sections)
		}
	}
}

func TestParseTextCleansHostileBytes(t *testing.T) {
	src := "line one\r\n\x1b[31mred\x1b[0m and \x1b]0;title\x07 ok\r\n\r\n\r\n\r\n" +
		"bidi \u202eevil\u202c \u2066iso\u2069 bell\x07 bad\xff byte\n\n\n"
	p, err := Parse("log.txt", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := "line one\nred and  ok\n\nbidi evil iso bell bad\ufffd byte"
	if len(p.Sections) != 1 || p.Sections[0].Text != want || p.Title != "log" {
		t.Errorf("got %+v, want one section %q titled log", p, want)
	}
}

func TestParseTextDetectsBinaryAndUTF16(t *testing.T) {
	if _, err := Parse("README", []byte("plain words\n")); err != nil {
		t.Errorf("extension-less text: %v", err)
	}
	for name, data := range map[string][]byte{
		"program":  []byte("\x7fELF\x02\x01\x01\x00\x00\x00"),
		"data.txt": []byte("abc\x00def"),
		"noise.md": []byte(strings.Repeat("\x80\x81\x01\x02 text", 100)),
	} {
		_, err := Parse(name, data)
		if !errors.Is(err, ErrBinary) || err.Error() != "binary file" {
			t.Errorf("%s: err = %v, want binary file", name, err)
		}
	}
	utf16 := []byte{0xff, 0xfe, 'h', 0, 'i', 0, ' ', 0, 0xe9, 0}
	p, err := Parse("win.txt", utf16)
	if err != nil || p.Sections[0].Text != "hi é" {
		t.Errorf("UTF-16 file: %+v, %v; want \"hi é\"", p, err)
	}
}

// TestParseSourceCodeAsText: source code and configuration files are read
// as plain text, each line as written.
func TestParseSourceCodeAsText(t *testing.T) {
	for name, src := range map[string]string{
		"fib.go":      "package fib\n\n// Fib returns the nth Fibonacci number.\nfunc Fib(n int) int { return n }\n",
		"deploy.yaml": "replicas: 3\nimage: zanzibar:1.2\n",
		"tool.PY":     "def main():\n    print('hi')\n",
	} {
		p, err := Parse(name, []byte(src))
		if err != nil || p.Type != Text || len(p.Sections) == 0 {
			t.Fatalf("%s: %+v, %v", name, p, err)
		}
		var all []string
		for _, s := range p.Sections {
			all = append(all, s.Text)
		}
		if got := strings.Join(all, "\n"); !strings.Contains(got, strings.Split(src, "\n")[0]) {
			t.Errorf("%s read as %q", name, got)
		}
	}
}

// TestParseMarkdownOfHeadingsAlone: a file that is only a heading (a README
// of one title line) is read, its words the text, not dropped as empty.
func TestParseMarkdownOfHeadingsAlone(t *testing.T) {
	p, err := Parse("README.md", []byte("# Project readme about the marmalade service\n"))
	if err != nil || len(p.Sections) != 1 || !strings.Contains(p.Sections[0].Text, "marmalade") {
		t.Fatalf("%+v, %v", p, err)
	}
}

// TestParseMarkdownSetextHeadings: "Title\n=====" and "Part\n-----" are
// headings (the title and a section), and "---" under a list item is a rule.
func TestParseMarkdownSetextHeadings(t *testing.T) {
	src := "Project readme\n==============\n\nIntro words.\n\nInstall\n-------\n\nRun make.\n\n- an item\n---\nafter the rule\n"
	p, err := Parse("c.md", []byte(src))
	if err != nil || p.Title != "Project readme" {
		t.Fatalf("%+v, %v", p, err)
	}
	var heads []string
	for _, s := range p.Sections {
		heads = append(heads, s.Heading)
		if strings.Contains(s.Text, "======") || strings.Contains(s.Text, "Install\n") {
			t.Errorf("an underline or its heading stayed in the text: %q", s.Text)
		}
	}
	if want := "Project readme|Project readme › Install"; strings.Join(heads, "|") != want {
		t.Fatalf("headings %q, want %q", heads, want)
	}
	if last := p.Sections[len(p.Sections)-1].Text; !strings.Contains(last, "- an item") || !strings.Contains(last, "after the rule") {
		t.Fatalf("the list and the rule: %q", last)
	}
}

func TestParseErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		data string
		err  error
		msg  string
	}{
		{"photo.png", "\x89PNG", ErrUnsupported, "unsupported type .png"},
		{"setup.EXE", "MZ", ErrUnsupported, "unsupported type .exe"},
		{".env", "API_KEY=secret", ErrUnsupported, "unsupported type .env: it holds secrets (API keys, passwords), so it is never added"},
		{"blank.md", "\n  \n\t\n", ErrEmpty, "no text found"},
		{"blank.html", "<html><script>x()</script></html>", ErrEmpty, "no text found"},
		{"doc.docx", "not a zip", ErrMalformed, "malformed DOCX: not a zip file"},
	} {
		_, err := Parse(c.name, []byte(c.data))
		if !errors.Is(err, c.err) || err.Error() != c.msg {
			t.Errorf("%s: err = %v, want %q", c.name, err, c.msg)
		}
	}
}

func TestParseHTML(t *testing.T) {
	src := `<!doctype html><html><head><title>My &amp; Page</title>
<style>body{color:red}</style><script>secret()</script></head>
<body><nav>Home | About | navmenu</nav><noscript>enable js</noscript><template><p>tmpl</p></template>
<p>Intro   text,
 across lines &lt;ok&gt;.</p>
<h1>Main</h1><div>first<br>second</div><svg><text>drawn</text></svg>
<h2>Sub <em>part</em></h2><ul><li>one</li><li>two</li></ul>
<pre>  keep
    spacing</pre><p hidden>invisible</p><script>more()</script>
<table><tr><td>a</td><td>b</td></tr></table><aside>related links</aside><footer>Copyright footerline</footer></body></html>`
	p, err := Parse("page.HTM", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if p.Title != "My & Page" || p.Type != HTML {
		t.Errorf("title %q type %q", p.Title, p.Type)
	}
	want := []Section{
		{Text: "Intro text, across lines <ok>."},
		{Heading: "Main", Text: "first\nsecond"},
		{Heading: "Main › Sub part", Text: "one\ntwo\n\n  keep\n    spacing\n\na b"},
	}
	if fmt.Sprintf("%#v", p.Sections) != fmt.Sprintf("%#v", want) {
		t.Errorf("sections =\n%#v\nwant\n%#v", p.Sections, want)
	}
	all := fmt.Sprint(p)
	for _, hidden := range []string{"secret", "more()", "color", "enable js", "tmpl", "drawn", "invisible", "navmenu", "related links", "footerline"} {
		if strings.Contains(all, hidden) {
			t.Errorf("%q leaked into the text: %s", hidden, all)
		}
	}
}

func TestParseHTMLTitleFallbacks(t *testing.T) {
	p, err := Parse("x.html", []byte("<h1>Heading Title</h1><p>body</p>"))
	if err != nil || p.Title != "Heading Title" {
		t.Errorf("title %q, %v; want the first h1", p.Title, err)
	}
	p, err = Parse("dir/plain.html", []byte("<p>body only</p>"))
	if err != nil || p.Title != "plain" {
		t.Errorf("title %q, %v; want the file name", p.Title, err)
	}
}

func TestParseCSV(t *testing.T) {
	var b strings.Builder
	b.WriteString("name,age,city\r\n")
	for i := 1; i <= 120; i++ {
		fmt.Fprintf(&b, "person %d,%d,\"Town, %d\"\r\n", i, 20+i%50, i)
	}
	b.WriteString("last,,,extra\n")
	p, err := Parse("people.csv", []byte(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Sections) != 3 || p.Sections[0].Heading != "rows 1–50" || p.Sections[2].Heading != "rows 101–121" {
		t.Fatalf("sections: %d, headings %q %q", len(p.Sections), p.Sections[0].Heading, p.Sections[len(p.Sections)-1].Heading)
	}
	lines := strings.Split(p.Sections[0].Text, "\n")
	if len(lines) != 50 || lines[0] != "name: person 1; age: 21; city: Town, 1" {
		t.Errorf("first section: %d lines, first %q", len(lines), lines[0])
	}
	if !strings.HasSuffix(p.Sections[2].Text, "\nname: last; column 4: extra") {
		t.Errorf("last row: %q", p.Sections[2].Text)
	}
	tsv, err := Parse("t.tsv", []byte("k\tv\na\tb\n"))
	if err != nil || tsv.Sections[0].Text != "k: a; v: b" {
		t.Errorf("tsv: %+v %v", tsv, err)
	}
}

func TestParseTextInAnOldCodePage(t *testing.T) {
	p, err := Parse("menu.txt", []byte("Today at the corner cafe: Caf\xe9 cr\xe8me with a croissant, for 5 \x80 only."))
	if err != nil || p.Sections[0].Text != "Today at the corner cafe: Café crème with a croissant, for 5 € only." {
		t.Fatalf("Windows-1252 text: %+v, %v", p, err)
	}
	// Bytes with no NUL and no UTF-8 sequence are not text for all that.
	blob := make([]byte, 300)
	for i := range blob {
		blob[i] = byte(0x80 + (i*37)%128) // high bytes only, never a UTF-8 sequence's start and end
		if i%5 == 0 {
			blob[i] = byte(1 + i%30)
		}
	}
	if _, err := Parse("blob.txt", blob); !errors.Is(err, ErrBinary) {
		t.Fatalf("300 bytes of binary: %v", err)
	}
	// Short, with many accented letters: still text, not "binary".
	p, err = Parse("latin1.txt", []byte("caf\xe9 cr\xe8me br\xfbl\xe9e recipe\n"))
	if err != nil || p.Sections[0].Text != "café crème brûlée recipe" {
		t.Fatalf("short Latin-1 text: %+v, %v", p, err)
	}
	p, err = Parse("mixed.txt", []byte("na\xc3\xafve and a stray \xff byte"))
	if err != nil || !strings.HasPrefix(p.Sections[0].Text, "naïve and a stray ") {
		t.Fatalf("UTF-8 with a stray byte stays UTF-8: %+v, %v", p, err)
	}
}
