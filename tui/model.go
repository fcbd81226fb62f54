package tui

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/internal/text"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/tui/choice"
	"github.com/mneme-dev/mneme/tui/confirm"
	"github.com/mneme-dev/mneme/tui/keyhelp"
	"github.com/mneme-dev/mneme/tui/panel"
	"github.com/mneme-dev/mneme/tui/paths"
	"github.com/mneme-dev/mneme/tui/picker"
	"github.com/mneme-dev/mneme/tui/prompt"
	"github.com/mneme-dev/mneme/tui/sidebar"
	"github.com/mneme-dev/mneme/tui/statusline"
	"github.com/mneme-dev/mneme/tui/styles"
	"github.com/mneme-dev/mneme/tui/transcript"
	"github.com/mneme-dev/mneme/tui/undo"
)

// phase is where the model is in sending a prompt.
type phase int

const (
	phaseIdle     phase = iota
	phaseProbing        // checking Ollama again before sending
	phaseCreating       // creating the conversation for the first prompt
	phaseRunning        // an answer is being generated
)

// escGrace is how soon after an esc that closed a panel another esc is
// taken for the same double press, and asks before it stops the answer.
const escGrace = time.Second

// maxAlertRows bounds the Ollama problem, and a hint, shown above the input.
const maxAlertRows = 3

// Hints shown above the input.
const (
	hintQuitAgain      = "Generation stopped: press Ctrl+C again to quit."
	hintQuitClosed     = "Closed: press Ctrl+C again to quit."
	hintQuitCleared    = "Input cleared: press Ctrl+C again to quit."
	hintQuitNotSent    = "Not sent: press Ctrl+C again to quit."
	hintNotSent        = "Not sent while another mneme answered here: your message is back below."
	hintNotSentOffline = "Not sent: Ollama is not running. Your message is back below."
	hintStopping       = "Stopping…"
	hintEscAgain       = "Press esc again to stop the answer."
	hintBusy           = "An answer is still being written: wait for it, or press Esc to stop it."
	hintQueued         = "Queued: sent when this answer ends (↑ takes it back to edit; Esc stops the answer)."
	hintLoading        = "Still loading the conversation…"
	hintNoAnswer       = "The run ended without an answer."
)

// activeRun is the generation in progress.
type activeRun struct {
	id        runID
	cancel    context.CancelFunc
	events    <-chan agent.Event
	cancelled bool
	// quietSince is when the model last said something (a word, a
	// thought, a tool call); quietFor, how long before the spinner's last
	// turn: long, the status says what it waits for.
	quietSince time.Time
	quietFor   time.Duration
	prompt     string           // sent again in a new conversation if this one was deleted meanwhile
	cites      []agent.Citation // the passages its tool calls gave the model
	// attached and attachedDocs are /attach's documents it was told of:
	// told again with the next prompt when it is stopped or fails.
	attached, attachedDocs []string
}

