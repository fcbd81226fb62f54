package cli

import (
	"context"
	"errors"
	"log"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/mneme-dev/mneme/config"
)

func envMap(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestSplitCommand(t *testing.T) {
	cases := []struct {
		args []string
		cmd  string
		rest []string
	}{
		{[]string{"ask", "hi"}, "ask", []string{"hi"}},
		{[]string{"--data-dir", "d", "search", "x"}, "search", []string{"x", "--data-dir", "d"}},
		{[]string{"--user=bob", "memory", "add", "y"}, "memory", []string{"add", "y", "--user=bob"}},
		{[]string{"--model", "m", "ask", "--", "-x"}, "ask", []string{"--model", "m", "--", "-x"}},
		{[]string{"--resume", "0123abcd", "--turn", "3"}, "", []string{"--resume", "0123abcd", "--turn", "3"}},
		{[]string{"-c"}, "", []string{"-c"}},
		{[]string{"frobnicate"}, "frobnicate", []string{}},
	}
	for _, c := range cases {
		cmd, rest := splitCommand(c.args)
		if cmd != c.cmd || strings.Join(rest, " ") != strings.Join(c.rest, " ") {
			t.Errorf("splitCommand(%q) = %q, %q; want %q, %q", c.args, cmd, rest, c.cmd, c.rest)
		}
	}
}

func TestParseArgsInterspersed(t *testing.T) {
	var common config.Flags
	a := newApp(nil, nil, &strings.Builder{}, envMap(nil))
	fs := a.newFlagSet("ask", "", &common)
	asJSON := fs.Bool("json", false, "")
	rest, err := a.parseArgs(fs, []string{"hello", "--json", "world", "--", "--not-a-flag"})
	if err != nil {
		t.Fatal(err)
	}
	if !*asJSON || strings.Join(rest, " ") != "hello world --not-a-flag" {
		t.Fatalf("json=%v rest=%q", *asJSON, rest)
	}
}

// TestAWordWithADashInTheTextIsText: `mneme ask what does tar -c do` took
// -c for --continue and asked "what does tar do" in the last conversation.
// Once the text has begun, a word with one dash is text (said on stderr
// when it is also a flag's name); flags before the text, and flags with
// two dashes after it, are flags.
func TestAWordWithADashInTheTextIsText(t *testing.T) {
	for _, c := range []struct {
		name, args, rest, said string
		cont, json             bool
	}{
		{"ask", "what does tar -c do", "what does tar -c do", "-c after the text is part of it", false, false},
		{"ask", "-c what is -5 squared --json", "what is -5 squared", "", true, true},
		{"ask", "how do I use grep -v", "how do I use grep -v", "", false, false},
		{"memory add", "Uses ls -la daily", "Uses ls -la daily", "", false, false},
		{"conversations rm", "0123abcd -json", "0123abcd", "", false, true}, // ids are no text
	} {
		var common config.Flags
		var stderr strings.Builder
		a := newApp(nil, nil, &stderr, envMap(nil))
		fs := a.newFlagSet(c.name, "", &common)
		asJSON := fs.Bool("json", false, "")
		cont := fs.Bool("continue", false, "")
		fs.BoolVar(cont, "c", false, "")
		rest, err := a.parseArgs(fs, strings.Fields(c.args))
		if err != nil || strings.Join(rest, " ") != c.rest || *cont != c.cont || *asJSON != c.json {
			t.Errorf("%s %s: rest %q, continue %v, json %v, %v", c.name, c.args, rest, *cont, *asJSON, err)
		}
		if got := stderr.String(); c.said == "" && got != "" || !strings.Contains(got, c.said) {
			t.Errorf("%s %s: stderr %q, want %q", c.name, c.args, got, c.said)
		}
	}
}

// Libraries' logs through the standard logger (Bleve's scorch) go to the
// log file once a command has opened its session, never to the terminal.
func TestLibraryLogsGoToTheLogFile(t *testing.T) {
	dir := t.TempDir()
	var stdout, stderr strings.Builder
	a := newApp(strings.NewReader(""), &stdout, &stderr, envMap(map[string]string{
		"MNEME_DATA_DIR": dir, "MNEME_USER": "tester", "XDG_CONFIG_HOME": t.TempDir(),
	}))
	s, err := a.open(context.Background(), config.Flags{})
	if err != nil {
		t.Fatal(err)
	}
	defer log.SetOutput(os.Stderr)
	log.Printf("unable to load snapshot, test, continuing")
	s.Close()
	data, err := os.ReadFile(filepath.Join(dir, "mneme.log"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), "unable to load snapshot") {
		t.Fatalf("the library's line is not in the log file:\n%s", data)
	}
}

// fullDisk is stdout on a full disk: every write fails.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// A command whose output was lost (mneme search x > /dev/full) does not
// exit 0 as if it had printed it.
func TestLostOutputIsAnError(t *testing.T) {
	dir := t.TempDir()
	env := envMap(map[string]string{"MNEME_DATA_DIR": dir, "MNEME_USER": "tester", "XDG_CONFIG_HOME": t.TempDir()})
	for _, args := range [][]string{{"version"}, {"--version"}, {"help"}, {"memory", "list"}, {"conversations"}, {"search", "--json", "x"}} {
		err := newApp(strings.NewReader(""), fullDisk{}, &strings.Builder{}, env).Run(context.Background(), args)
		if !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%v on a full disk: %v", args, err)
		}
	}
}

