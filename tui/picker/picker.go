package picker

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/progress"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

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

// ModelsKeyMap is the model picker's bindings. It implements help.KeyMap.
type ModelsKeyMap struct {
	Up      key.Binding
	Down    key.Binding
	Chat    key.Binding // use the selected model for chat
	Embed   key.Binding // use the selected model for search embeddings
	Pull    key.Binding // pull a model by name (the suggested default prefilled)
	Refresh key.Binding
	Confirm key.Binding // start the pull of the name typed
	Back    key.Binding // cancel the pull, leave the name box, or close
}

// DefaultModelsKeyMap returns the picker's default bindings.
func DefaultModelsKeyMap() ModelsKeyMap {
	return ModelsKeyMap{
		Up:      key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓", "move")),
		Down:    key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓", "next")),
		Chat:    key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "use for chat")),
		Embed:   key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "use for search")),
		Pull:    key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "pull")),
		Refresh: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "refresh")),
		Confirm: key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "pull")),
		Back:    key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close")),
	}
}

// ShortHelp is the picker's help line.
func (k ModelsKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Up, k.Chat, k.Embed, k.Pull, k.Refresh, k.Back}
}

// FullHelp lists every binding.
func (k ModelsKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down}, {k.Chat, k.Embed}, {k.Pull, k.Confirm, k.Refresh}, {k.Back}}
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

// pullState is the pull in progress.
type pullState struct {
	n      int
	name   string
	cancel context.CancelFunc
	ch     <-chan pullEvent
	status string
	layers map[string]ollama.PullProgress // by digest
	order  []string
	// The first report with a size, for the speed.
	firstAt   time.Time
	firstDone int64
	lastAt    time.Time
}

type pullEvent struct {
	progress ollama.PullProgress
	done     bool
	err      error
}

// Messages of the picker's commands.
type (
	modelsLoadedMsg struct {
		id     int64
		seq    int
		models []ollama.ModelInfo
		err    error
	}
	pullStartedMsg struct {
		id int64
		n  int
		ch <-chan pullEvent
	}
	pullMsg struct {
		id      int64
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
func (p ModelPicker) listKeys() list.KeyMap { return list.KeyMap{Up: p.keys.Up, Down: p.keys.Down} }

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
	p.chat, p.embed = chat, embed
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
	switch msg := msg.(type) {
	case modelsLoadedMsg:
		return msg.id == p.id
	case pullStartedMsg:
		return msg.id == p.id
	case pullMsg:
		return msg.id == p.id
	}
	return false
}

// SetSize sets the size the picker draws in.
func (p *ModelPicker) SetSize(width, height int) {
	p.width, p.height = width, height
	panel.FitInput(&p.name, width)
	p.bar.SetWidth(max(1, width-2))
	p.list.Scroll(p.listRows())
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
		if msg.id != p.id || p.pull == nil || msg.n != p.pull.n {
			return p, nil // cancelled meanwhile: its goroutine sees the cancelled context
		}
		p.pull.ch = msg.ch
		return p, waitPullCmd(p.id, msg.n, msg.ch)
	case pullMsg:
		if msg.id != p.id || p.pull == nil || msg.n != p.pull.n {
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
			return modelsLoadedMsg{id: id, seq: seq, err: errors.New("Ollama is not configured")}
		}
		ctx, cancel := context.WithTimeout(ctx, listTimeout)
		defer cancel()
		models, err := mgr.List(ctx)
		return modelsLoadedMsg{id: id, seq: seq, models: models, err: err}
	}
}

