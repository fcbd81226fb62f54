package config

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/mneme-dev/mneme/internal/fileatomic"
)

// SaveModels writes the chat and embedding models chosen in the chat's
// model picker to the config file at path: it sets the top-level model and
// embed_model keys ("" leaves a key as it is) and keeps everything else as
// written, comments and tables included. A missing file is created. The
// result must still parse, or nothing is written.
func SaveModels(path, chat, embed string) error {
	for _, v := range []string{chat, embed} {
		if strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return errors.New("control characters in a model name")
		}
	}
	old, err := readConfig(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("config %s: %w", path, err)
	}
	doc := string(old)
	if chat != "" {
		doc = setTopLevelKey(doc, "model", tomlString(chat))
	}
	if embed != "" {
		doc = setTopLevelKey(doc, "embed_model", tomlString(embed))
	}
	var check map[string]any
	if _, err := toml.Decode(doc, &check); err != nil {
		return fmt.Errorf("config %s: the file would not parse after the change, so it was left alone: %w", path, err)
	}
	mode := os.FileMode(0o600)
	if fi, err := os.Stat(path); err == nil {
		mode = fi.Mode().Perm()
	}
	return replaceFile(path, mode, doc)
}

// replaceFile writes the config file at path whole (its folder made for a
// first one; through the user's own links, fileatomic.WriteLinked).
func replaceFile(path string, mode os.FileMode, doc string) error {
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() { // /dev/null as the config: never replaced
		return fmt.Errorf("config %s: not a regular file (%s): nothing was written", path, fileKind(fi.Mode()))
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("config %s: %w", path, err)
	}
	return fileatomic.WriteLinked(path, mode, func(w io.Writer) error {
		_, err := io.WriteString(w, doc)
		return err
	})
}

// topKeyLine matches a top-level "key = value" line, capturing the key.
var topKeyLine = regexp.MustCompile(`^\s*("?)([A-Za-z0-9_-]+)("?)\s*=`)

// setTopLevelKey sets key to value (a TOML literal) in the document's
// top-level table: the key's line is rewritten with its comment kept, or a
// line is added after the last top-level line (before the first table).
func setTopLevelKey(doc, key, value string) string {
	lines := strings.SplitAfter(doc, "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	lastTop, firstTable := -1, len(lines)
	inMultiline := ""
	for i, line := range lines {
		t := strings.TrimSpace(line)
		if inMultiline != "" {
			if strings.Count(line, inMultiline)%2 == 1 {
				inMultiline, lastTop = "", i
			}
			continue
		}
		if strings.HasPrefix(t, "[") {
			firstTable = i
			break
		}
		if t != "" && !strings.HasPrefix(t, "#") {
			lastTop = i
		}
		for _, q := range []string{`"""`, `'''`} {
			if strings.Count(line, q)%2 == 1 {
				inMultiline = q
			}
		}
		if m := topKeyLine.FindStringSubmatch(line); m != nil && m[2] == key && inMultiline == "" {
			indent := line[:len(line)-len(strings.TrimLeft(line, " \t"))]
			lines[i] = indent + key + " = " + value + trailingComment(line) + "\n"
			return strings.Join(lines, "")
		}
	}
	add := key + " = " + value + "\n"
	at := lastTop + 1
	if lastTop < 0 {
		at = 0
		if firstTable < len(lines) {
			add += "\n"
		}
	}
	if at > 0 && !strings.HasSuffix(lines[at-1], "\n") {
		lines[at-1] += "\n"
	}
	lines = append(lines[:at], append([]string{add}, lines[at:]...)...)
	return strings.Join(lines, "")
}

// trailingComment is the " # ..." after a one-line key's value, if any.
func trailingComment(line string) string {
	line = strings.TrimRight(line, "\r\n")
	_, value, _ := strings.Cut(line, "=")
	value = strings.TrimLeft(value, " \t")
	end := 0
	switch {
	case strings.HasPrefix(value, `"`):
		end = 1
		for end < len(value) && value[end] != '"' {
			if value[end] == '\\' {
				end++
			}
			end++
		}
		end++
	case strings.HasPrefix(value, `'`):
		if i := strings.IndexByte(value[1:], '\''); i >= 0 {
			end = i + 2
		}
	default:
		if i := strings.IndexByte(value, '#'); i >= 0 {
			end = i
		} else {
			end = len(value)
		}
	}
	if end > len(value) {
		return ""
	}
	if i := strings.IndexByte(value[end:], '#'); i >= 0 {
		return " " + value[end+i:]
	}
	return ""
}

// WriteSync replaces the [sync] table of the config file at path
// (creating the file) and leaves the file readable by its owner only.
func WriteSync(path, url, token, interval string) error {
	for _, v := range []string{url, token, interval} {
		if strings.ContainsFunc(v, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			return errors.New("control characters in a setting")
		}
	}
	old, err := readConfig(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	var b strings.Builder
	b.WriteString(strings.TrimRight(removeTOMLTable(string(old), "sync"), "\n"))
	if b.Len() > 0 {
		b.WriteString("\n\n")
	}
	b.WriteString("[sync]\n")
	fmt.Fprintf(&b, "url = %s\n", tomlString(url))
	if token != "" {
		fmt.Fprintf(&b, "token = %s\n", tomlString(token))
	}
	if interval != "" {
		fmt.Fprintf(&b, "interval = %s\n", tomlString(interval))
	}
	return replaceFile(path, 0o600, b.String()) // the token: owner-only
}

// removeTOMLTable drops the [name] table (header to the next table) from
// a TOML document, keeping everything else as written.
func removeTOMLTable(doc, name string) string {
	var out []string
	skipping := false
	for _, line := range strings.SplitAfter(doc, "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			header := strings.TrimSpace(strings.Trim(strings.SplitN(t, "#", 2)[0], " []"))
			skipping = header == name || strings.HasPrefix(header, name+".")
		}
		if !skipping {
			out = append(out, line)
		}
	}
	return strings.Join(out, "")
}

// tomlString quotes s as a TOML basic string.
func tomlString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// ModelsOverridden says what will win over the models SaveModels writes
// when mneme starts again, "" when nothing: the flags and the environment
// come before the config file ("MNEME_MODEL=qwen2.5 in the environment").
func ModelsOverridden(flags Flags, getenv func(string) string, chat, embed string) string {
	var over []string
	switch {
	case chat != "" && flags.Model != "":
		over = append(over, "--model "+flags.Model+" on the command line")
	case chat != "" && getenv(envModel) != "":
		over = append(over, envModel+"="+getenv(envModel)+" in the environment")
	}
	switch {
	case embed != "" && flags.embedModel != "":
		over = append(over, "--embed-model "+flags.embedModel+" on the command line")
	case embed != "" && getenv(envEmbed) != "":
		over = append(over, envEmbed+"="+getenv(envEmbed)+" in the environment")
	}
	return strings.Join(over, " and ")
}
