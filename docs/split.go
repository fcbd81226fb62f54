package docs

import (
	"strings"
	"unicode/utf8"
)

// Chunk is one piece of a document for the index.
type Chunk struct {
	Number  int
	Heading string
	Page    int
	Text    string
}

// ChunkOptions sets the size of chunks, in estimated tokens.
type ChunkOptions struct {
	Tokens  int // about how many tokens a chunk holds; 0 means 512
	Overlap int // about how many tokens a chunk repeats of the one before; 0 means 50
}

// Chunking defaults, and the estimate: a token is BytesPerToken bytes of
// UTF-8 text.
const (
	DefaultTokens  = 512
	DefaultOverlap = 50
	BytesPerToken  = 4
)

// Split cuts a parsed document into chunks of about opts.Tokens tokens,
// overlapping by about opts.Overlap tokens. Tokens are estimated as
// len(bytes)/BytesPerToken, so a chunk's text is at most
// opts.Tokens*BytesPerToken bytes. A chunk ends at the last paragraph
// break (a blank line) in the second half of its room, else at the last
// sentence end or line end there, else at the last space, else (a run
// without spaces) at the last rune that fits; the next chunk starts at the
// first word boundary at or after opts.Overlap tokens before that end.
// An overlap of at least half the chunk size is cut to a quarter of it.
//
// A chunk never spans two sections: each carries its section's heading
// and page. Numbers start at 0 and are consecutive; empty sections give no
// chunks. Split is linear in the length of the text.
func Split(p Parsed, opts ChunkOptions) []Chunk {
	size := opts.Tokens
	if size <= 0 {
		size = DefaultTokens
	}
	overlap := opts.Overlap
	if overlap <= 0 {
		overlap = DefaultOverlap
	}
	if overlap*2 >= size {
		overlap = size / 4
	}
	maxBytes, overlapBytes := size*BytesPerToken, overlap*BytesPerToken
	var chunks []Chunk
	for _, s := range p.Sections {
		for _, text := range splitText(s.Text, maxBytes, overlapBytes) {
			chunks = append(chunks, Chunk{Number: len(chunks), Heading: s.Heading, Page: s.Page, Text: text})
		}
	}
	return chunks
}

// splitText cuts s into pieces of at most maxBytes bytes (trimmed of
// surrounding white space) overlapping by about overlapBytes.
func splitText(s string, maxBytes, overlapBytes int) []string {
	var out []string
	start := skipSpace(s, 0)
	for start < len(s) {
		if len(s)-start <= maxBytes {
			if t := strings.TrimSpace(s[start:]); t != "" {
				out = append(out, t)
			}
			break
		}
		end := cutPoint(s, start, start+maxBytes)
		if t := strings.TrimSpace(s[start:end]); t != "" {
			out = append(out, t)
		}
		next := nextStart(s, end-overlapBytes, end)
		if next <= start {
			next = skipSpace(s, end) // no progress with overlap: go on without
		}
		start = next
	}
	return out
}

// cutPoint returns where the chunk s[start:limit] (limit < len(s)) ends:
// the best boundary in the second half of its room.
func cutPoint(s string, start, limit int) int {
	lo := start + (limit-start)/2
	window := s[lo:limit]
	if i := strings.LastIndex(window, "\n\n"); i >= 0 {
		return lo + i
	}
	for i := len(window) - 1; i > 0; i-- {
		c := window[i]
		if c == '\n' {
			return lo + i
		}
		if (c == ' ' || c == '\t') && sentenceEnd(window[:i]) {
			return lo + i
		}
	}
	if i := strings.LastIndexAny(window, " \t\n"); i > 0 {
		return lo + i
	}
	if limit < len(s) && isSpace(s[limit]) {
		return limit
	}
	// One long word: cut at a rune boundary.
	end := limit
	for end > start+1 && !utf8.RuneStart(s[end]) {
		end--
	}
	return end
}

// sentenceEnd reports whether s ends a sentence: '.', '!' or '?', maybe
// followed by closing quotes or brackets.
func sentenceEnd(s string) bool {
	s = strings.TrimRight(s, "\"')]»”’")
	return s != "" && strings.ContainsRune(".!?…", rune(s[len(s)-1])) || strings.HasSuffix(s, "…")
}

// nextStart returns where the chunk after one ending at end starts: the
// first word start in s[from:end], or from itself (rune-aligned) when
// that run has no space.
func nextStart(s string, from, end int) int {
	if from <= 0 {
		return skipSpace(s, 0)
	}
	if isSpace(s[from-1]) {
		return skipSpace(s, from)
	}
	if i := strings.IndexAny(s[from:end], " \t\n"); i >= 0 {
		return skipSpace(s, from+i)
	}
	for from < end && !utf8.RuneStart(s[from]) {
		from++
	}
	return from
}

// skipSpace returns the index of the first byte at or after i that is not
// white space.
func skipSpace(s string, i int) int {
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	return i
}
