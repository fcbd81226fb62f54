package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/internal/sanitize"
)

// A slash command is typed in the input as "/name args" and sent with
// Enter; it runs instead of being sent to the model. "//text" sends
// "/text" as a message.

// slashCommand is one command of the table below.
type slashCommand struct {
	name string
	args string // how its arguments are shown in help ("" for none)
	// needsArgs says the command cannot run without its arguments, so
	// completing it waits for them.
	needsArgs bool
	help      string
	run       func(m *Model, args string) tea.Cmd
}

// slashCommands is every command, in the order help and completion list
// them (slash_commands.go has the newer ones).
func slashCommands() []slashCommand {
	return []slashCommand{
		{name: "new", help: "start a new conversation", run: (*Model).slashNew},
		{name: "search", args: "[QUERY]", help: "search all conversations; enter opens the turn", run: (*Model).slashSearch},
		{name: "memory", help: "browse, edit and delete the notes mneme keeps", run: (*Model).slashMemory},
		{name: "undo", help: "undo the last change to your notes (what was just learnt, or an edit)", run: (*Model).slashUndo},
		{name: "switch", args: "DESCRIPTION", needsArgs: true, help: "switch to the conversation a description is about", run: (*Model).slashSwitch},
		{name: "model", args: "[pull NAME]", help: "choose the chat and embedding models, or pull one", run: (*Model).slashModel},
		{name: "compact", help: "summarise the conversation so far, to free the model's context", run: (*Model).slashCompact},
		{name: "rename", args: "TITLE", needsArgs: true, help: "rename this conversation", run: (*Model).slashRename},
		{name: "archive", help: "archive this conversation (again: unarchive it)", run: (*Model).slashArchive},
		{name: "incognito", help: "a new chat that keeps nothing: not stored, learnt or synced", run: (*Model).slashIncognito},
		{name: "export", args: "[FILE]", help: "write this conversation to a markdown file", run: (*Model).slashExport},
		{name: "copy", help: "copy the last answer to the clipboard", run: (*Model).slashCopy},
		{name: "docs", help: "browse, search, read and remove your documents", run: (*Model).slashDocs},
		{name: "attach", args: "PATH", needsArgs: true, help: "add a document (PDF, markdown, text…) for the model to search", run: (*Model).slashAttach},
		{name: "sources", help: "the sources the last answer cites; enter reads a passage", run: (*Model).slashSources},
		{name: "help", help: "show every key and command", run: (*Model).slashHelp},
		{name: "quit", help: "leave mneme", run: (*Model).slashQuit},
	}
}

// usage is how a command is written: "/switch DESCRIPTION".
func (c slashCommand) usage() string {
	if c.args == "" {
		return "/" + c.name
	}
	return "/" + c.name + " " + c.args
}

// parseSlash splits "/name args". ok is false for text that is not a
// command: not starting with "/", or starting with "//".
func parseSlash(text string) (name, args string, ok bool) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "/") || strings.HasPrefix(text, "//") || len(text) < 2 {
		return "", "", false
	}
	name, _, _ = strings.Cut(text[1:], " ")
	name, _, _ = strings.Cut(name, "\n")
	return strings.ToLower(name), strings.TrimSpace(strings.TrimPrefix(text[1:], name)), true
}

// runSlash runs the input as a command when it is one; ok reports whether
// it was (an unknown command is one too: the user is told). A command
// that is accepted clears the input.
func (m *Model) runSlash(text string) (cmd tea.Cmd, ok bool) {
	if strings.HasPrefix(strings.TrimSpace(text), "//") {
		m.input.Reset()
		m.input.Paste(strings.TrimPrefix(strings.TrimSpace(text), "/"))
		return nil, false
	}
	name, args, ok := parseSlash(text)
	if !ok {
		return nil, false
	}
	for _, c := range slashCommands() {
		if c.name == name && c.args == "" && args != "" {
			// Words after a command that takes none would be lost ("/new
			// plan the trip" started an empty conversation): they stay to
			// be sent on their own.
			m.hint = fmt.Sprintf("Usage: %s, with nothing after it.", c.usage())
			return nil, true
		}
		if c.name == name {
			return c.run(m, args), true
		}
	}
	m.hint = fmt.Sprintf("Unknown command /%s: /help lists the commands.", sanitize.Line(name))
	return nil, true
}

// commandBusy tells why a command cannot run now ("" when it can).
func (m *Model) commandBusy() string {
	switch {
	case m.loading:
		return hintLoading
	case m.phase != phaseIdle:
		return hintBusy
	}
	return ""
}

// slashHelp shows the key help with the commands (as F1 does).
func (m *Model) slashHelp(string) tea.Cmd {
	m.input.Reset()
	m.openHelp()
	return nil
}

// slashCompact summarises the conversation so far (all but its last turn).
func (m *Model) slashCompact(string) tea.Cmd {
	if why := m.commandBusy(); why != "" {
		m.hint = why
		return nil
	}
	c, ok := m.runner.(Compactor)
	switch {
	case m.convID == "":
		m.input.Reset() // said, and done with: the next command starts afresh
		m.hint = "Nothing to compact yet: the conversation has not started."
		return nil
	case !m.ready():
		m.hint = "Ollama is not ready: compacting needs the model."
		return nil
	case !ok:
		m.hint = "Compaction is not available here."
		return nil
	}
	m.input.Reset()
	return m.startJob(compactRunner{c}, m.convID, "")
}

// slashSwitch finds the conversation a description is about: one clear
// match is opened at once, several close ones are offered as a choice.
func (m *Model) slashSwitch(args string) tea.Cmd {
	if why := m.commandBusy(); why != "" {
		m.hint = why
		return nil
	}
	if strings.TrimSpace(args) == "" {
		m.hint = "Usage: /switch DESCRIPTION, e.g. /switch the chat where we planned the Lisbon trip"
		return nil
	}
	if m.find == nil {
		m.hint = "Switching by description is not available here."
		return nil
	}
	m.input.Reset()
	m.hint = "Looking for “" + sanitize.Line(args) + "”…"
	return findCmd(m.life.ctx, m.find, m.userID, args)
}
