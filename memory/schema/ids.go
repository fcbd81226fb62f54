package schema

import (
	"fmt"
	"strings"

	"github.com/mneme-dev/mneme/internal/text"
)

// CheckID says whether id can be the id a backup line gives a row. mneme
// writes UUIDs; a restored id is printed (a short id is its first 8
// characters) and matched by prefix, so it is 8 to 64 ASCII letters,
// digits, - or _.
func CheckID(field, id string) error {
	odd := strings.ContainsFunc(id, func(r rune) bool {
		return !(r == '-' || r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z')
	})
	if len(id) < 8 || len(id) > 64 || odd {
		return fmt.Errorf("%q must be 8 to 64 letters, digits, - or _, not %q", field, text.Cut(id, 70))
	}
	return nil
}

// CheckOptionalID is CheckID for an id a line may leave out.
func CheckOptionalID(field, id string) error {
	if id == "" {
		return nil
	}
	return CheckID(field, id)
}
