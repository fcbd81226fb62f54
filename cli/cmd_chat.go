package cli

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"sync"

	"golang.org/x/term"

	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/flagtext"
	"github.com/mneme-dev/mneme/internal/ollama"
	"github.com/mneme-dev/mneme/internal/turnlock"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/tui"
)

// registerChatFlags registers the chat's own flags.
func registerChatFlags(fs *flag.FlagSet) (cont *bool, resume *string, turn *int, incognito *bool) {
	cont = new(bool)
	fs.BoolVar(cont, "continue", false, "resume the latest conversation")
	fs.BoolVar(cont, "c", false, "shorthand for --continue")
	resume = fs.String("resume", "", "resume the conversation with this `ID` (a prefix is enough)")
	turn = fs.Int("turn", 0, "with --resume or --continue: open scrolled to this turn (as 'mneme search' prints it)")
	incognito = fs.Bool("incognito", false, "a chat that keeps nothing: not stored, searched, learnt or synced, and no recall of your notes")
	return cont, resume, turn, incognito
}

func chatCommand() command {
	return command{names: []string{""}, run: (*App).runChat,
		help: "  mneme [flags]                      open the chat (a new conversation)\n" +
			"  mneme -c | --continue              resume the latest conversation\n" +
			"  mneme --resume ID [--turn N]       resume a conversation (an id prefix is enough), at a turn\n" +
			"  mneme --incognito                  a chat that keeps nothing: not stored, searched, learnt or synced\n"}
}

func (a *App) runChat(ctx context.Context, args []string) error {
	var common config.Flags
	fs := a.newFlagSet("mneme", "mneme [-c | --continue | --resume ID | --incognito] [flags]", &common)
	common.Stream.Register(fs)
	common.Learn.Register(fs)
	cont, resume, turn, incognito := registerChatFlags(fs)
	// mneme -h, --help and `mneme help` all show the commands; the chat's
	// own flags follow.
	fs.Usage = func() {
		// Asked for (-h, --help): the help goes to stdout, as `mneme help`;
		// after a bad flag, to stderr.
		w := a.stderr
		if flagtext.HelpAsked(args) {
			w = a.stdout
		}
		fs.SetOutput(w)
		fmt.Fprint(w, usage())
		fmt.Fprint(w, "\nFlags of the chat:\n")
		flagtext.Print(w, fs)
	}
	rest, err := a.parseArgs(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return exitError{code: 2, msg: fmt.Sprintf("unexpected argument %q (did you mean `mneme ask %s`?)", rest[0], rest[0])}
	}
	turnSet := false
	fs.Visit(func(f *flag.Flag) { turnSet = turnSet || f.Name == "turn" })
	if *turn < 0 || *turn == 0 && turnSet {
		return exitError{code: 2, msg: fmt.Sprintf("--turn %d: turns are numbered from 1 (as 'mneme search' prints them)", *turn)}
	}
	if *cont && *resume != "" {
		return exitError{code: 2, msg: "--continue and --resume each name a conversation: give one of them"}
	}
	if *turn > 0 && *resume == "" && !*cont {
		return exitError{code: 2, msg: "--turn needs --resume ID or --continue"}
	}
	if *incognito && (*cont || *resume != "") {
		return exitError{code: 2, msg: "--incognito starts a new chat that is not kept; it cannot resume one"}
	}
	if !a.interactive() {
		return exitError{code: 2, msg: "the chat needs a terminal; use `mneme ask PROMPT` in scripts and pipes"}
	}
	if *incognito {
		return a.runIncognitoChat(ctx, common)
	}
	s, err := a.open(ctx, common)
	if err != nil {
		return err
	}
	defer s.Close()
	s.progress = nil // the chat owns the terminal

	var convID string
	switch {
	case *resume != "":
		c, err := s.store.Conversation(ctx, s.cfg.User, *resume)
		if err != nil {
			return fmt.Errorf("--resume %s: %w", *resume, err)
		}
		convID = c.ID
	case *cont:
		c, err := s.store.LatestConversation(ctx, s.cfg.User)
		if err != nil && !errors.Is(err, memory.ErrNotFound) {
			return err
		}
		convID = c.ID
	}
	// Search indexing runs beside the chat: it catches up at start, follows
	// every finished turn, and embeds once the probe finds a model.
	ix, err := s.openIndex(ctx, ollamaState{})
	if err != nil {
		return err
	}
	defer ix.Close()
	// Sync runs beside the chat: at start, after changes, periodically
	// and once more at exit.
	stopSync := s.startSync(ctx, ix)
	defer stopSync()
	ictx, stopIndex := context.WithCancel(ctx)
	indexDone := make(chan struct{})
	go func() {
		defer close(indexDone)
		s.applyRetention(ictx, ix)
		ix.Run(ictx)
	}()
	defer func() {
		stopIndex()
		<-indexDone
	}()

	// Conversations that `mneme ask` left without a model title get one in
	// the background, once Ollama is found.
	tctx, stopTitles := context.WithCancel(ctx)
	var titles sync.Once
	var titling sync.WaitGroup
	defer func() {
		stopTitles()
		titling.Wait()
	}()

	// Learning from finished turns runs beside the chat; at exit it is
	// cancelled and waited for.
	learner, learntCh := s.learntReceipts(ctx, ix)
	defer learner.stop()

	// The model's changes of notes wait for the user's y or n on the
	// screen (model_changes = "confirm").
	gate, confirms := s.askInChat()
	s.askChange = gate

	var probed lastProbe
	var chosen chosenModels
	// /incognito's throwaway chats; any still open at exit are removed
	// before the session closes.
	startIncognito, closeIncognito := a.incognitoChats(common, &probed)
	defer closeIncognito()
	return tui.Run(ctx, s.withSync(tui.Config{
		Store:          s.store,
		UserID:         s.cfg.User,
		ConversationID: convID,
		Turn:           *turn,
		Ping:           s.client.Heartbeat,
		Probe: func(ctx context.Context) tui.Probe {
			st := probeOllama(ctx, s.client, s.host, chosen.apply(s.cfg))
			probed.set(st)
			if st.Err == nil && st.Model != "" {
				titles.Do(func() {
					titling.Add(1)
					go func() {
						defer titling.Done()
						s.titlePending(tctx, s.newAgent(st.Model, nil, false))
					}()
				})
			}
			if st.Embed.Name != "" {
				ix.SetEmbedding(s.client, index.EmbedModel{Name: st.Embed.Name, ContextLength: st.Embed.ContextLength})
			}
			return s.tuiProbe(ctx, st)
		},
		NewRunner: func(model string) tui.Runner {
			return indexingRunner{agent: s.newAgent(model, ix, probed.toolsSupported(model)), index: ix, learn: learner, turns: turnlock.New(s.cfg.DataDir)}
		},
		Find:          findConversations(ix),
		Log:           s.log,
		Dark:          true, // until the terminal reports its background
		Conversations: conversationManager{Store: s.store, Index: ix, turns: turnlock.New(s.cfg.DataDir)},
		Search:        byMatch{ix, s.cfg.RecallQuery().MinSimilarity},
		Notes:         ix,
		Docs:          docLibrary{ix},
		Attach:        a.chatAttach(s, ix),
		Models:        ollama.Models{Client: s.client},
		SaveModels: chosen.saver(s.cfg.ConfigFile, func(chat, embed string) string {
			return config.ModelsOverridden(common, a.getenv, chat, embed)
		}),
		MemoryStatus: memoryStatus(s.store, ix),
		Changes:      ix.Changes(),
		Answering:    turnlock.New(s.cfg.DataDir).Held,
		Learnt:       learntCh,
		Confirms:     confirms,
		FirstRun:     !s.cfg.ConfigFileFound,
		Editor:       cmp.Or(a.getenv("VISUAL"), a.getenv("EDITOR")),

		StartIncognito: startIncognito,
	}))
}

