// Package paths completes a file path as a person types it, for the
// chat's /attach: the names in its folder that begin with what is typed.
// It reads the file system, so the chat calls it from a command, never
// from Update.
package paths

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/text"
)

// maxRead bounds how many entries of one folder are read, maxMatches how
// many of them that match are kept for sorting.
const (
	maxRead    = 200_000
	maxMatches = 10_000
)

// Candidate is one name that completes a typed path.
type Candidate struct {
	// Name is the entry's name as a list shows it, "/" after a folder.
	Name string
	// Path is the typed path completed with it, as the user would write
	// it ("~/manuals/boiler.pdf").
	Path string
	Dir  bool
}

// Complete lists the entries that complete typed: a path as the user
// writes it, "~/" for the home folder, relative ones from the working
// folder. Folders come first, then files, each by name; an entry named
// exactly as typed leads. Hidden entries are listed only when the typed
// name begins with a dot, and names that a terminal cannot show as typed
// (control characters, bidi controls) never. At most limit are returned.
// A folder that cannot be read has no candidates.
func Complete(typed string, limit int) []Candidate {
	if typed == "~" {
		return []Candidate{{Name: "~/", Path: "~/", Dir: true}}
	}
	dirPart, prefix := typed[:strings.LastIndex(typed, "/")+1], typed[strings.LastIndex(typed, "/")+1:]
	dir, err := Expand(dirPart)
	if err != nil {
		return nil
	}
	f, err := os.Open(dir)
	if err != nil {
		return nil
	}
	defer f.Close()
	var out []Candidate
	for read := 0; read < maxRead && len(out) < maxMatches; {
		entries, err := f.ReadDir(1024) // a chunk at a time: a folder of 100,000 files is filtered as it is read
		read += len(entries)
		out = appendMatches(out, dir, dirPart, prefix, entries)
		if err != nil {
			break // the end, or what was read before an error still counts
		}
	}
	slices.SortFunc(out, func(a, b Candidate) int {
		switch {
		case (a.Path == typed) != (b.Path == typed):
			return boolOrder(a.Path == typed)
		case a.Dir != b.Dir:
			return boolOrder(a.Dir)
		}
		return strings.Compare(a.Name, b.Name)
	})
	return out[:min(len(out), limit)]
}

// appendMatches appends to out the entries whose names begin with prefix.
func appendMatches(out []Candidate, dir, dirPart, prefix string, entries []fs.DirEntry) []Candidate {
	for _, e := range entries {
		name := e.Name()
		if !strings.HasPrefix(name, prefix) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(prefix, ".")) ||
			sanitize.Line(name) != name {
			continue
		}
		c := Candidate{Name: name, Path: dirPart + name, Dir: isDir(dir, e)}
		if c.Dir {
			c.Name += "/"
			c.Path += "/"
		}
		out = append(out, c)
	}
	return out
}

// Msg is a listing of the paths that complete typed, for a text of the
// chat's input.
type Msg struct {
	Text  string
	Paths []Candidate
	// Common is what every name that completes typed shares (CommonPrefix
	// of them all, not only of the Paths listed).
	Common string
	// Exists says that typed itself names a file or folder.
	Exists bool
}

// List is a command that lists, at most limit, the paths that complete
// typed, for the input's text.
func List(text, typed string, limit int) tea.Cmd {
	return func() tea.Msg {
		all := Complete(typed, maxMatches)
		return Msg{Text: text, Paths: all[:min(len(all), limit)], Common: CommonPrefix(all), Exists: Exists(typed)}
	}
}

// Exists reports whether typed, a path as the user writes it, names a
// file or folder.
func Exists(typed string) bool {
	if typed == "" {
		return false
	}
	dir, err := Expand(typed)
	if err != nil {
		return false
	}
	_, err = os.Stat(dir)
	return err == nil
}

// Narrow is those of cs that still complete typed, while a new listing
// is on its way.
func Narrow(cs []Candidate, typed string) []Candidate {
	var out []Candidate
	for _, c := range cs {
		if strings.HasPrefix(c.Path, typed) {
			out = append(out, c)
		}
	}
	return out
}

// CommonPrefix is the longest path that every candidate begins with.
func CommonPrefix(cs []Candidate) string {
	if len(cs) == 0 {
		return ""
	}
	p := cs[0].Path
	for _, c := range cs[1:] {
		n := 0
		for n < len(p) && n < len(c.Path) && p[n] == c.Path[n] {
			n++
		}
		p = p[:n]
	}
	for !utf8.ValidString(p) { // never end inside a character
		p = p[:len(p)-1]
	}
	return p
}

// Create makes a new file, never over an existing one, where typed (a
// path as the user writes it: quoted or not, "~/" for the home folder)
// says: a folder that is not there yet is made; a folder that exists, or
// a path ending in "/", gets a file called name in it ("" typed: name in
// the working folder), or name-2, name-3… when name is taken. It returns
// the file's absolute path either way.
func Create(typed, name string) (*os.File, string, error) {
	typed = unquote(strings.TrimSpace(typed))
	p, err := Expand(typed)
	if err != nil {
		return nil, typed, err
	}
	named := false
	if fi, err := os.Stat(p); typed == "" || strings.HasSuffix(typed, "/") || err == nil && fi.IsDir() {
		p, named = filepath.Join(p, name), true
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, p, err
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, abs, err
	}
	ext := filepath.Ext(abs)
	for n := 2; ; n++ {
		f, err := os.OpenFile(abs, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if !named || !errors.Is(err, fs.ErrExist) || n > maxNameTries {
			return f, abs, err
		}
		abs = fmt.Sprintf("%s-%d%s", strings.TrimSuffix(filepath.Join(filepath.Dir(abs), name), ext), n, ext)
	}
}

// maxNameTries bounds the name-2, name-3… Create tries.
const maxNameTries = 100

// unquote takes the quotes off a path typed within them.
func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' || s[0] == '\'') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// Expand is the path a typed path names: "~/" is the home folder, ""
// the working folder.
func Expand(dirPart string) (string, error) {
	switch {
	case dirPart == "":
		return ".", nil
	case dirPart == "~" || strings.HasPrefix(dirPart, "~/"):
		home, err := os.UserHomeDir()
		if err != nil {
			return "", err
		}
		return filepath.Join(home, strings.TrimPrefix(dirPart, "~")), nil
	}
	return dirPart, nil
}

// isDir reports whether e is a folder, or a link to one.
func isDir(dir string, e fs.DirEntry) bool {
	if e.Type()&fs.ModeSymlink == 0 {
		return e.IsDir()
	}
	fi, err := os.Stat(filepath.Join(dir, e.Name()))
	return err == nil && fi.IsDir()
}

func boolOrder(first bool) int {
	if first {
		return -1
	}
	return 1
}

// maxExportNameRunes bounds the title part of an export's file name.
const maxExportNameRunes = 40

// ExportName is the default file name of an export: the title made safe
// for a file name, and the start of the conversation's id.
func ExportName(title, id string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
			dash = false
		case !dash && b.Len() > 0:
			b.WriteByte('-')
			dash = true
		}
	}
	slug := strings.Trim(b.String(), "-")
	if r := []rune(slug); len(r) > maxExportNameRunes {
		slug = strings.Trim(string(r[:maxExportNameRunes]), "-")
	}
	short := text.Prefix(id, 8)
	if slug == "" {
		return "mneme-" + short + ".md"
	}
	return "mneme-" + slug + "-" + short + ".md"
}
