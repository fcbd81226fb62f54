package docs

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"
)

// Candidate is a path found by Expand: a file to read, or one to skip with
// a reason a person understands.
type Candidate struct {
	Path string // absolute, cleaned
	Skip string // "" to read it
}

// The reasons Expand gives for skipping a path.
const (
	SkipNotFound   = "not found"
	SkipNoMatch    = "no files match"
	SkipDenied     = "permission denied"
	SkipNotRegular = "not a regular file"
	// SkipLinkOutside: a link, in a directory added, to a file outside it.
	SkipLinkOutside = "a link to a file outside the folder: name it to add it"
	// SkipNotUTF8: a name in another encoding (Latin-1, from an old zip),
	// which the database does not hold.
	SkipNotUTF8 = "its name is not UTF-8 text: rename it to add it"
)

// Expand turns command-line arguments (files, directories, globs like
// "notes/*.md") into files. Directories are walked recursively, honouring
// .gitignore files (in the directory and its subdirectories, and in its
// parents up to the root of the repository that holds it, with that
// repository's .git/info/exclude) and skipping hidden files and
// directories (.git among them); ignored and hidden files are left out
// silently. A file found in a directory whose extension Parse does not
// read is a Candidate skipped with "unsupported type .ext". A file named
// outright, or matched by a glob, is read whatever .gitignore says; a glob
// matches hidden names only when its last element starts with '.'.
//
// Unreadable paths and non-existent paths become Candidates with Skip
// reasons (never abort the whole run). The same file named twice, or by a
// link, appears once, under its real path. Order: argument order, then lexical within a directory.
func Expand(args []string) []Candidate {
	e := expander{seen: map[string]bool{}}
	for _, arg := range args {
		abs, err := filepath.Abs(arg)
		if err != nil {
			e.add(filepath.Clean(arg), err.Error())
			continue
		}
		if _, err := os.Lstat(abs); err != nil && hasMeta(arg) {
			e.glob(arg, abs)
			continue
		}
		e.path(abs, true)
	}
	return e.out
}

type expander struct {
	out  []Candidate
	seen map[string]bool
}

// add appends a candidate unless the same file came before. A file is
// named by its real path (links resolved), so that a link and its target
// are one document.
func (e *expander) add(abs, skip string) {
	named := abs
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	if e.seen[abs] {
		if named != abs && skip == "" && !e.seen[named] { // a link to a file already there: said, not dropped
			e.seen[named] = true
			e.out = append(e.out, Candidate{Path: named, Skip: "a link to " + abs + ", added once under that name"})
		}
		return
	}
	e.seen[abs] = true
	if skip == "" && !utf8.ValidString(abs) {
		skip = SkipNotUTF8
	}
	e.out = append(e.out, Candidate{Path: abs, Skip: skip})
}

// glob expands a pattern; hidden names match only a pattern whose last
// element starts with '.'. "**" stands for any number of directories, as
// in a shell with globstar ("notes/**/*.md").
func (e *expander) glob(arg, abs string) {
	matches, err := filepath.Glob(abs)
	if strings.Contains(abs, "**") {
		matches, err = globStar(abs)
	}
	if err != nil {
		e.add(abs, "bad pattern")
		return
	}
	hidden := strings.HasPrefix(filepath.Base(arg), ".")
	root := globRoot(abs)
	n := 0
	for _, m := range matches {
		if strings.HasPrefix(filepath.Base(m), ".") && !hidden {
			continue
		}
		n++
		// A link the pattern matched is followed only to a file under the
		// folder the pattern starts from, as in a folder added.
		if fi, err := os.Lstat(m); err == nil && fi.Mode()&fs.ModeSymlink != 0 && e.linkOutside(root, m) {
			continue
		}
		e.path(m, true)
	}
	if n == 0 {
		e.add(abs, SkipNoMatch)
	}
}

// path adds a file, or the files under a directory. named is true for a
// path given outright (or by a glob).
func (e *expander) path(abs string, named bool) {
	info, err := os.Stat(abs)
	if err != nil {
		e.add(abs, reason(err))
		return
	}
	switch {
	case info.IsDir():
		root := abs
		if real, err := filepath.EvalSymlinks(abs); err == nil {
			root = real
		}
		e.walk(root, abs, parentRules(abs))
	case !info.Mode().IsRegular():
		e.add(abs, SkipNotRegular)
	case !named:
		if _, ok := TypeOf(abs); !ok {
			e.add(abs, unsupported(abs).Error())
			return
		}
		fallthrough
	default:
		if f, err := os.Open(abs); err != nil {
			e.add(abs, reason(err))
		} else {
			f.Close()
			e.add(abs, "")
		}
	}
}