// Model is the root model of the chat. It routes messages to the
// transcript, the input and the status line, and owns the send cycle:
// probe Ollama if needed, create the conversation on the first prompt,
// run the prompt and stream its events.
type Model struct {
	life      *lifecycle
	store     Store
	userID    string
	probeFn   func(context.Context) Probe
	newRunner func(model string) Runner
	incog     incognitoState
	log       *slog.Logger
	tick      tickFunc
	now       func() time.Time

	st         *Styles
	keys       KeyMap
	help       help.Model
	transcript transcript.Transcript
	input      prompt.Editor
	spin       spinner.Model
	spinning   bool

	width, height int

	probe   Probe
	probing bool // a probe is in flight
	probed  bool // a probe has answered once
	// Background probing while Ollama is unreachable (offline.go).
	reprobeWait  time.Duration // the last wait before a probe
	reprobeArmed bool          // a background probe is scheduled
	pingArmed    bool          // a ping of a reachable Ollama is scheduled
	quietProbe   bool          // the probe in flight is a background one: its failure is no news
	runner       Runner
	runnerModel  string

	// resend is a prompt whose conversation was deleted by another process
	// before it was stored: it goes again, into a new conversation.
	resend string
	// queued is what was submitted while an answer streamed, shown above
	// the input: sent when it ends (runs.go), or taken back by ↑.
	queued string
	// pendingQueued: the prompt pending was queued, not the input's.
	pendingQueued bool
	// undo holds the changes this chat learnt, the model made or the
	// user made in its memory browser: ctrl+z and /undo take them back,
	// and no other (tui/undo).
	undo *undo.Stack
	// receipts are what was learnt from a turn, waiting for a streaming
	// answer to end (events.go).
	receipts []string
	// learntReceipts are the receipts of what was learnt, by note id, oldest
	// first: the one shown and the one once ctrl+z took it back.
	learntReceipts map[string][][2]string
	// confirm is the model's change waiting for the user's y or n
	// (model_changes = "confirm").
	confirm  *confirm.Request
	resumeID string // the conversation to load at start
	convID   string // "" until the first prompt creates the conversation
	title    string
	loading  bool // the resumed conversation is being loaded
	// resumeTurn is the turn to land on once the conversation is loaded.
	resumeTurn int

	phase   phase
	pending string // the prompt being sent while probing or creating
	run     *activeRun
	lastRun runID

	quitArmed bool
	alert     string // why Ollama cannot be used
	hint      string // a one-line notice

	// syncStatus says how sync is doing (nil: sync is off; status_sync.go).
	syncStatus func() string

	// Compaction and switching (compaction.go, slash.go).
	find       FindFunc // nil: /switch is unavailable
	compacting bool     // the model history is being summarised
	contextPct int      // share of the context window the last request filled (0: unknown)
	// contextWindow is the model's context in tokens, from the last run
	// (0: unknown); it belongs to the model, not the conversation.
	contextWindow int
	choice        *choice.List // close matches of /switch to choose from

	// The rest of the chat screen: the optional parts main supplies, the
	// sidebar, the panels and the key help (panels.go, switching.go).
	cfg      Config
	archived bool       // the open conversation is archived
	msgCount int        // stored messages the transcript shows
	others   othersTail // what another mneme added to the open conversation (switching.go)
	unsent   bool       // the last run's prompt was not stored (agent.ErrNotSent): redraw as stored
	orphan   string     // a conversation made for a send that stored nothing: deleted once the run is over
	// recalled is the earlier prompt ↑ put in the input, prompt recallAt
	// of the conversation's (input.go).
	recalled string
	recallAt int
	cache    *convCache
	sidebar  sidebar.Model
	sideOpen bool // the sidebar is shown
	focus    focusArea
	stack    []Panel // the open panels, the top one last (panels.go)
	search   *searchPanel
	memory   *memoryPanel
	models   *modelsPanel
	docs     *docsPanel
	sources  *sourcesPanel
	// attached are the documents /attach added since the last prompt: the
	// next run's model is told about them (documents.go).
	attached     []string
	attachedDocs []string // their document ids
	attaching    int      // /attach commands not done yet: a prompt waits for them
	helpView     keyhelp.Overlay
	helpOpen     bool
	editor       string // the user's editor command line

	completion completion // of a slash command being typed (complete.go)
	// escClosedAt is when an esc closed a panel during a run: an esc
	// within escGrace of it asks again before it stops the answer.
	escClosedAt time.Time

	memStat   statusline.Memory // for the status line (memstatus.go)
	memPoll   statusline.Poller // background readings of memStat (statusline/poll.go)
	syncPoll  statusline.Poller // background readings of the sync state
	fresh     map[string]bool   // notes the model wrote in the current answer
	offered   bool              // models were offered once (a first run)
	panelSize [2]int            // the size the panels were last given
}

// New returns the chat model for cfg, for a tea.Program of the caller's.
// Prefer Run: quitting cancels a generation in progress, but only Run
// then waits for it to store its partial answer.
func New(cfg Config) Model {
	return newModel(context.Background(), cfg)
}

