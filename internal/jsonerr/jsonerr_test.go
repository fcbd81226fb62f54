package jsonerr

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestDescribeSaysWhatTheFileHas: decoding errors read as what the file
// has where, with no Go type or struct in them.
func TestDescribeSaysWhatTheFileHas(t *testing.T) {
	var rec struct {
		Title string `json:"title"`
		Parts []string
	}
	for in, want := range map[string]string{
		`{"title": 5}`:       `its "title" is a number where text belongs`,
		`{"Parts": "x"}`:     `its "Parts" is text where a list belongs`,
		`[1]`:                `it is a list where an object belongs`,
		`not json`:           `not JSON (at byte 2)`,
		`{"title": "cut off`: `JSON cut off before its end`,
	} {
		err := json.NewDecoder(strings.NewReader(in)).Decode(&rec)
		if got := Describe(err); got != want || strings.Contains(got, "Go ") || strings.Contains(got, "struct") {
			t.Errorf("%s: %q, want %q", in, got, want)
		}
	}
}
