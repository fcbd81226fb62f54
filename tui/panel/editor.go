package panel

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// Editing text in $EDITOR: a component writes the text to a temporary file
// in a command and sends ExternalEditMsg; the root runs msg.Exec (which
// suspends the TUI with tea.ExecProcess while the editor runs); the editor's
// end comes back as ExternalEditDoneMsg to the component, which reads the
// file back with ReadEditedFile in a command.

// ExternalEditMsg asks the root to run the user's editor on Path. Handle it
// with msg.Exec(EditorFromEnv()).
type ExternalEditMsg struct {
	// Owner says which component asked, for routing ExternalEditDoneMsg.
	Owner string
	// Key identifies what is being edited (a note id for the memory browser).
	Key  string
	Path string
}

// ExternalEditDoneMsg reports that the editor started by ExternalEditMsg
// ended. Err is set when it could not be run or exited with an error.
type ExternalEditDoneMsg struct {
	Owner string
	Key   string
	Path  string
	Err   error
}

// Exec returns the command that suspends the TUI and runs editor on the
// file; it ends with ExternalEditDoneMsg.
func (m ExternalEditMsg) Exec(editor string) tea.Cmd {
	return EditorCmd(editor, m.Path, func(err error) tea.Msg {
		return ExternalEditDoneMsg{Owner: m.Owner, Key: m.Key, Path: m.Path, Err: err}
	})
}

// EditorFromEnv is the editor the user asked for: $VISUAL, else $EDITOR,
// else vi.
func EditorFromEnv() string {
	for _, v := range []string{"VISUAL", "EDITOR"} {
		if e := strings.TrimSpace(os.Getenv(v)); e != "" {
			return e
		}
	}
	return "vi"
}

// EditorCmd runs editor (a command line such as "code --wait") on path with
// tea.ExecProcess; done turns its outcome into a message.
func EditorCmd(editor, path string, done func(error) tea.Msg) tea.Cmd {
	args := strings.Fields(editor)
	if len(args) == 0 {
		return func() tea.Msg { return done(errors.New("no editor: set $EDITOR")) }
	}
	c := exec.Command(args[0], append(args[1:], path)...) //nolint:gosec // the user's own editor
	return tea.ExecProcess(c, func(err error) tea.Msg {
		if err != nil {
			err = fmt.Errorf("editor %s: %w", args[0], err)
		}
		return done(err)
	})
}

// WriteEditFile writes text to a new private temporary file for an editor
// and returns its path. Run it in a command.
func WriteEditFile(dir, pattern, text string) (string, error) {
	f, err := os.CreateTemp(dir, pattern)
	if err != nil {
		return "", fmt.Errorf("temporary file for the editor: %w", err)
	}
	if _, err := f.WriteString(text); err != nil {
		f.Close()
		os.Remove(f.Name())
		return "", fmt.Errorf("temporary file for the editor: %w", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("temporary file for the editor: %w", err)
	}
	return f.Name(), nil
}

// ReadEditedFile reads back a file written by WriteEditFile and removes it.
// A single trailing newline, which editors add, is dropped. Run it in a
// command.
func ReadEditedFile(path string) (string, error) {
	b, err := os.ReadFile(path)
	os.Remove(path)
	if err != nil {
		return "", fmt.Errorf("read the edited text: %w", err)
	}
	s := strings.TrimSuffix(string(b), "\n")
	return strings.TrimSuffix(s, "\r"), nil
}
