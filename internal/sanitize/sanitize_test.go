package sanitize

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestText(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"OSC 52 clipboard write with BEL", "a\x1b]52;c;ZWNobyBwd25lZA==\x07b", "ab"},
		{"OSC 52 clipboard write with ST", "a\x1b]52;c;ZWNobyBwd25lZA==\x1b\\b", "ab"},
		{"window title", "\x1b]0;evil title\x07ok", "ok"},
		{"window title with ST", "\x1b]2;evil\x1b\\ok", "ok"},
		{"hyperlink", "\x1b]8;;http://evil.example\x1b\\link\x1b]8;;\x1b\\", "link"},
		{"cursor up", "x\x1b[2Ay", "xy"},
		{"cursor position", "x\x1b[10;20Hy", "xy"},
		{"clear screen", "\x1b[2J\x1b[Hclean", "clean"},
		{"colour", "\x1b[1;31mred\x1b[0m", "red"},
		{"private mode", "\x1b[?1049hx\x1b[?25l", "x"},
		{"C1 CSI", "a\u009b31mb", "ab"},
		{"C1 OSC with C1 ST", "a\u009d0;title\u009cb", "ab"},
		{"raw 0x9b byte is invalid UTF-8", "a\x9b31mb", "a\uFFFD31mb"},
		{"reset terminal", "a\x1bcb", "ab"},
		{"save cursor", "a\x1b7b\x1b8", "ab"},
		{"charset designation", "a\x1b(0b", "ab"},
		{"DCS", "\x1bPq#0;2;0;0;0\x1b\\x", "x"},
		{"APC", "\x1b_Gf=100;AAAA\x1b\\x", "x"},
		{"unterminated OSC ends at newline", "a\x1b]0;title\nrest", "a\nrest"},
		{"lone ESC at end", "abc\x1b", "abc"},
		{"BEL", "ding\a dong", "ding dong"},
		{"other C0 controls", "a\x00b\x08c\x0bd\x0ce\x1bf", "abcde"},
		{"carriage return", "one\r\ntwo\rthree", "one\ntwothree"},
		{"DEL", "a\x7fb", "ab"},
		{"other C1 controls", "a\u0085b\u008ec", "abc"},
		{"invalid UTF-8", "ok\xff\xfe!", "ok\uFFFD\uFFFD!"},
		{"truncated UTF-8", "x\xe6\x97", "x\uFFFD\uFFFD"},
		{"keeps newlines, tabs, emoji and CJK", "line\n\tindent 🎉👩‍👩‍👧 日本語 é ñ", "line\n\tindent 🎉👩‍👩‍👧 日本語 é ñ"},
		{"keeps markdown", "# Title\n\n- item `code`\n\n```go\nfmt.Println(\"hi\")\n```", "# Title\n\n- item `code`\n\n```go\nfmt.Println(\"hi\")\n```"},
		{"empty", "", ""},
		{"bidi override", "abc\u202egnp.exe\u202c", "abcgnp.exe"},
		{"bidi embeddings", "a\u202ab\u202bc\u202dd", "abcd"},
		{"bidi isolates", "x\u2066y\u2067z\u2068w\u2069", "xyzw"},
		{"keeps right-to-left text and other punctuation", "שלום \u2014 \u2028 \u200f", "שלום \u2014 \u2028 \u200f"},
		{"tag characters: words no one sees", "hi\U000E0041\U000E0042\U000E007F there", "hi there"},
		{"zero-width space, byte order mark, soft hyphen", "zw\u200bsp\ufeffa\u00adb\n\u200bnext", "zwspab\nnext"},
		{"keeps joiners in a word, a flag's tags", "می\u200cخواهم 🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F", "می\u200cخواهم 🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F"},
		{"tags after a black flag spelling words", "summarise 🏴\U000E0049\U000E0047\U000E004E\U000E004F\U000E0052\U000E0045 it", "summarise 🏴 it"},
		{"a flag's tags without their end", "🏴\U000E0067\U000E0062 x", "🏴 x"},
		{"a joiner at a line's end", "a\u200d\nb", "a\nb"},
		{"keeps one variation selector after a character", "❤\ufe0f 1\ufe0f\u20e3 🏳\ufe0f\u200d🌈 葛\U000E0100", "❤\ufe0f 1\ufe0f\u20e3 🏳\ufe0f\u200d🌈 葛\U000E0100"},
		{"variation selectors spelling bytes", "hi 😀\U000E0159\U000E0158\U000E0155 there \ufe00lone", "hi 😀 there lone"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Text(tt.in); got != tt.want {
				t.Errorf("Text(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func FuzzText(f *testing.F) {
	for _, s := range []string{"plain", "\x1b]52;c;AA==\x07", "\x1b[2J", "\u009b1m", "\xff", "日本\t\n", "\x1b\x1b[", "\x1bP\x1b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out := Text(in)
		if !utf8.ValidString(out) {
			t.Fatalf("Text(%q) = %q: invalid UTF-8", in, out)
		}
		for _, r := range out {
			if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
				t.Fatalf("Text(%q) = %q: contains control %U", in, out, r)
			}
		}
		if again := Text(out); again != out {
			t.Fatalf("Sanitize is not idempotent: %q -> %q -> %q", in, out, again)
		}
		if !strings.ContainsAny(in, "\x1b\u009b\u009d\u0090\u0098\u009e\u009f") && utf8.ValidString(in) {
			// Without sequences, only control characters are removed.
			want := strings.Map(func(r rune) rune {
				if (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
					return -1
				}
				return r
			}, in)
			if out != want {
				t.Fatalf("Text(%q) = %q, want %q", in, out, want)
			}
		}
	})
}

