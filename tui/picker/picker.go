package picker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/progress"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/internal/ollama"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/tui/list"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/styles"
)

// ModelManager lists and pulls Ollama models. Pull calls progress for
// every report and returns when the pull ends: nil on success, ctx's error
// when it was cancelled.
type ModelManager interface {
	List(ctx context.Context) ([]ollama.ModelInfo, error)
	Pull(ctx context.Context, name string, progress func(ollama.PullProgress)) error
}

// ModelChosenMsg tells the root the models chosen in the picker, so that
// it uses them and saves them to the config file. Either may be "" when
// none is chosen.
type ModelChosenMsg struct {
	Chat  string
	Embed string
}

// ModelsConfig is what the model picker needs.
type ModelsConfig struct {
	Manager ModelManager
	// Context bounds listing and pulling (the program's lifetime).
	Context context.Context
	// Now defaults to time.Now; it times the pull for its speed and ETA.
	Now func() time.Time
	// Log receives the full error of a failed pull (nil: discarded).
	Log *slog.Logger
}

// listTimeout bounds one listing of the models.
const listTimeout = 15 * time.Second

// ModelPicker lists the installed models with their capabilities and
// sizes, chooses the chat and the embedding model (ModelChosenMsg), and
// pulls models with a progress bar fed by /api/pull. A pull runs in a
// goroutine that reports through a channel; Esc cancels its context.
type ModelPicker struct {
	st    styles.Panel
	keys  ModelsKeyMap
	clock panel.Clock
	mgr   ModelManager
	log   *slog.Logger
	id    int64

	chat, embed string // the models in use
	opened      bool   // just opened: the list lands on the chat model once listed

	models  []ollama.ModelInfo
	loading bool
	loadErr error
	loadSeq int
	list    list.Model

	naming bool // the pull name box has the keys
	name   textinput.Model
	pull   *pullState
	done   *pullState // the last pull, once it succeeded: shown until the next
	pulls  int        // numbers pulls, so that a cancelled one's reports are dropped
	picked string     // a model just pulled: chosen for its role once listed, if the role is empty

	bar     progress.Model
	hint    string
	hintErr bool
	// pullFailed is set once a pull failed (no registry, a wrong name):
	// the offer to pull gives way to how search works without one.
	pullFailed bool

	width, height int
}

// Messages of the picker's commands.
type (
	modelsLoadedMsg struct {
		panel.To
		seq    int
		models []ollama.ModelInfo
		err    error
	}
	pullStartedMsg struct {
		panel.To
		n  int
		ch <-chan pullEvent
	}
	pullMsg struct {
		panel.To
		n       int
		updates []ollama.PullProgress
		done    bool
		err     error
	}
)

// NewModelPicker returns a closed model picker drawn with st.
func NewModelPicker(st *styles.Styles, cfg ModelsConfig) ModelPicker {
	ost := styles.NewPanel(st)
	p := ModelPicker{
		st:    ost,
		keys:  DefaultModelsKeyMap(),
		clock: panel.NewClock(cfg.Context, cfg.Now, nil),
		mgr:   cfg.Manager,
		log:   cmp.Or(cfg.Log, slog.New(slog.DiscardHandler)),
		id:    panel.NextID(),
		name:  panel.NewInput(ost, "pull › ", "model name, e.g. "+ollama.DefaultChatModel),
		bar: progress.New(
			progress.WithColors(ost.Bar.Full.GetForeground()),
			progress.WithFillCharacters('█', '░'),
			progress.WithoutPercentage(),
		),
	}
	p.bar.EmptyColor = ost.Bar.Empty.GetForeground()
	p.list = list.New(p.listKeys())
	return p
}

// KeyMap returns the picker's bindings, for the full help.
func (p ModelPicker) KeyMap() ModelsKeyMap { return p.keys }

// SetKeyMap replaces the picker's bindings.
func (p *ModelPicker) SetKeyMap(k ModelsKeyMap) {
	p.keys = k
	p.list.SetKeyMap(p.listKeys())
}

// listKeys are the bindings that move through the models (no paging).
func (p ModelPicker) listKeys() list.KeyMap { return p.keys.KeyMap }

