package importer

import (
	"io"
)

// CountConversations counts the conversations of the export at name (the
// elements of its top-level JSON array) in one pass over its bytes,
// without decoding them, so that a progress bar can show how many of
// them are done. A file that is not an array counts -1.
func CountConversations(name string, force Format) int {
	in, err := Open(name, force)
	if err != nil {
		return -1
	}
	defer in.Close()
	n, err := countElements(in.Reader())
	if err != nil {
		return -1
	}
	return n
}

// countElements counts the elements of the JSON array r holds, reading
// it once: commas at the array's own level (outside strings) separate them.
func countElements(r io.Reader) (int, error) {
	buf := make([]byte, 1<<20)
	depth, commas := 0, 0
	inString, escaped, started, seen := false, false, false, false
	for {
		k, err := r.Read(buf)
		for _, b := range buf[:k] {
			switch {
			case inString:
				switch {
				case escaped:
					escaped = false
				case b == '\\':
					escaped = true
				case b == '"':
					inString = false
				}
				continue
			case b == ' ' || b == '\n' || b == '\r' || b == '\t':
				continue
			case !started:
				if b != '[' {
					return -1, nil // not an array
				}
				started, depth = true, 1
				continue
			}
			if depth == 1 && b != ',' && b != ']' {
				seen = true
			}
			switch b {
			case '"':
				inString = true
			case '[', '{':
				depth++
			case ']', '}':
				depth--
			case ',':
				if depth == 1 {
					commas++
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			return -1, err
		}
	}
	if !seen {
		return 0, nil
	}
	return commas + 1, nil
}