func TestLineAndTitle(t *testing.T) {
	if got := Line("first\nsecond\r\n\tthird  \x1b[2Jfourth"); got != "first second third fourth" {
		t.Errorf("Line = %q", got)
	}
	if got := Title("a title\nabcd1234\t2024-01-01\t9\tforged row"); strings.Contains(got, "\n") || strings.Contains(got, "\t") {
		t.Errorf("Title kept a line break or tab: %q", got)
	}
	long := strings.Repeat("é", 500)
	got := Title(long)
	if n := utf8.RuneCountInString(got); n != TitleMax || !strings.HasSuffix(got, "…") {
		t.Errorf("Title of 500 characters = %d characters %q…", n, got[:20])
	}
	// Invisible format characters leave a one-line text: a title of nothing
	// else is empty (so the caller's "untitled" shows), and the rest of a
	// title keeps its letters.
	invisible := "\ufeff\u2060\u200b\u200c\u200d\u061c\u200e\u200f\u00ad\U000e0041"
	if got := Line(invisible); got != "" {
		t.Errorf("Line of invisible characters = %q", got)
	}
	if got := Title("zero\u200bwidth\u200d title\u00ad"); got != "zerowidth title" {
		t.Errorf("Title = %q", got)
	}
	// The other invisible ones ("invisible names") go too; a joiner between
	// two visible characters is text, and stays.
	if got := Line("\u2061\u2062\u180e\u034f\u3164\u115f"); got != "" {
		t.Errorf("Line of other invisible characters = %q", got)
	}
	for _, kept := range []string{"👨\u200d👩\u200d👧", "می\u200cخواهم", "क्\u200dष",
		"Trip to 🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f Scotland", "\u0600١٢٣"} {
		if got := Line(kept); got != kept {
			t.Errorf("Line(%q) = %q", kept, got)
		}
	}
	if got := Title("short"); got != "short" {
		t.Errorf("Title(short) = %q", got)
	}
}

func TestJSONEscapesC1AndBidi(t *testing.T) {
	in := map[string]string{"a": "x\u009b2J\u009d0;t\u009cy \u202eevil\u202c \u2066i\u2069 é日本 \x1b[1m"}
	b, err := json.Marshal(in)
	if err != nil {
		t.Fatal(err)
	}
	out := JSON(b)
	for _, r := range string(out) {
		if (r >= 0x80 && r <= 0x9f) || isBidi(r) || r < 0x20 {
			t.Fatalf("JSON kept %U raw: %q", r, out)
		}
	}
	for _, esc := range []string{`\u009b`, `\u009d`, `\u009c`, `\u202e`, `\u202c`, `\u2066`, `\u2069`, "é日本"} {
		if !strings.Contains(string(out), esc) {
			t.Errorf("JSON output lacks %s: %s", esc, out)
		}
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil || back["a"] != in["a"] {
		t.Fatalf("decoded %q (%v), want %q", back["a"], err, in["a"])
	}
	plain := []byte(`{"a":"plain é"}`)
	if got := JSON(plain); string(got) != string(plain) {
		t.Errorf("JSON changed clean input: %s", got)
	}
}

// A path is shown as it is, or quoted when it holds what Line would take
// out: what is shown names that file and can be typed back.
func TestPath(t *testing.T) {
	for in, want := range map[string]string{
		"/home/ann/notes.md":           "/home/ann/notes.md",
		"/home/ann/日本 notes.md":        "/home/ann/日本 notes.md",
		"/tmp/d\x1b[31mx":              `"/tmp/d\x1b[31mx"`,
		"/tmp/evil\u202etxt.md":        `"/tmp/evil\u202etxt.md"`,
		"/tmp/zero\u200bwidth":         `"/tmp/zero\u200bwidth"`,
		"/tmp/new\nline":               `"/tmp/new\nline"`,
		"/tmp/two  spaces":             `"/tmp/two  spaces"`,
		"/tmp/\U0001f600\ufe00\ufe01x": `"/tmp/\U0001f600\ufe00\ufe01x"`,
	} {
		if got := Path(in); got != want {
			t.Errorf("Path(%q) = %s, want %s", in, got, want)
		}
	}
}