// Restyle draws the picker with st from now on, keeping its state (a pull
// in progress goes on).
func (p *ModelPicker) Restyle(st *styles.Styles) {
	p.st = styles.NewPanel(st)
	p.name.SetStyles(p.st.Input)
	p.bar.FullColor = p.st.Bar.Full.GetForeground()
	p.bar.EmptyColor = p.st.Bar.Empty.GetForeground()
}

// SetClock replaces the clock that times pulls (nil keeps the current one).
func (p *ModelPicker) SetClock(now func() time.Time) { p.clock = p.clock.With(now, nil) }

// Models are the installed models listed.
func (p ModelPicker) Models() []ollama.ModelInfo { return p.models }

// Pulling reports whether a pull is in progress.
func (p ModelPicker) Pulling() bool { return p.pull != nil }

// InputFocused reports whether typing goes to the pull name box.
func (p ModelPicker) InputFocused() bool { return p.naming }

// Open shows the picker with the models in use and lists the installed
// ones. A pull in progress goes on.
func (p ModelPicker) Open(chat, embed string) (ModelPicker, tea.Cmd) {
	p.chat, p.embed, p.opened = chat, embed, true
	p.naming, p.hint, p.hintErr = false, "", false
	p.name.Blur()
	return p, p.listModels()
}

// StartPull starts pulling name (for "/model pull NAME" or a first-run
// offer).
func (p ModelPicker) StartPull(name string) (ModelPicker, tea.Cmd) {
	return p, p.startPull(name)
}

// Owns reports whether msg is one of the picker's own messages, which the
// root must pass to Update.
func (p ModelPicker) Owns(msg tea.Msg) bool {
	return panel.Addressed(msg, p.id)
}

// SetSize sets the size the picker draws in.
func (p *ModelPicker) SetSize(width, height int) {
	p.width, p.height = width, height
	panel.FitInput(&p.name, width)
	p.bar.SetWidth(max(1, width-2))
	p.list.Clamp(len(p.models), p.listRows())
}

// Update handles keys, pastes, the listing and the pull's reports.
func (p ModelPicker) Update(msg tea.Msg) (ModelPicker, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return p.handleKey(msg)
	case tea.PasteMsg:
		if p.naming {
			msg.Content = sanitize.Line(msg.Content)
			var cmd tea.Cmd
			p.name, cmd = p.name.Update(msg)
			return p, cmd
		}
	case modelsLoadedMsg:
		return p.handleLoaded(msg)
	case pullStartedMsg:
		if msg.ID != p.id || p.pull == nil || msg.n != p.pull.n {
			return p, nil // cancelled meanwhile: its goroutine sees the cancelled context
		}
		p.pull.ch = msg.ch
		return p, waitPullCmd(p.id, msg.n, msg.ch)
	case pullMsg:
		if msg.ID != p.id || p.pull == nil || msg.n != p.pull.n {
			return p, nil // a cancelled pull
		}
		return p.handlePull(msg)
	}
	return p, nil
}

func (p ModelPicker) handleKey(msg tea.KeyPressMsg) (ModelPicker, tea.Cmd) {
	if p.naming {
		switch {
		case key.Matches(msg, p.keys.Back):
			p.naming = false
			p.name.Blur()
			return p, nil
		case key.Matches(msg, p.keys.Confirm):
			name := strings.TrimSpace(p.name.Value())
			if name == "" {
				return p, nil
			}
			p.naming = false
			p.name.Blur()
			return p, p.startPull(name)
		}
		var cmd tea.Cmd
		p.name, cmd = p.name.Update(msg)
		return p, cmd
	}
	switch {
	case key.Matches(msg, p.keys.Back):
		if p.pull != nil {
			name := p.pull.name
			p.cancelPull()
			p.setHint(fmt.Sprintf("Pull of %s cancelled.", name), false)
			return p, nil
		}
		return p, panel.Close
	case p.list.Update(msg, len(p.models), p.listRows()):
	case key.Matches(msg, p.keys.Chat):
		return p.choose(false)
	case key.Matches(msg, p.keys.Embed):
		return p.choose(true)
	case key.Matches(msg, p.keys.Refresh):
		return p, p.listModels()
	case key.Matches(msg, p.keys.Pull):
		if p.pull != nil {
			p.setHint("A pull is already running: esc cancels it.", false)
			return p, nil
		}
		p.naming, p.hint, p.done = true, "", nil
		p.name.SetValue(p.suggestion())
		p.name.CursorEnd()
		return p, p.name.Focus()
	}
	return p, nil
}