func newModel(ctx context.Context, cfg Config) Model {
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	st := styles.New(cfg.Dark)
	keys := DefaultKeyMap()
	h := help.New()
	tr := transcript.New(&st, log)
	tr.DetailsKey = keys.Details.Help().Key
	if cfg.Incognito {
		tr.AddNotice(IncognitoNotice)
	}
	h.Styles = st.Help
	life := newLifecycle(ctx)
	editor := cfg.Editor
	if editor == "" {
		editor = panel.EditorFromEnv()
	}
	return Model{
		cfg:            cfg,
		cache:          newConvCache(),
		undo:           &undo.Stack{},
		learntReceipts: map[string][][2]string{},
		editor:         editor,
		sidebar:        sidebar.New(life.ctx, &st, keys.SidebarKeys, cfg.Conversations, cfg.UserID, time.Now),
		search:         newSearchPanel(life.ctx, &st, cfg, keys),
		memory:         newMemoryPanel(life.ctx, &st, cfg, keys),
		models:         newModelsPanel(life.ctx, &st, cfg, keys),
		docs:           newDocsPanel(life.ctx, &st, cfg, keys),
		sources:        newSourcesPanel(&st, keys),
		fresh:          map[string]bool{},
		life:           life,
		store:          cfg.Store,
		userID:         cfg.UserID,
		probeFn:        cfg.Probe,
		newRunner:      cfg.NewRunner,
		find:           cfg.Find,
		log:            log,
		tick:           tea.Tick,
		now:            time.Now,
		st:             &st,
		keys:           keys,
		help:           h,
		transcript:     tr,
		input:          prompt.New(st.Input, keys.Newline),
		spin:           spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(st.Spinner)),
		probing:        true,
		resumeID:       cfg.ConversationID,
		resumeTurn:     cfg.Turn,
		loading:        cfg.ConversationID != "",
		syncStatus:     cfg.SyncStatus,
	}
}

// Init probes Ollama and loads the conversation being resumed.
func (m Model) Init() tea.Cmd {
	cmds := []tea.Cmd{probeCmd(m.life.ctx, m.probeFn)}
	if m.syncStatus != nil {
		cmds = append(cmds, func() tea.Msg { return syncTickMsg{} }) // the first reading starts the chain
	}
	if m.loading {
		cmds = append(cmds, loadHistoryCmd(m.life.ctx, m.store, m.userID, m.resumeID, m.cfg.Answering))
	}
	cmds = append(cmds, tea.RequestBackgroundColor, m.memoryStatusCmd(true), waitForChanges(m.life.ctx, m.cfg.Changes),
		waitForLearnt(m.life.ctx, m.cfg.Learnt), confirm.Wait(m.life.ctx, m.cfg.Confirms))
	return tea.Batch(cmds...)
}