func (p ModelPicker) handleLoaded(msg modelsLoadedMsg) (ModelPicker, tea.Cmd) {
	if msg.id != p.id || msg.seq != p.loadSeq {
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
	p.models = msg.models
	p.list.Reset()
	for i, m := range p.models {
		if m.Name == cur {
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

// startPull starts pulling name in a goroutine of a command.
func (p *ModelPicker) startPull(name string) tea.Cmd {
	name = strings.TrimSpace(name)
	switch {
	case name == "":
		return nil
	case p.mgr == nil:
		p.setHint("Ollama is not configured: cannot pull.", true)
		return nil
	}
	p.cancelPull()
	p.done = nil
	p.pulls++
	ctx, cancel := context.WithCancel(p.clock.Context())
	p.pull = &pullState{n: p.pulls, name: name, cancel: cancel, status: "starting", layers: map[string]ollama.PullProgress{}}
	p.hint, p.hintErr = "", false
	mgr, id, n := p.mgr, p.id, p.pulls
	return func() tea.Msg {
		ch := make(chan pullEvent, 64)
		go func() {
			defer close(ch)
			err := mgr.Pull(ctx, name, func(pr ollama.PullProgress) {
				select {
				case ch <- pullEvent{progress: pr}:
				case <-ctx.Done():
				}
			})
			select {
			case ch <- pullEvent{done: true, err: err}:
			case <-ctx.Done():
			}
		}()
		return pullStartedMsg{id: id, n: n, ch: ch}
	}
}

// waitPullCmd waits for the pull's next reports: it blocks for one, then
// takes whatever else is already waiting.
func waitPullCmd(id int64, n int, ch <-chan pullEvent) tea.Cmd {
	return func() tea.Msg {
		msg := pullMsg{id: id, n: n}
		ev, ok := <-ch
		for {
			switch {
			case !ok:
				msg.done, msg.err = true, context.Canceled
				return msg
			case ev.done:
				msg.done, msg.err = true, ev.err
				return msg
			}
			msg.updates = append(msg.updates, ev.progress)
			select {
			case ev, ok = <-ch:
			default:
				return msg
			}
		}
	}
}

// cancelPull cancels the pull in progress; its late reports are dropped.
func (p *ModelPicker) cancelPull() {
	if p.pull != nil {
		p.pull.cancel()
		p.pull = nil
	}
}

func (p ModelPicker) handlePull(msg pullMsg) (ModelPicker, tea.Cmd) {
	pl := *p.pull
	pl.layers = maps.Clone(p.pull.layers)
	now := p.clock.Now()
	for _, u := range msg.updates {
		if u.Status != "" {
			pl.status = u.Status
		}
		if u.Digest != "" && u.Total > 0 {
			if _, seen := pl.layers[u.Digest]; !seen {
				pl.order = append(pl.order, u.Digest)
			}
			pl.layers[u.Digest] = u
		}
	}
	if total, done := pl.bytes(); total > 0 {
		if pl.firstAt.IsZero() {
			pl.firstAt, pl.firstDone = now, done
		}
		pl.lastAt = now
	}
	p.pull = &pl
	if !msg.done {
		return p, waitPullCmd(p.id, msg.n, pl.ch)
	}
	name := pl.name
	p.pull.cancel()
	p.pull = nil
	switch {
	case errors.Is(msg.err, context.Canceled):
		p.setHint(fmt.Sprintf("Pull of %s cancelled.", name), false)
		return p, nil
	case msg.err != nil:
		p.log.Warn("pull failed", "model", name, "err", msg.err)
		p.pullFailed = true
		what := fmt.Sprintf("Pull of %s failed", name)
		if ollama.RegistryUnreachable(msg.err) {
			what = fmt.Sprintf("Cannot download %s: the Ollama library is unreachable (offline?)", name)
		}
		p.setHint(what+": "+sanitize.Line(msg.err.Error()), true)
		return p, nil
	}
	p.setHint(fmt.Sprintf("Pulled %s.", name), false)
	p.done, p.picked = &pl, name
	return p, p.listModels()
}

// bytes sums the layers: their total size and the bytes done.
func (pl pullState) bytes() (total, done int64) {
	for _, d := range pl.order {
		l := pl.layers[d]
		total += l.Total
		done += min(l.Completed, l.Total)
	}
	return total, done
}

// PullPercent is the share done, 0-1, of the pull in progress or else of
// the last one that succeeded (0 before sizes are known).
func (p ModelPicker) PullPercent() float64 {
	pl := p.pull
	if pl == nil {
		pl = p.done
	}
	if pl == nil {
		return 0
	}
	return pl.percent()
}

func (pl pullState) percent() float64 {
	total, done := pl.bytes()
	if total <= 0 {
		return 0
	}
	return float64(done) / float64(total)
}

// Layout: a title line, the models in use, a rule and the column heads
// above the list; a rule, three rows for pulling, a hint and the help
// below.
const (
	modelsTopRows    = 4
	modelsBottomRows = 6
)

func (p ModelPicker) listRows() int {
	return max(1, p.height-modelsTopRows-modelsBottomRows-(len(p.hintLines())-1))
}

// maxHintRows bounds the rows a long hint (an error) wraps to.
const maxHintRows = 4

// hintLines is the hint wrapped to the width, never cut at the edge: a long
// error (a registry URL) is read whole. At least one row, maybe empty.
func (p ModelPicker) hintLines() []string {
	if p.hint == "" || p.width <= 0 {
		return []string{""}
	}
	lines := strings.Split(ansi.Wrap(sanitize.Line(p.hint), p.width, " /"), "\n")
	if len(lines) > maxHintRows {
		lines = lines[:maxHintRows]
		lines[maxHintRows-1] = ansi.Truncate(lines[maxHintRows-1], p.width-1, "") + "…"
	}
	return lines
}

// Cursor is where the terminal cursor goes, relative to the picker's
// top-left corner.
func (p ModelPicker) Cursor() *tea.Cursor {
	if !p.naming {
		return nil
	}
	return panel.OffsetCursor(p.name.Cursor(), 0, p.height-modelsBottomRows+2)
}

// View draws the picker in exactly its size.
func (p ModelPicker) View() string {
	if p.width <= 0 || p.height <= 0 {
		return ""
	}
	w := p.width
	status := ""
	if p.loading {
		status = p.st.Hint.Render("loading…")
	} else if p.loadErr == nil {
		status = p.st.Count.Render(fmt.Sprintf("%d installed", len(p.models)))
	}
	role := func(label, name string) string {
		if name == "" {
			return p.st.Dim.Render(label+" ") + p.st.Hint.Render("none")
		}
		return p.st.Dim.Render(label+" ") + p.st.Selected.Render(sanitize.Line(name))
	}
	embed := role("search", p.embed)
	if p.embed == "" {
		embed = p.st.Dim.Render("search ") + p.st.Hint.Render("keywords only")
	}
	nameW, capW := p.columns()
	top := []string{
		panel.TitleLine(w, p.st.Title.Render("Models"), status),
		ansi.Truncate(role("chat", p.chat)+p.st.Dim.Render("  ·  ")+embed, w, "…"),
		p.st.Rule.Render(strings.Repeat("─", w)),
		p.st.Dim.Render("  " + pad("NAME", nameW) + "  " + padLeft("SIZE", 8) + "  " + pad("CAPABILITIES", capW)),
	}
	rows := append(top, p.listView(nameW, capW))
	rows = append(rows, p.st.Rule.Render(strings.Repeat("─", w)), p.pullView())
	if p.height < modelsTopRows+modelsBottomRows {
		return panel.Block(rows, w, p.height)
	}
	hints := p.hintLines()
	out := panel.Block(rows, w, p.height-1-len(hints))
	st := p.st.Hint
	if p.hintErr {
		st = p.st.Error
	}
	for i, l := range hints {
		if l != "" {
			hints[i] = st.Render(l)
		}
	}
	hint := strings.Join(hints, "\n")
	help := []key.Binding{p.keys.Up, p.keys.Chat, p.keys.Embed, p.keys.Pull, p.keys.Refresh, p.keys.Back}
	switch {
	case p.naming:
		cancel := p.keys.Back
		cancel.SetHelp("esc", "cancel")
		help = []key.Binding{p.keys.Confirm, cancel}
	case p.pull != nil:
		cancel := p.keys.Back
		cancel.SetHelp("esc", "cancel pull")
		help = []key.Binding{cancel, p.keys.Up, p.keys.Chat, p.keys.Embed}
	}
	return out + "\n" + hint + "\n" + panel.HelpLine(p.st, w, help)
}

// columns sizes the name and capability columns to the width.
func (p ModelPicker) columns() (nameW, capW int) {
	nameW = len("NAME")
	for _, m := range p.models {
		nameW = max(nameW, lipgloss.Width(sanitize.Line(m.Name)))
	}
	// marker, size and gaps, and room for the role tag.
	rest := p.width - 2 - 2 - 8 - 2 - 10
	nameW = max(8, min(nameW, rest*3/5))
	capW = max(0, rest-nameW)
	return nameW, capW
}

func pad(s string, w int) string {
	s = ansi.Truncate(s, w, "…")
	return s + strings.Repeat(" ", max(0, w-lipgloss.Width(s)))
}

func padLeft(s string, w int) string {
	return strings.Repeat(" ", max(0, w-lipgloss.Width(s))) + s
}

func (p ModelPicker) listView(nameW, capW int) string {
	h := p.listRows()
	msg := func(st lipgloss.Style, text string) string {
		return panel.Block([]string{st.Width(p.width).Render(text)}, p.width, h)
	}
	switch {
	case p.loadErr != nil:
		return msg(p.st.Error, "Cannot list models: "+sanitize.Line(p.loadErr.Error()))
	case len(p.models) == 0 && p.loading:
		return msg(p.st.Dim, "Listing models…")
	case len(p.models) == 0:
		return msg(p.st.Dim, "No models installed in Ollama yet.")
	}
	rows := p.list.Rows(len(p.models), h, func(i int, selected bool) string {
		return p.modelRow(p.models[i], selected, nameW, capW)
	})
	return panel.Block(rows, p.width, h)
}

func (p ModelPicker) modelRow(m ollama.ModelInfo, selected bool, nameW, capW int) string {
	marker, name := p.st.List.Prefix(selected)
	var caps []string
	for _, c := range m.Capabilities {
		if c != ollama.CapCompletion {
			caps = append(caps, c)
		}
	}
	var tags []string
	if p.chat != "" && ollama.SameModel(m.Name, p.chat) {
		tags = append(tags, "✓ chat")
	}
	if p.embed != "" && ollama.SameModel(m.Name, p.embed) {
		tags = append(tags, "✓ search")
	}
	row := marker + name.Render(pad(sanitize.Line(m.Name), nameW)) + "  " +
		p.st.Dim.Render(padLeft(panel.FormatBytes(m.Size), 8)) + "  " +
		p.st.Text.Render(pad(strings.Join(caps, ", "), capW))
	return panel.TitleLine(p.width, row, p.st.Ok.Render(strings.Join(tags, " ")))
}

// pullView is three rows: the pull's progress, the name box, or an offer
// to pull what is missing.
func (p ModelPicker) pullView() string {
	w := p.width
	switch {
	case p.pull != nil:
		pl := p.pull
		head := p.st.Title.Render("Pulling "+sanitize.Line(pl.name)) + p.st.Dim.Render(" · "+sanitize.Line(pl.status))
		total, done := pl.bytes()
		bar := p.bar.ViewAs(pl.percent())
		stats := p.st.Dim.Render("waiting for the download to start…")
		if total > 0 {
			s := fmt.Sprintf("%s / %s · %.0f%%", panel.FormatBytes(done), panel.FormatBytes(total), pl.percent()*100)
			if elapsed := pl.lastAt.Sub(pl.firstAt); elapsed > 0 && done > pl.firstDone && done < total {
				rate := float64(done-pl.firstDone) / elapsed.Seconds()
				s += fmt.Sprintf(" · %s/s · ETA %s", panel.FormatBytes(int64(rate)),
					panel.FormatDuration(time.Duration(float64(total-done)/rate*float64(time.Second))))
			}
			stats = p.st.Text.Render(s)
		}
		return panel.Block([]string{head, "  " + bar, "  " + stats}, w, 3)
	case p.naming:
		return panel.Block([]string{
			p.st.Dim.Render("Pull a model from the Ollama library (ollama.com/library):"),
			p.name.View(),
			"",
		}, w, 3)
	}
	var lines []string
	if p.done != nil {
		total, _ := p.done.bytes()
		lines = append(lines, p.st.Ok.Render(fmt.Sprintf("✓ Pulled %s (%s).", sanitize.Line(p.done.name), panel.FormatBytes(total))))
	}
	if len(p.models) > 0 || !p.loading {
		hasChat, hasEmbed := false, false
		for _, m := range p.models {
			hasChat = hasChat || m.CanChat()
			hasEmbed = hasEmbed || m.CanEmbed()
		}
		if !hasChat && p.loadErr == nil {
			lines = append(lines, p.st.Hint.Render(fmt.Sprintf("No chat model installed: press p to pull %s.", ollama.DefaultChatModel)))
		}
		switch {
		case hasEmbed || p.loadErr != nil:
		case p.pullFailed:
			lines = append(lines, p.st.Hint.Render(fmt.Sprintf(
				"Search uses keywords until an embedding model is installed: run `ollama pull %s`.", ollama.DefaultEmbedModel)))
		default:
			lines = append(lines, p.st.Hint.Render(fmt.Sprintf("No embedding model: press p to pull %s.", ollama.DefaultEmbedModel)))
		}
	}
	if len(lines) == 0 {
		lines = append(lines, p.st.Dim.Render("p pulls another model from the Ollama library."))
	}
	for i := range lines {
		lines[i] = ansi.Wrap(lines[i], w, " ") // read whole, not cut at the edge
	}
	return panel.Block(lines, w, 3)
}