// choose uses the selected model for chat or for embeddings.
func (p ModelPicker) choose(embed bool) (ModelPicker, tea.Cmd) {
	if p.list.Index() >= len(p.models) {
		return p, nil
	}
	m := p.models[p.list.Index()]
	switch {
	case embed && !m.CanEmbed():
		p.setHint(fmt.Sprintf("%s does not make embeddings: choose an embedding model for search.", m.Name), true)
		return p, nil
	case !embed && !m.CanChat():
		p.setHint(fmt.Sprintf("%s cannot chat: it is an embedding model (e uses it for search).", m.Name), true)
		return p, nil
	case embed:
		p.embed = m.Name
		p.setHint(fmt.Sprintf("Search now uses %s.", m.Name), false)
	default:
		p.chat = m.Name
		p.setHint(fmt.Sprintf("Chat now uses %s.", m.Name), false)
	}
	return p, panel.Emit(ModelChosenMsg{Chat: p.chat, Embed: p.embed})
}

func (p *ModelPicker) setHint(s string, isErr bool) { p.hint, p.hintErr = s, isErr }

// suggestion is the model to offer pulling: the default chat model when no
// model can chat, else the default embedding model when none embeds.
func (p ModelPicker) suggestion() string {
	chat, embed := false, false
	for _, m := range p.models {
		chat = chat || m.CanChat()
		embed = embed || m.CanEmbed()
	}
	switch {
	case !chat:
		return ollama.DefaultChatModel
	case !embed:
		return ollama.DefaultEmbedModel
	}
	return ""
}

// listModels lists the installed models in a command.
func (p *ModelPicker) listModels() tea.Cmd {
	p.loading = true
	p.loadSeq++
	mgr, ctx, id, seq := p.mgr, p.clock.Context(), p.id, p.loadSeq
	return func() tea.Msg {
		if mgr == nil {
			return modelsLoadedMsg{To: panel.To{ID: id}, seq: seq, err: errors.New("Ollama is not configured")}
		}
		ctx, cancel := context.WithTimeout(ctx, listTimeout)
		defer cancel()
		models, err := mgr.List(ctx)
		return modelsLoadedMsg{To: panel.To{ID: id}, seq: seq, models: models, err: err}
	}
}

func (p ModelPicker) handleLoaded(msg modelsLoadedMsg) (ModelPicker, tea.Cmd) {
	if msg.ID != p.id || msg.seq != p.loadSeq {
		return p, nil
	}
	p.loading, p.loadErr = false, msg.err
	if msg.err != nil {
		return p, nil
	}
	cur := ""
	if p.list.Index() < len(p.models) {
		cur = p.models[p.list.Index()].Name
	}
	if p.opened { // the model in use, not the first listed
		cur, p.opened = p.chat, false
	}
	p.models = msg.models
	p.list.Reset()
	for i, m := range p.models {
		if ollama.SameModel(m.Name, cur) {
			p.list.Select(i)
		}
	}
	p.list.Scroll(p.listRows())
	if p.picked == "" {
		return p, nil
	}
	// A model just pulled takes an empty role.
	name := p.picked
	p.picked = ""
	for i, m := range p.models {
		if !ollama.SameModel(m.Name, name) {
			continue
		}
		p.list.Select(i)
		p.list.Scroll(p.listRows())
		changed := false
		if p.chat == "" && m.CanChat() {
			p.chat, changed = m.Name, true
		}
		if p.embed == "" && m.CanEmbed() {
			p.embed, changed = m.Name, true
		}
		if changed {
			return p, panel.Emit(ModelChosenMsg{Chat: p.chat, Embed: p.embed})
		}
	}
	return p, nil
}