// Update routes a message and lays the screen out again.
func (m Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	msg, ok := panel.CleanInput(msg)
	if !ok {
		return m, nil
	}
	if cmd, ok := m.routeOwned(msg); ok {
		m.layout()
		return m, cmd
	}
	var cmd tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.BackgroundColorMsg:
		m.setTheme(msg.IsDark())
	case tea.KeyPressMsg:
		cmd = m.handleKey(msg)
	case tea.PasteMsg:
		switch {
		case m.top() != nil:
			cmd = m.panelUpdate(msg)
		case m.focus == focusSidebar:
			m.sidebar, cmd = m.sidebar.Update(msg)
		default:
			m.hint = m.input.Paste(msg.Content)
		}
	case tea.MouseWheelMsg:
		if m.top() == nil && !m.helpOpen {
			m.transcript.Wheel(msg)
		}
	case tea.MouseClickMsg, tea.MouseReleaseMsg, tea.MouseMotionMsg:
		// Only the wheel is used.
	case panel.OpenTurnMsg:
		m.stack = nil
		cmd = m.openConversation(msg.ConversationID, "", msg.Turn)
	case panel.CloseOverlayMsg:
		cmd = m.closePanel()
	case picker.ModelChosenMsg:
		cmd = m.chooseModels(msg)
	case modelsSavedMsg:
		cmd = m.handleModelsSaved(msg)
	case panel.ExternalEditMsg:
		cmd = msg.Exec(m.editor)
	case panel.ExternalEditDoneMsg:
		cmd = m.handleComposeDone(msg)
	case composedMsg:
		m.handleComposed(msg)
	case sidebar.OpenMsg:
		m.sidebar.ClearFilter()
		cmd = m.openConversation(msg.Conv.ID, msg.Conv.Title, 0)
	case sidebar.NewMsg:
		m.focus = focusInput
		m.sidebar.Blur()
		cmd = m.newConversation()
	case sidebar.BlurMsg:
		m.focus = focusInput
		m.sidebar.Blur()
	case sidebar.ChangedMsg:
		cmd = m.handleConvChanged(msg)
	case memoryStatusMsg:
		cmd = m.handleMemoryStatus(msg)
	case memoryTickMsg:
		cmd = m.pollMemoryStatus(msg)
	case exportedMsg:
		m.handleExported(msg)
	case attachedMsg:
		m.handleAttached(msg)
	case incognitoStartedMsg:
		cmd = m.enterIncognito(msg)
	case probeMsg:
		cmd = tea.Batch(m.handleProbe(msg.probe), m.afterProbe(msg.probe), m.memoryStatusNow()) // the embedding model may have changed
	case reprobeMsg:
		cmd = m.handleReprobe()
	case pingMsg:
		cmd = m.ping()
	case pingedMsg:
		cmd = m.handlePinged(msg)
	case historyMsg:
		cmd = m.handleHistory(msg)
	case highlightDoneMsg:
		m.transcript.ClearHighlight()
		m.transcript.Refresh(m.now(), false)
	case conversationMsg:
		cmd = m.handleConversation(msg)
	case findMsg:
		cmd = m.handleFind(msg)
	case titleMsg:
		if msg.err == nil && msg.conv.ID == m.convID {
			m.title, m.msgCount = msg.conv.Title, msg.conv.MessageCount
			m.reconcileAfterRun(msg)
		}
		m.others.counting = false
		cmd = tea.Batch(m.sidebar.Reload(), m.memoryStatusNow(), m.pollSync(nil))
	case runEventsMsg:
		cmd = m.handleEvents(msg)
	case syncTickMsg:
		cmd = m.pollSync(&msg)
	case storeChangedMsg:
		cmd = tea.Batch(m.sidebar.Reload(), m.memoryStatusNow(), m.pollSync(nil), waitForChanges(m.life.ctx, m.cfg.Changes), m.refreshDocs(),
			m.refreshNotes(), m.followOthers())
	case othersAddedMsg:
		cmd = m.handleOthersAdded(msg)
	case othersDeletedMsg:
		m.handleOthersDeleted(msg)
		cmd = m.sidebar.Reload()
	case othersTickMsg:
		cmd = m.followOthers()
	case undo.RecordedMsg:
		m.undo.Push(msg.Changes...)
	case undo.DoneMsg:
		cmd = m.handleUndone(msg)
	case learntMsg:
		cmd = m.handleLearnt(msg)
	case confirm.Msg:
		cmd = m.handleConfirm(msg)
	case spinMsg:
		cmd = m.handleSpin()
	case paths.Msg:
		m.handlePaths(msg)
	default:
		cmd = m.input.Update(msg)
	}
	m.layout()
	if list := m.listPaths(); list != nil {
		cmd = tea.Batch(cmd, list)
	}
	return m, cmd
}