// incognitoChats makes the throwaway chats /incognito switches to, each
// on its own openIncognito session; closeAll closes and removes those
// still open.
func (a *App) incognitoChats(common config.Flags, probed *lastProbe) (start func(context.Context) (tui.IncognitoChat, error), closeAll func()) {
	var mu sync.Mutex
	open := map[*session]func(){}
	start = func(ctx context.Context) (tui.IncognitoChat, error) {
		s, done, err := a.openIncognito(ctx, common)
		if err != nil {
			return tui.IncognitoChat{}, err
		}
		var once sync.Once
		closeFn := func() {
			once.Do(func() {
				mu.Lock()
				delete(open, s)
				mu.Unlock()
				done()
			})
		}
		mu.Lock()
		open[s] = closeFn
		mu.Unlock()
		return tui.IncognitoChat{
			Store: s.store,
			NewRunner: func(model string) tui.Runner {
				return s.newAgent(model, nil, probed.toolsSupported(model))
			},
			Close: closeFn,
		}, nil
	}
	closeAll = func() {
		mu.Lock()
		fns := make([]func(), 0, len(open))
		for _, f := range open {
			fns = append(fns, f)
		}
		mu.Unlock()
		for _, f := range fns {
			f()
		}
	}
	return start, closeAll
}

// tuiProbe is what the chat screen is told of a probe.
func (s *session) tuiProbe(ctx context.Context, st ollamaState) tui.Probe {
	p := tui.Probe{Host: st.Host, Reachable: st.Reachable, Version: st.Version, Model: st.Model,
		EmbedModel: st.Embed.Name, Err: st.Err}
	// Only when the picker would offer a download: can it work?
	if st.Reachable && (st.Model == "" || (st.Embed.Name == "" && !s.cfg.ConfigFileFound)) {
		p.Offline = ollama.RegistryReachable(ctx, s.cfg.OllamaRegistry, s.host, dialer.DialContext)
	}
	return p
}

// runIncognitoChat is `mneme --incognito`: the chat on a throwaway data
// dir (openIncognito), without the conversation list, search, the memory
// browser, learning, titles of other conversations or sync. Quitting
// removes the directory.
func (a *App) runIncognitoChat(ctx context.Context, common config.Flags) error {
	s, done, err := a.openIncognito(ctx, common)
	if err != nil {
		return err
	}
	defer done()
	s.progress = nil // the chat owns the terminal
	var probed lastProbe
	return tui.Run(ctx, tui.Config{
		Store:     s.store,
		UserID:    s.cfg.User,
		Incognito: true,
		Ping:      s.client.Heartbeat,
		Probe: func(ctx context.Context) tui.Probe {
			st := probeOllama(ctx, s.client, s.host, s.cfg)
			probed.set(st)
			return s.tuiProbe(ctx, st)
		},
		NewRunner: func(model string) tui.Runner {
			return s.newAgent(model, nil, probed.toolsSupported(model))
		},
		Log:    s.log,
		Dark:   true,
		Models: ollama.Models{Client: s.client},
		Editor: cmp.Or(a.getenv("VISUAL"), a.getenv("EDITOR")),
		// Text being composed in the editor stays in the throwaway dir.
		TempDir: s.cfg.DataDir,
	})
}

// interactive reports whether stdin and stdout are terminals.
func (a *App) interactive() bool {
	in, ok1 := a.stdin.(*os.File)
	out, ok2 := a.stdoutFile()
	return ok1 && ok2 && term.IsTerminal(int(in.Fd())) && term.IsTerminal(int(out.Fd()))
}
