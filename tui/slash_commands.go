package tui

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/mneme-dev/mneme/memory/mdexport"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/internal/ollama"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/paths"
	"github.com/mneme-dev/mneme/tui/picker"
	"github.com/mneme-dev/mneme/tui/styles"
)

// The slash commands added with the full chat screen, and what they share
// with keys: composing in $EDITOR, copying, exporting, choosing models, the
// light or dark theme.

func (m *Model) slashNew(string) tea.Cmd {
	m.input.Reset()
	return m.newConversation()
}

func (m *Model) slashSearch(args string) tea.Cmd {
	m.input.Reset()
	return m.openSearch(args)
}

func (m *Model) slashMemory(string) tea.Cmd {
	m.input.Reset()
	return m.openMemory()
}

// slashModel opens the model picker; "/model pull NAME" also pulls NAME.
func (m *Model) slashModel(args string) tea.Cmd {
	verb, name, _ := strings.Cut(strings.TrimSpace(args), " ")
	switch {
	case args == "":
	case strings.EqualFold(verb, "pull") && strings.TrimSpace(name) != "":
		name = strings.TrimSpace(name)
		if !ollama.ValidName(name) {
			m.hint = fmt.Sprintf("Not a model name: %q (such as llama3.2 or qwen2.5:7b).", sanitize.Line(name))
			return nil
		}
	default:
		m.hint = "Usage: /model, or /model pull NAME"
		return nil
	}
	m.input.Reset()
	return m.openModels(name)
}

func (m *Model) slashRename(args string) tea.Cmd { return m.renameCurrent(strings.TrimSpace(args)) }

func (m *Model) slashArchive(string) tea.Cmd { return m.archiveCurrent() }

func (m *Model) slashQuit(string) tea.Cmd {
	m.input.Reset()
	if m.run != nil {
		m.run.cancel()
	}
	return tea.Quit
}

// openHelp shows the full key help over whatever is open.
func (m *Model) openHelp() {
	m.helpView.SetSize(m.width, m.bodyHeight())
	m.helpView.Open(helpRows(m.st, m.keys, m.help, m.helpView.Width()))
	m.helpOpen = true
}

// slashCopy copies the last answer to the clipboard with OSC 52, which
// works over SSH and in tmux (with set-clipboard on).
func (m *Model) slashCopy(string) tea.Cmd {
	text := m.transcript.LastAnswer()
	m.input.Reset()
	if strings.TrimSpace(text) == "" {
		m.hint = "There is no answer to copy yet."
		return nil
	}
	// Whether the terminal took it cannot be known: said as what was done.
	m.hint = fmt.Sprintf("Sent the last answer (%d characters) to the terminal's clipboard (OSC 52; tmux needs set-clipboard on).", len([]rune(text)))
	return tea.SetClipboard(text)
}

// exportedMsg reports an export.
type exportedMsg struct {
	path string
	err  error
}

// slashExport writes the conversation as markdown to FILE, by default
// mneme-<title>-<id>.md in the current directory. An existing file is
// never overwritten.
func (m *Model) slashExport(args string) tea.Cmd {
	ex, ok := m.store.(mdexport.Source)
	switch {
	case !ok:
		m.hint = "Exporting is not available here."
		return nil
	case m.convID == "":
		m.input.Reset() // said, and done with: the next command starts afresh
		m.hint = "Nothing to export yet: the conversation has not started."
		return nil
	}
	path, name := strings.TrimSpace(args), paths.ExportName(m.title, m.convID)
	m.input.Reset()
	ctx, user, id := m.life.ctx, m.userID, m.convID
	return func() tea.Msg {
		f, abs, err := paths.Create(path, name)
		if err != nil {
			return exportedMsg{path: abs, err: err}
		}
		err = mdexport.Export(ctx, ex, user, id, f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			os.Remove(abs)
		}
		return exportedMsg{path: abs, err: err}
	}
}

func (m *Model) handleExported(msg exportedMsg) {
	switch {
	case errors.Is(msg.err, fs.ErrExist):
		m.hint = "Not exported: " + sanitize.Line(msg.path) + " exists, and /export never writes over a file; give another name, or a folder."
		return
	case msg.err != nil:
		m.hint = "Export failed: " + msg.err.Error()
		return
	}
	m.hint = "Exported to " + msg.path
}

// composeOwner tags the editor started by Ctrl+E.
const composeOwner = "compose"

// composedMsg carries the message written in the editor.
type composedMsg struct {
	text string
	err  error
}

// compose opens the input's text in the user's editor; what is saved there
// replaces the input (it is not sent: Enter sends it).
func (m *Model) compose() tea.Cmd {
	text, dir := m.input.Value(), m.cfg.TempDir
	return func() tea.Msg {
		path, err := panel.WriteEditFile(dir, "mneme-message-*.md", text)
		if err != nil {
			return composedMsg{err: err}
		}
		return panel.ExternalEditMsg{Owner: composeOwner, Path: path}
	}
}