// handleKey routes a key: Ctrl+C always quits; the key help, an open
// panel or the sidebar get the keys while they are open or focused; the
// global keys open panels; the rest belongs to the chat and its input.
func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	if cmd, ok := m.confirmKey(msg); ok {
		return cmd
	}
	if !key.Matches(msg, m.keys.Quit) {
		m.quitArmed, m.hint = false, ""
	}
	if key.Matches(msg, m.keys.Cancel) && m.phase == phaseRunning && (m.helpOpen || m.top() != nil || m.choice != nil ||
		m.focus == focusSidebar || m.completion.rows() > 0 || m.completion.usage != "") {
		m.escClosedAt = m.now() // this esc closes something, not the answer
	}
	if key.Matches(msg, m.keys.Quit) {
		return m.quit()
	}
	if m.helpOpen {
		closed, handled := m.helpView.Key(msg)
		m.helpOpen = !closed
		if handled {
			return nil
		}
	}
	if key.Matches(msg, m.keys.Help) {
		m.openHelp()
		return nil
	}
	if m.top() != nil {
		return m.panelUpdate(msg)
	}
	switch {
	case key.Matches(msg, m.keys.Search):
		return m.openSearch("")
	case key.Matches(msg, m.keys.Memory):
		return m.openMemory()
	case key.Matches(msg, m.keys.Sources):
		return m.openSources()
	case key.Matches(msg, m.keys.Sidebar):
		return m.toggleSidebar()
	}
	if m.focus == focusSidebar {
		var cmd tea.Cmd
		m.sidebar, cmd = m.sidebar.Update(msg)
		return cmd
	}
	if m.choice != nil {
		if cmd, handled := m.choiceKey(msg); handled {
			return cmd
		}
	}
	if cmd, handled := m.completeKey(msg); handled {
		return cmd
	}
	if (msg.Code == tea.KeyUp || msg.Code == tea.KeyDown) && m.recallPrompt(msg.Code == tea.KeyUp) {
		return nil
	}
	switch {
	case key.Matches(msg, m.keys.Undo):
		return m.undoLast()
	case key.Matches(msg, m.keys.Editor):
		return m.compose()
	case key.Matches(msg, m.keys.Cancel) && m.phase == phaseRunning && !m.escClosedAt.IsZero() && m.now().Sub(m.escClosedAt) < escGrace:
		// An esc just after one that closed a panel is the habit of a
		// double press, not a wish to lose a slow answer.
		m.escClosedAt = time.Time{}
		m.hint = hintEscAgain
	case key.Matches(msg, m.keys.Cancel):
		m.cancel()
	case key.Matches(msg, m.keys.Send):
		return m.submit()
	case key.Matches(msg, m.keys.PageUp):
		m.transcript.PageUp()
	case key.Matches(msg, m.keys.PageDown):
		m.transcript.PageDown()
	case key.Matches(msg, m.keys.Top):
		m.transcript.Top()
	case key.Matches(msg, m.keys.Bottom):
		m.transcript.Bottom()
	case key.Matches(msg, m.keys.Details):
		m.transcript.ToggleDetails()
		m.transcript.Refresh(m.now(), false)
	default:
		if msg.Text != "" && m.input.Len() >= prompt.MaxChars {
			m.hint = fmt.Sprintf("The input is full (%s characters): send it, or /attach a file instead.", text.Thousands(prompt.MaxChars))
			return nil
		}
		return m.input.Update(msg)
	}
	return nil
}

func (m *Model) handleProbe(p Probe) tea.Cmd {
	m.probing = false
	if !p.Reachable && p.Model == "" { // Ollama away: the models it had are still the ones chosen
		p.Model, p.EmbedModel = m.probe.Model, m.probe.EmbedModel
	}
	m.probe = p
	quiet := m.quietProbe && m.phase != phaseProbing
	m.quietProbe = false
	if !quiet || p.Ready() {
		m.alert = ""
	}
	if p.Ready() {
		if m.newRunner != nil && (m.runner == nil || m.runnerModel != p.Model) {
			m.runner, m.runnerModel = m.newRunner(p.Model), p.Model
		}
	} else {
		if !quiet {
			// A background probe that fails again says nothing new: the
			// transcript and the status line already say Ollama is away.
			m.alert = p.problem()
		}
		m.log.Info("ollama not ready", "host", p.Host, "reachable", p.Reachable, "model", p.Model, "err", p.Err)
	}
	offer := m.offerModels(p)
	if m.phase != phaseProbing {
		return offer
	}
	if m.ready() {
		return m.send()
	}
	// Still not ready: the alert says why; the prompt stays in the input.
	m.pending = ""
	m.setPhase(phaseIdle)
	return nil
}

// handleHistory shows a loaded conversation: at the turn asked for, else
// where the reader last was, else at its end. A history that only confirms
// the transcript already shown from the cache changes nothing; one of a
// conversation left meanwhile is dropped.
func (m *Model) handleHistory(msg historyMsg) (cmd tea.Cmd) {
	if msg.want != m.resumeID {
		return nil // the user went elsewhere meanwhile
	}
	if msg.err != nil {
		m.log.Warn("resume failed", "conversation", m.resumeID, "err", msg.err)
		m.clearConversation()
		m.transcript.AddError(msg.err.Error() + ". A new conversation will be started.")
		m.transcript.Refresh(m.now(), true)
		return
	}
	if m.historyIsCurrent(msg) {
		m.title, m.archived = msg.conv.Title, msg.conv.Archived
		return nil
	}
	replacing := !m.loading // the cached transcript was out of date
	m.loading = false
	m.convID, m.title, m.archived, m.msgCount = msg.conv.ID, msg.conv.Title, msg.conv.Archived, len(msg.msgs)
	m.sidebar.SetCurrent(m.convID)
	m.transcript.Load(msg.msgs)
	m.transcript.MarkCompactions(msg.sums)
	m.others = othersTail{}
	m.followHalfWritten(msg.msgs)
	if msg.answering {
		m.drawnAsWriting(msg.msgs)
	}
	switch {
	case m.resumeTurn > 0:
		cmd = m.landOnTurn(m.resumeTurn)
		m.resumeTurn = 0
	case replacing:
		m.transcript.Refresh(m.now(), false)
	default:
		m.restoreScroll(m.convID)
	}
	return cmd
}

