package flagtext

import (
	"flag"
	"io"
	"strings"
	"testing"
)

type repeated []string

func (r *repeated) String() string     { return strings.Join(*r, ",") }
func (r *repeated) Set(v string) error { *r = append(*r, v); return nil }

// Empty finds a flag given an empty value as typed, whatever the flag's
// kind: a flag.Func (its String is always "") given a value is not empty,
// a repeated flag given "" once is.
func TestEmptyReadsTheWordsAsTyped(t *testing.T) {
	fs := flag.NewFlagSet("x", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.String("conversation", "", "")
	fs.Bool("json", false, "")
	fs.Func("chunk", "", func(string) error { return nil })
	fs.Var(new(repeated), "tag", "")
	for args, want := range map[string]string{
		"--chunk 0 ID":                "",
		"--json --conversation abc q": "",
		"--tag a --tag  q":            `--tag "": invalid value: empty: give a value, or leave the flag out`,
		"--conversation= q":           `--conversation "": invalid value: empty: give a value, or leave the flag out`,
		"-- --conversation ":          "",
		"--conversation":              "",
		"--unknown  --json":           "",
	} {
		words := strings.Split(args, " ")
		if got := Empty(fs, words); got != want {
			t.Errorf("Empty(%q) = %q, want %q", words, got, want)
		}
	}
}