// handleComposeDone reads the composed message back.
func (m *Model) handleComposeDone(msg panel.ExternalEditDoneMsg) tea.Cmd {
	if msg.Owner != composeOwner {
		return nil // the memory browser's, routed by Owns
	}
	path, err := msg.Path, msg.Err
	return func() tea.Msg {
		text, rerr := panel.ReadEditedFile(path)
		if err == nil {
			err = rerr
		}
		return composedMsg{text: text, err: err}
	}
}

func (m *Model) handleComposed(msg composedMsg) {
	if msg.err != nil {
		m.hint = "The editor failed: " + msg.err.Error()
		return
	}
	m.input.Reset()
	m.hint = m.input.Paste(msg.text)
}

// modelsSavedMsg reports that the chosen models were saved.
type modelsSavedMsg struct {
	chat, embed, overridden string
	err                     error
}

// chooseModels saves the models chosen in the picker, then probes Ollama
// again so that the chat and search use them.
func (m *Model) chooseModels(msg picker.ModelChosenMsg) tea.Cmd {
	save := m.cfg.SaveModels
	return func() tea.Msg {
		var over string
		var err error
		if save != nil {
			over, err = save(msg.Chat, msg.Embed)
		}
		return modelsSavedMsg{chat: msg.Chat, embed: msg.Embed, overridden: over, err: err}
	}
}

func (m *Model) handleModelsSaved(msg modelsSavedMsg) tea.Cmd {
	switch {
	case msg.err != nil:
		m.log.Warn("saving the models failed", "err", msg.err)
		m.hint = "Could not save the models to the config file: " + msg.err.Error()
	case m.cfg.SaveModels == nil:
		m.hint = "Models chosen for this session."
	case msg.overridden != "":
		m.hint = "Models saved to the config file; at the next start " + sanitize.Line(msg.overridden) + " wins over it (unset it to keep this choice)."
	default:
		m.hint = "Models saved to the config file."
	}
	if m.probing {
		return nil
	}
	m.probing = true
	return probeCmd(m.life.ctx, m.probeFn)
}

// offerModels opens the model picker once when Ollama has no chat model,
// or, on a first run, no embedding model: the picker offers to pull one.
// Offline (the model library is unreachable), a pull cannot work: one line
// says what that means and how to fix it later, and the picker stays shut.
func (m *Model) offerModels(p Probe) tea.Cmd {
	if m.offered || !p.Reachable || m.cfg.Models == nil || m.top() != nil {
		return nil
	}
	if p.Model != "" && (p.EmbedModel != "" || !m.cfg.FirstRun) {
		return nil
	}
	m.offered = true
	if p.Offline != nil {
		m.log.Warn("the model library is unreachable; not offering downloads", "err", p.Offline)
		m.transcript.AddNotice(offlineNotice(p))
		m.transcript.Refresh(m.now(), true)
		return nil
	}
	return m.openModels("")
}

// offlineNotice says, when models cannot be downloaded, what works without
// the missing one and how to install it once online.
func offlineNotice(p Probe) string {
	if p.Model == "" {
		return fmt.Sprintf("Offline: no chat model is installed, and Ollama's model library cannot be reached. "+
			"Once online, run `ollama pull %s`, or /model pull %s here.", ollama.DefaultChatModel, ollama.DefaultChatModel)
	}
	return fmt.Sprintf("Offline: search uses keywords until an embedding model is installed. "+
		"Once online, run `ollama pull %s`, or /model pull %s here.", ollama.DefaultEmbedModel, ollama.DefaultEmbedModel)
}

// setTheme switches the styles to a light or a dark background, as the
// terminal reports it.
func (m *Model) setTheme(dark bool) {
	if m.st.Dark == dark {
		return
	}
	*m.st = styles.New(dark)
	m.help.Styles = m.st.Help
	m.spin.Style = m.st.Spinner
	m.input.Restyle(m.st.Input)
	m.transcript.Restyle()
	m.sidebar.Restyle()
	if !m.isOpen(m.search) {
		m.search = newSearchPanel(m.life.ctx, m.st, m.cfg, m.keys)
	}
	if !m.isOpen(m.memory) {
		m.memory = newMemoryPanel(m.life.ctx, m.st, m.cfg, m.keys)
	}
	if !m.isOpen(m.models) && !m.models.Pulling() {
		m.models = newModelsPanel(m.life.ctx, m.st, m.cfg, m.keys)
	}
	if !m.isOpen(m.docs) {
		m.docs = newDocsPanel(m.life.ctx, m.st, m.cfg, m.keys)
	}
	if !m.isOpen(m.sources) {
		m.sources = newSourcesPanel(m.st, m.keys)
	}
	m.panelSize = [2]int{}
}
