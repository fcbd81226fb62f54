package text

import (
	"errors"
	"testing"
	"time"
	"unicode/utf8"
)

func TestExpandTabs(t *testing.T) {
	for in, want := range map[string]string{
		"no tabs":                 "no tabs",
		"\tif x {\n\t\tgo()\n\t}": "    if x {\n        go()\n    }",
		"ab\tc":                   "ab  c",
		"abcd\te":                 "abcd    e",
		"日本\tx":                   "日本    x",
	} {
		if got := ExpandTabs(in, 4); got != want {
			t.Errorf("ExpandTabs(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 44000: "44,000", 1234567: "1,234,567", -1500: "-1,500"} {
		if got := Thousands(n); got != want {
			t.Errorf("Thousands(%d) = %q, want %q", n, got, want)
		}
	}
}

func TestCut(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
	}{
		{"short", 10, "short"}, {"exactly10!", 10, "exactly10!"}, {"one too long", 11, "one too lo…"},
		{"héllo wörld", 6, "héllo…"}, {"日本語のテキスト", 4, "日本語…"}, {"anything", 0, ""},
	} {
		if got := Cut(c.in, c.n); got != c.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", c.in, c.n, got, c.want)
		}
		if got := Prefix(c.in, c.n); c.n > 0 && utf8.RuneCountInString(got) > c.n {
			t.Errorf("Prefix(%q, %d) = %q is longer", c.in, c.n, got)
		}
	}
	if got := Prefix("日本語のテキスト", 3); got != "日本語" {
		t.Errorf("Prefix = %q", got)
	}
}

func TestOneLine(t *testing.T) {
	if got := OneLine("  a\n\tb  c\r\n"); got != "a b c" {
		t.Errorf("OneLine = %q", got)
	}
}

func TestRelativeDate(t *testing.T) {
	now := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	for ago, want := range map[time.Duration]string{
		10 * time.Second: "just now", 5 * time.Minute: "5m ago", 3 * time.Hour: "3h ago",
		30 * time.Hour: "yesterday", 4 * 24 * time.Hour: "4d ago", 30 * 24 * time.Hour: "24 Oct",
		400 * 24 * time.Hour: "19 Oct 2025",
	} {
		if got := RelativeDate(now, now.Add(-ago)); got != want {
			t.Errorf("%v ago = %q, want %q", ago, got, want)
		}
	}
	if got := RelativeDate(now, time.Time{}); got != "" {
		t.Errorf("zero time = %q", got)
	}
}

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 messages"}, {1, "1 message"}, {2, "2 messages"}, {12345, "12,345 messages"}} {
		if got := Count(c.n, "message", "messages"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestBytes(t *testing.T) {
	for n, want := range map[int64]string{812: "812 B", 14_300: "14 KB", 3_200_000: "3.2 MB", 2_000_000_000: "2.0 GB"} {
		if got := Bytes(n); got != want {
			t.Errorf("Bytes(%d) = %q, want %q", n, got, want)
		}
	}
}

// TestParseDate: --since and --until read dates as people type them,
// relative ones from today's midnight (as git does); anything else is an
// error that says what to give.
func TestParseDate(t *testing.T) {
	now := time.Date(2026, 11, 24, 15, 30, 0, 0, time.UTC)
	for in, want := range map[string]string{
		"2026-03-01":           "2026-03-01T00:00:00Z",
		"2026-03-01T10:00:00Z": "2026-03-01T10:00:00Z",
		"today":                "2026-11-24T00:00:00Z",
		" Yesterday ":          "2026-11-23T00:00:00Z",
		"3 days ago":           "2026-11-21T00:00:00Z",
		"a week ago":           "2026-11-17T00:00:00Z",
		"2 weeks ago":          "2026-11-10T00:00:00Z",
		"1 month ago":          "2026-10-24T00:00:00Z",
		"2 years ago":          "2024-11-24T00:00:00Z",
		"last week":            "2026-11-17T00:00:00Z",
	} {
		got, err := ParseDate(in, now)
		if err != nil || got.Format(time.RFC3339) != want {
			t.Errorf("ParseDate(%q) = %s, %v; want %s", in, got.Format(time.RFC3339), err, want)
		}
	}
	for _, in := range []string{"", "last fortnight", "3 fortnights ago", "-2 days ago", "2026-13-01", "soon"} {
		if _, err := ParseDate(in, now); !errors.Is(err, ErrDate) {
			t.Errorf("ParseDate(%q): %v", in, err)
		}
	}
}
