package docs

import (
	"bufio"
	"bytes"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// ignoreRule is one pattern line of a .gitignore file (or .git/info/exclude).
type ignoreRule struct {
	base     string   // the directory the file is in, absolute
	segments []string // the pattern split at '/'
	anchored bool     // matched against the path from base, not the name
	dirOnly  bool     // the pattern ended in '/'
	negate   bool     // the pattern started with '!'
}

// readIgnore reads the rules of an ignore file whose patterns are relative
// to base; none when it cannot be read.
func readIgnore(file, base string) []ignoreRule {
	data, err := os.ReadFile(file)
	if err != nil || bytes.IndexByte(data, 0) >= 0 {
		return nil
	}
	var rules []ignoreRule
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		if r, ok := parseIgnoreLine(sc.Text(), base); ok {
			rules = append(rules, r)
		}
	}
	return rules
}

// parseIgnoreLine parses one line of a .gitignore file as git does:
// blank lines and '#' comments are nothing, trailing spaces are dropped
// unless escaped, '!' negates, a trailing '/' matches directories only,
// and a '/' anywhere else anchors the pattern to the file's directory.
func parseIgnoreLine(line, base string) (ignoreRule, bool) {
	line = strings.TrimSuffix(line, "\r")
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, "\\ ") {
		line = line[:len(line)-1]
	}
	if line == "" || line[0] == '#' {
		return ignoreRule{}, false
	}
	r := ignoreRule{base: base}
	if line[0] == '!' {
		r.negate = true
		line = line[1:]
	} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		r.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return ignoreRule{}, false
	}
	if strings.Contains(line, "/") {
		r.anchored = true
		line = strings.TrimPrefix(line, "/")
	}
	r.segments = strings.Split(line, "/")
	for i, seg := range r.segments {
		r.segments[i] = strings.ReplaceAll(seg, "[!", "[^") // git's negated class
	}
	return r, true
}

// matches reports whether the rule matches the path abs (a directory when
// dir is true).
func (r ignoreRule) matches(abs string, dir bool) bool {
	if r.dirOnly && !dir {
		return false
	}
	rel, err := filepath.Rel(r.base, abs)
	if err != nil || rel == "." || strings.HasPrefix(rel, "..") {
		return false
	}
	parts := strings.Split(filepath.ToSlash(rel), "/")
	if !r.anchored {
		return len(r.segments) == 1 && matchSegment(r.segments[0], parts[len(parts)-1])
	}
	return matchSegments(r.segments, parts)
}

// matchSegments matches pattern segments against path segments; "**"
// matches any number of segments.
func matchSegments(pat, parts []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			pat = pat[1:]
			if len(pat) == 0 {
				return len(parts) > 0 // "a/**" matches what is inside a
			}
			for i := 0; i <= len(parts); i++ {
				if matchSegments(pat, parts[i:]) {
					return true
				}
			}
			return false
		}
		if len(parts) == 0 || !matchSegment(pat[0], parts[0]) {
			return false
		}
		pat, parts = pat[1:], parts[1:]
	}
	return len(parts) == 0
}

// matchSegment matches one name against a glob; a bad glob matches nothing.
func matchSegment(pattern, name string) bool {
	ok, err := path.Match(pattern, name)
	return err == nil && ok
}

// ignored reports whether rules (outermost file first, in line order)
// ignore abs: the last rule that matches decides.
func ignored(rules []ignoreRule, abs string, dir bool) bool {
	for i := len(rules) - 1; i >= 0; i-- {
		if rules[i].matches(abs, dir) {
			return !rules[i].negate
		}
	}
	return false
}

// parentRules returns the ignore rules that apply inside dir from above
// it: .git/info/exclude and the .gitignore files of the repository that
// holds dir, from its root down to dir's parent. None when dir is in no
// repository.
func parentRules(dir string) []ignoreRule {
	var chain []string // dir's ancestors, nearest first
	root := ""
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			root = d
			break
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil
		}
		chain = append(chain, parent)
		d = parent
	}
	rules := readIgnore(filepath.Join(root, ".git", "info", "exclude"), root)
	for i := len(chain) - 1; i >= 0; i-- {
		rules = append(rules, readIgnore(filepath.Join(chain[i], ".gitignore"), chain[i])...)
	}
	return rules
}
