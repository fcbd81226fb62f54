// Package flagtext writes a command's flags as people type them: --name
// VALUE in help and errors (the flag package writes -name and its Go type),
// and finds the mistakes a script makes with them: a flag given empty (an
// unset variable), or taking another flag for its value.
package flagtext

import (
	"flag"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
)

// Usage writes a command's help: its usage line, its own flags in full,
// and those every command takes (shared) named on one line.
func Usage(w io.Writer, fs *flag.FlagSet, usage string, shared []string) {
	own, n := flag.NewFlagSet(fs.Name(), flag.ContinueOnError), 0
	fs.VisitAll(func(f *flag.Flag) {
		if !slices.Contains(shared, f.Name) {
			own.Var(f.Value, f.Name, f.Usage)
			own.Lookup(f.Name).DefValue, n = f.DefValue, n+1 // not the value parsed so far
		}
	})
	fmt.Fprintf(w, "Usage: %s\n", usage)
	if n > 0 {
		fmt.Fprint(w, "\nFlags:\n")
		Print(w, own)
	}
	fmt.Fprintf(w, "\nCommon flags: --%s (mneme --help describes them)\n", strings.Join(shared, " --"))
}

// HelpAsked reports whether args ask for help (-h, -help, --help) before
// any "--".
func HelpAsked(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "-h", "-help", "--help":
			return true
		}
	}
	return false
}

// Move puts flags given before a command among its own arguments: after a
// subcommand word (memory add, sync init), before any "--".
func Move(flags, rest []string) []string {
	out := make([]string, 0, len(flags)+len(rest))
	end := slices.Index(rest, "--")
	if end < 0 {
		end = len(rest)
	}
	out = append(out, rest[:end]...)
	out = append(out, flags...)
	return append(out, rest[end:]...)
}

// Name is a flag as it is typed: --name, or -c for a one-letter one
// (as the usage lines and the README write them; the flag package takes
// either).
func Name(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// Print writes fs's flags as the usage lines write them: "--name
// VALUE", where VALUE is the usage's `BACKQUOTED` word (flag.UnquoteUsage),
// N for a number, none for a switch; then the usage, indented, and the
// default when it says something.
func Print(w io.Writer, fs *flag.FlagSet) {
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
		line := "  " + Name(f.Name)
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

// Empty says which of fs's flags args give an empty value, or "": a
// script's unset variable (`export --conversation "$ID" -o share.md`
// exported every conversation), as --data-dir "" is refused. It reads the
// words as typed: a flag's String cannot tell (a repeated --tag joins its
// values, flag.Func's is always "").
func Empty(fs *flag.FlagSet, args []string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if len(a) < 2 || a[0] != '-' {
			continue
		}
		name, value, inline := strings.Cut(strings.TrimLeft(a, "-"), "=")
		f := fs.Lookup(name)
		if f == nil {
			continue
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			continue
		}
		if !inline {
			if i+1 == len(args) {
				break // no value at all: the flag package says so
			}
			i++
			value = args[i]
		}
		if strings.TrimSpace(value) == "" {
			return fmt.Sprintf("%s %q: invalid value: empty: give a value, or leave the flag out", Name(name), value)
		}
	}
	return ""
}

// Swallowed says which flag took another flag for its value
// (`conversations --find --json lisbon` searched for "--json lisbon"),
// or "".
func Swallowed(fs *flag.FlagSet) string {
	var msg string
	fs.Visit(func(f *flag.Flag) {
		v := f.Value.String()
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); msg != "" || ok && b.IsBoolFlag() || !strings.HasPrefix(v, "-") {
			return
		}
		if name, _, _ := strings.Cut(strings.TrimLeft(v, "-"), "="); fs.Lookup(name) != nil {
			msg = fmt.Sprintf("flag needs an argument: %s (%s is a flag)", Name(f.Name), v)
		}
	})
	return msg
}

// flagInError finds the flag the flag package names in an error ("flag
// needs an argument: -tag").
var flagInError = regexp.MustCompile(`^(flag needs an argument|flag provided but not defined): -(\S+)$`)

// Error words the flag package's error about a flag with the flag as
// it is typed: "flag needs an argument: --tag", "unknown flag: --v".
func Error(err error) string {
	m := flagInError.FindStringSubmatch(err.Error())
	if m == nil {
		return err.Error()
	}
	if m[1] == "flag provided but not defined" {
		return "unknown flag: " + Name(m[2])
	}
	return m[1] + ": " + Name(m[2])
}