// walk adds the files under dir, depth first in lexical order, with the
// ignore rules from above it. A link is followed only to a file inside
// root, the real path of the directory named: a link in a notes folder to
// ~/.ssh/id_ed25519 or /etc/passwd is not added unless named outright.
func (e *expander) walk(root, dir string, rules []ignoreRule) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		e.add(dir, reason(err))
		return
	}
	if local := readIgnore(filepath.Join(dir, ".gitignore"), dir); len(local) > 0 {
		rules = append(rules[:len(rules):len(rules)], local...)
	}
	for _, entry := range entries {
		name := entry.Name()
		if strings.HasPrefix(name, ".") {
			continue
		}
		abs := filepath.Join(dir, name)
		isDir := entry.IsDir()
		if entry.Type()&fs.ModeSymlink != 0 {
			info, err := os.Stat(abs)
			if err != nil {
				e.add(abs, reason(err))
				continue
			}
			if info.IsDir() {
				continue // a link to a directory: not followed, against loops
			}
			if e.linkOutside(root, abs) {
				continue
			}
		}
		if ignored(rules, abs, isDir) {
			continue
		}
		if isDir {
			e.walk(root, abs, rules)
			continue
		}
		e.path(abs, false)
	}
}

// globRoot is the real path of the folder a pattern starts from: its
// elements before the first with glob characters.
func globRoot(pattern string) string {
	dir := pattern
	for hasMeta(dir) {
		dir = filepath.Dir(dir)
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		return real
	}
	return dir
}

// linkOutside reports whether the link at path leads outside root (or
// nowhere), and lists it as skipped if so.
func (e *expander) linkOutside(root, path string) bool {
	if real, err := filepath.EvalSymlinks(path); err == nil && Within(root, real) {
		return false
	}
	e.out = append(e.out, Candidate{Path: path, Skip: SkipLinkOutside})
	return true
}

// Within reports whether path is root or under it.
func Within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// reason turns a file system error into a few words for a person.
func reason(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return SkipNotFound
	case errors.Is(err, fs.ErrPermission):
		return SkipDenied
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// hasMeta reports whether a path holds glob characters.
func hasMeta(p string) bool {
	return strings.ContainsAny(p, "*?[")
}

// globStar matches a pattern with "**" elements against the files under
// the directory before the first one, leaving out hidden directories.
func globStar(pattern string) ([]string, error) {
	parts := strings.Split(filepath.ToSlash(pattern), "/")
	first := slices.Index(parts, "**")
	if first < 0 {
		return filepath.Glob(pattern)
	}
	root := filepath.FromSlash(strings.Join(parts[:first], "/"))
	if root == "" {
		root = "/"
	}
	if hasMeta(root) {
		return nil, filepath.ErrBadPattern
	}
	rest := parts[first:]
	for _, p := range rest {
		if _, err := path.Match(p, ""); err != nil {
			return nil, err
		}
	}
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: left out, like the directories walked
		}
		if p != root && strings.HasPrefix(d.Name(), ".") && d.IsDir() {
			return filepath.SkipDir
		}
		rel, rerr := filepath.Rel(root, p)
		if rerr != nil || d.IsDir() {
			return nil
		}
		if matchStar(rest, strings.Split(filepath.ToSlash(rel), "/")) {
			out = append(out, p)
		}
		return nil
	})
	return out, err
}

// matchStar matches path elements against pattern elements, "**" taking
// any number of them.
func matchStar(pattern, name []string) bool {
	switch {
	case len(pattern) == 0:
		return len(name) == 0
	case pattern[0] == "**":
		for i := 0; i <= len(name); i++ {
			if matchStar(pattern[1:], name[i:]) {
				return true
			}
		}
		return false
	case len(name) == 0:
		return false
	}
	ok, _ := path.Match(pattern[0], name[0])
	return ok && matchStar(pattern[1:], name[1:])
}
