package stdin

import (
	"errors"
	"io"
	"strings"
	"testing"
)

// TestReadLineEditsLikeAPrompt: what the hidden token prompt makes of the
// keys a user types.
func TestReadLineEditsLikeAPrompt(t *testing.T) {
	for _, tc := range []struct {
		name, keys, want string
		err              error
	}{
		{"plain", "tok-123\r", "tok-123", nil},
		{"backspace erases a whole rune", "toké\x7f\x7fen\r", "toen", nil},
		{"ctrl+u clears", "wrong\x15right\n", "right", nil},
		{"arrows and keys with escape sequences leave nothing", "ab\x1b[A\x1b[D\x1b[1;5C\x1bOP\x1b[3~c\r", "abc", nil},
		// A lone Esc then a key (as Alt+key reads): the key is kept; it was
		// lost from the token.
		{"a lone esc keeps the next key", "a\x1bxb\r", "axb", nil},
		{"esc then enter", "ab\x1b\r", "ab", nil},
		{"ctrl+c takes nothing typed with it", "secret\x03more\r", "", ErrInterrupted},
		{"ctrl+d on an empty line", "\x04", "", io.EOF},
		{"cut off mid-sequence", "ab\x1b[1", "", io.EOF},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readLine(strings.NewReader(tc.keys))
			if got != tc.want || !errors.Is(err, tc.err) {
				t.Fatalf("readLine(%q) = %q, %v; want %q, %v", tc.keys, got, err, tc.want, tc.err)
			}
		})
	}
}