// A command a signal stopped exits with the signal's code, whether it was
// waiting, printing (its output then lost) or said how far it got; a real
// failure keeps its own.
func TestSignalledCommandsExitAsAShellExpects(t *testing.T) {
	for _, c := range []struct {
		err  error
		code int
		msg  string
	}{
		{nil, 130, "interrupted; what was done is kept"},
		{context.Canceled, 130, "interrupted"},
		{outputError{syscall.EPIPE}, 130, "interrupted"},
		{exitError{code: ExitInterrupted, msg: "interrupted; the partial answer was kept"}, 130, "interrupted; the partial answer was kept"},
		{exitError{code: 1, msg: "model not found"}, 1, "model not found"},
	} {
		var ex exitError
		if got := signalled(syscall.SIGINT, c.err); !errors.As(got, &ex) || ex.code != c.code || ex.msg != c.msg {
			t.Errorf("after SIGINT, %v: %v", c.err, got)
		}
	}
}

// TestABadFlagValueIsSaidAsABadSetting: a flag's value its flag refuses is
// said in one line, as a bad value from the environment or the file is
// ("--num-ctx abc: invalid value: …"), without the command's whole usage;
// an unknown flag still gets the usage.
func TestABadFlagValueIsSaidAsABadSetting(t *testing.T) {
	for _, c := range []struct {
		args        []string
		want, usage string
	}{
		{[]string{"search", "--limit", "x", "q"}, "--limit x: invalid value: want a whole number", ""},
		{[]string{"ask", "--json=maybe", "hi"}, "--json maybe: invalid value: want true or false", ""},
		{[]string{"ask", "--num-ctx", "a\x1b[31m", "hi"}, `--num-ctx "a\x1b[31m": invalid value: want a whole number of tokens`, ""},
		{[]string{"search", "--bogus", "q"}, "unknown flag: --bogus", "Usage: mneme search"},
		// A flag taken for another's value: --find searched for "--json lisbon".
		{[]string{"conversations", "--find", "--json", "lisbon"}, "flag needs an argument: --find (--json is a flag)", "Usage: mneme conversations"},
		{[]string{"ask", "--conversation", "-c", "hi"}, "flag needs an argument: --conversation (-c is a flag)", "Usage: mneme ask"},
		// A script's unset variable: every conversation was exported.
		{[]string{"export", "--conversation", "", "-o", "share.md"}, `--conversation "": invalid value: empty: give a value, or leave the flag out`, ""},
		{[]string{"search", "--since", " ", "x"}, `--since " ": invalid value: empty: give a value, or leave the flag out`, ""},
		{[]string{"memory", "add", "--tag", "", "x"}, `--tag "": invalid value: empty: give a value, or leave the flag out`, ""},
	} {
		var stderr strings.Builder
		err := newApp(strings.NewReader(""), &strings.Builder{}, &stderr, envMap(nil)).Run(context.Background(), c.args)
		var ex exitError
		if !errors.As(err, &ex) || ex.code != 2 || ex.msg != c.want || (c.usage == "") != (stderr.Len() == 0) || !strings.Contains(stderr.String(), c.usage) {
			t.Errorf("%q: %v (%q), usage %q", c.args, err, ex.msg, stderr.String())
		}
	}
}

// `mneme help` with a command's words is that command's help: `help docs
// add` showed the docs group's.
func TestHelpOfASubcommand(t *testing.T) {
	for args, want := range map[string]string{"help docs add": "Usage: mneme docs add ", "help memory list": "Usage: mneme memory list",
		"help ask": "Usage: mneme ask ", "help conversations": "mneme conversations rm [--forget-notes]",
		"memory help add": "Usage: mneme memory add ", "docs help show": "[--chunk N]"} {
		var stdout strings.Builder
		err := newApp(strings.NewReader(""), &stdout, &strings.Builder{}, envMap(nil)).Run(context.Background(), strings.Fields(args))
		if err != nil && !errors.As(err, new(exitError)) || !strings.Contains(stdout.String(), want) {
			t.Errorf("mneme %s: %v\n%s", args, err, stdout.String())
		}
	}
}

// Help asked for and lost (mneme --help > /dev/full) is not success, as
// any other output lost is not.
func TestHelpLostIsAFailure(t *testing.T) {
	for _, args := range []string{"--help", "ask -h", "help docs add", "version"} {
		err := newApp(strings.NewReader(""), fullDisk{}, &strings.Builder{}, envMap(nil)).Run(context.Background(), strings.Fields(args))
		if !errors.As(err, new(outputError)) {
			t.Errorf("mneme %s to a full disk: %v", args, err)
		}
	}
}
