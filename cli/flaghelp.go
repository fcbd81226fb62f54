package cli

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"strings"
)

// flagName is a flag as it is typed: --name, or -c for a one-letter one
// (as the usage lines and the README write them; the flag package takes
// either).
func flagName(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// printFlags writes fs's flags as the usage lines write them: "--name
// VALUE", where VALUE is the usage's `BACKQUOTED` word (flag.UnquoteUsage),
// N for a number, none for a switch; then the usage, indented, and the
// default when it says something.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		switch value {
		case "int", "uint", "float":
			value = "N"
		case "string", "value":
			value = "VALUE"
		case "duration":
			value = "DURATION"
		}
		line := "  " + flagName(f.Name)
		if value != "" {
			line += " " + value
		}
		if def := f.DefValue; def != "" && def != "0" && def != "false" && !strings.Contains(usage, "default") {
			usage += fmt.Sprintf(" (default %s)", def)
		}
		if len(f.Name) == 1 && value == "" {
			fmt.Fprintf(w, "%s\t%s\n", line, usage) // -c	shorthand for --continue
			return
		}
		fmt.Fprintf(w, "%s\n    \t%s\n", line, usage)
	})
}

// emptyFlag says which flag was given empty, or "": a script's unset
// variable (`export --conversation "$ID" -o share.md` exported every
// conversation), as --data-dir "" is refused.
func emptyFlag(fs *flag.FlagSet) string {
	var msg string
	fs.Visit(func(f *flag.Flag) {
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); msg != "" || ok && b.IsBoolFlag() {
			return
		}
		if v := f.Value.String(); strings.TrimSpace(v) == "" {
			msg = fmt.Sprintf("%s %q: invalid value: empty: give a value, or leave the flag out", flagName(f.Name), v)
		}
	})
	return msg
}

// swallowedFlag says which flag took another flag for its value
// (`conversations --find --json lisbon` searched for "--json lisbon"),
// or "".
func swallowedFlag(fs *flag.FlagSet) string {
	var msg string
	fs.Visit(func(f *flag.Flag) {
		v := f.Value.String()
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); msg != "" || ok && b.IsBoolFlag() || !strings.HasPrefix(v, "-") {
			return
		}
		if name, _, _ := strings.Cut(strings.TrimLeft(v, "-"), "="); fs.Lookup(name) != nil {
			msg = fmt.Sprintf("flag needs an argument: %s (%s is a flag)", flagName(f.Name), v)
		}
	})
	return msg
}

// flagInError finds the flag the flag package names in an error ("flag
// needs an argument: -tag").
var flagInError = regexp.MustCompile(`^(flag needs an argument|flag provided but not defined): -(\S+)$`)

// flagError words the flag package's error about a flag with the flag as
// it is typed: "flag needs an argument: --tag", "unknown flag: --v".
func flagError(err error) string {
	m := flagInError.FindStringSubmatch(err.Error())
	if m == nil {
		return err.Error()
	}
	if m[1] == "flag provided but not defined" {
		return "unknown flag: " + flagName(m[2])
	}
	return m[1] + ": " + flagName(m[2])
}