// highlightFor is how long a jumped-to turn stays highlighted.
const highlightFor = 3 * time.Second

func (m *Model) handleConversation(msg conversationMsg) tea.Cmd {
	if msg.err != nil {
		m.log.Warn("create conversation failed", "err", msg.err)
		if m.phase == phaseCreating {
			m.hint = msg.err.Error()
			m.pending = ""
			m.setPhase(phaseIdle)
		}
		return nil
	}
	if m.phase != phaseCreating {
		// The send was cancelled meanwhile: leave no empty conversation.
		return deleteEmptyConversationCmd(m.life.ctx, m.store, m.cfg.Conversations, m.userID, msg.conv.ID, m.log)
	}
	m.convID, m.title, m.archived, m.msgCount = msg.conv.ID, memory.DeriveTitle(msg.prompt), false, 0
	m.resumeID = m.convID
	m.sidebar.SetCurrent(m.convID)
	return m.startRun()
}

func (m *Model) applyEvent(ev agent.Event) {
	if m.run == nil {
		return // the run already ended; nothing follows its last event
	}
	m.applyCompactionEvent(ev)
	if n, ok := ev.(agent.NoticeEvent); !ok || !n.Passing {
		m.transcript.DropPassing() // the wait it told of is over
	}
	switch ev.(type) {
	case agent.ContentDelta, agent.ThinkingDelta, agent.ToolCallEvent, agent.ToolResultEvent:
		m.run.quietSince, m.run.quietFor = m.now(), 0
	}
	switch ev := ev.(type) {
	case agent.ContentDelta:
		m.transcript.AppendContent(ev.Text)
	case agent.ThinkingDelta:
		m.transcript.AppendThinking(ev.Text)
	case agent.ToolCallEvent:
		m.transcript.ToolCall(ev.Call)
	case agent.ToolResultEvent:
		m.transcript.ToolResult(ev.Call)
		m.noteWritten(ev.Call)
		m.run.cites = append(m.run.cites, ev.Call.Citations...)
	case agent.RecallEvent:
		m.transcript.AddRecall(ev.Memories)
		for _, mem := range ev.Memories {
			if mem.Citation != nil { // a recalled passage is a source too
				m.run.cites = append(m.run.cites, *mem.Citation)
			}
		}
	case agent.NoticeEvent:
		m.transcript.EndLive(false)
		m.transcript.AddNotice(ev.Text)
		m.transcript.Entries[len(m.transcript.Entries)-1].Passing = ev.Passing
	case agent.DoneEvent:
		answering := m.run != nil && m.run.prompt != "" // not a /compact
		m.finishRun(ev.Result.Interrupted, nil)
		if answering && ev.Result.NoAnswer() {
			m.transcript.AddNoAnswer()
		}
	case agent.ErrorEvent:
		m.finishRun(false, ev.Err)
	}
}

func (m *Model) startSpinner() tea.Cmd {
	if m.spinning {
		return nil
	}
	m.spinning = true
	return spinnerCmd(m.tick, m.spin.Spinner.FPS)
}

func (m *Model) handleSpin() tea.Cmd {
	if m.phase == phaseIdle {
		m.spinning = false
		return nil
	}
	// The spinner's own tick command is dropped: spinnerCmd drives it.
	m.spin, _ = m.spin.Update(spinner.TickMsg{ID: m.spin.ID()})
	if m.run != nil {
		m.run.quietFor = m.now().Sub(m.run.quietSince)
	}
	if m.transcript.LiveStale() {
		m.transcript.Refresh(m.now(), false) // text held back by the render interval
	}
	return spinnerCmd(m.tick, m.spin.Spinner.FPS)
}
