package cli

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"syscall"
	"time"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/printer"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/stdin"
	"github.com/mneme-dev/mneme/internal/turnlock"
	"github.com/mneme-dev/mneme/learn"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
)

// maxPromptBytes bounds a prompt read from stdin.
const maxPromptBytes = 4 << 20

// Exit codes of ask besides 0, 1 (an error) and 2 (a usage error).
const (
	// ExitInterrupted is the conventional exit code after Ctrl+C.
	ExitInterrupted = 130
	// ExitOutputClosed: stdout was closed before the answer was printed in
	// full (`mneme ask … | head`); the whole answer was still generated and
	// stored. It is the code a shell reports for a process killed by
	// SIGPIPE, so pipelines treat it the same way.
	ExitOutputClosed = 141
)

const askExitCodes = `
Exit status:
  0    the answer was printed and stored
  1    an error (Ollama unreachable, the model stalled or stopped mid-answer;
       whatever was written is stored, marked interrupted; with no answer
       possible at all, a conversation this ask began is not kept), or no answer:
       the model's reply was empty, or it still called tools when the step
       limit (max_steps) was reached
  2    a usage error, or a bad setting (a flag, the environment, the config file)
  130  interrupted by Ctrl+C (143 after SIGTERM, 129 when the terminal closed); the partial answer is stored
  141  stdout was closed early (e.g. mneme ask … | head); the whole answer is stored
The prompt is stored before the model is asked, so that an interruption keeps it.
With --incognito nothing is kept, whatever the exit status.
`

func askCommand() command {
	return command{names: []string{"ask"}, run: (*App).runAsk,
		help: "  mneme ask [flags] PROMPT...        ask once and print the answer (reads stdin when piped)\n" +
			"  mneme ask --incognito PROMPT...    ask without keeping anything: not stored, searched, learnt or synced\n"}
}

func (a *App) runAsk(ctx context.Context, args []string) (err error) {
	var common config.Flags
	fs := a.newFlagSet("ask", "mneme ask [--continue | --conversation ID | --incognito] [--json] [--no-learn] PROMPT...", &common)
	common.Stream.Register(fs)
	common.Learn.Register(fs)
	usage := fs.Usage
	fs.Usage = func() {
		usage()
		fmt.Fprint(a.usageOut(fs), askExitCodes)
	}
	var cont bool
	fs.BoolVar(&cont, "continue", false, "continue the latest conversation")
	fs.BoolVar(&cont, "c", false, "shorthand for --continue")
	convID := fs.String("conversation", "", "continue the conversation with this `ID` (a prefix is enough)")
	asJSON := fs.Bool("json", false, "print {conversation_id, turn, answer, tool_calls, model, context_tokens, memories_used, compacted, learned…} as JSON at the end instead of streaming text")
	incognito := fs.Bool("incognito", false, "keep nothing of this prompt and answer: no conversation, search entry, note, learning or sync (and no recall of your notes)")
	noStdin := fs.Bool("no-stdin", false, "do not read stdin (as ssh -n): for a loop that reads its own lines from it")
	rest, err := a.parseArgs(fs, args)
	if err != nil {
		return err
	}
	if cont && *convID != "" {
		return exitError{code: 2, msg: "ask: use --continue or --conversation, not both"}
	}
	if *incognito && (cont || *convID != "") {
		return exitError{code: 2, msg: "ask: --incognito starts a new conversation that is not kept; it cannot continue one"}
	}
	prompt, err := a.readPrompt(ctx, rest, !*noStdin)
	if err != nil {
		return err
	}
	// failed is a failure before the answer: with --json, said as JSON
	// too, so that a script reads an "error" whatever went wrong.
	model := common.Model // the model asked for, as far as it is known (said by --json on failure)
	failed := func(err error, convID string) error {
		if *asJSON {
			_ = writeJSON(a.stdout, askResult{Result: agent.Result{ConversationID: convID, Model: model, ToolCalls: []agent.ToolActivity{}, MemoriesUsed: []agent.Memory{}},
				Learned: []learn.Learnt{}, Error: sanitize.Line(err.Error())})
		}
		return err
	}
	var s *session
	if *incognito {
		var done func()
		if s, done, err = a.openIncognito(ctx, common); err != nil {
			return err
		}
		defer done()
		defer func() { err = incognitoError(err) }()
	} else {
		if s, err = a.open(ctx, common); err != nil {
			return failed(err, "")
		}
		defer s.Close()
	}

	// The prompt is stored before anything slow (the probe, recall, the
	// model), so that it survives whatever comes next.
	conv, promptMsg, created, unlock, err := a.storePrompt(ctx, s, cont, *convID, prompt)
	if err != nil {
		return err
	}
	defer unlock()
	st := probeOllama(ctx, s.client, s.host, s.cfg)
	model = cmp.Or(st.Model, s.cfg.Model)
	if st.Err != nil && ctx.Err() == nil && created {
		// No answer can come (Ollama down, no model): the conversation this
		// ask began goes again, so that a script's failed runs leave none.
		// Its turn lock is held meanwhile: an `ask -c` waiting for it finds
		// it gone, never half gone.
		if err := s.store.DeleteConversation(context.WithoutCancel(ctx), s.cfg.User, conv.ID); err == nil {
			return failed(fmt.Errorf("%w; nothing was stored", st.Err), "")
		}
	}
	if ctx.Err() != nil || st.Err != nil {
		// No answer will come: the turn is marked as one that ended before
		// its first word, as the agent marks a stopped or failed answer.
		if _, err := s.store.AppendMessage(context.WithoutCancel(ctx), s.cfg.User, memory.Unanswered(conv.ID)); err != nil {
			s.log.Warn("mark unanswered prompt", "err", err)
		}
		if ctx.Err() != nil {
			return exitError{code: ExitInterrupted, msg: "interrupted; your prompt was kept"}
		}
		return failed(fmt.Errorf("%w; your prompt is kept in the conversation, marked unanswered", st.Err), conv.ID)
	}
	// The index serves the memory tools and recall during the run, then
	// makes the new turn searchable.
	// Incognito: no index (no memory tools, no recall, nothing to index).
	var ix *index.Index
	if !*incognito {
		ix, err = s.openIndex(ctx, st)
	}
	if err != nil {
		s.log.Warn("no memory for this answer: index unavailable", "err", err)
		fmt.Fprintf(a.stderr, "mneme: memory is unavailable for this answer: %s\n", sanitize.Text(err.Error()))
		ix = nil
	} else if ix != nil {
		defer ix.Close()
	}
	p := printer.NewAnswer(a.stdout, a.stderr, *asJSON)
	ag := s.newAgent(st.Model, ix, st.ToolsSupported())
	req := agent.Request{UserID: s.cfg.User, ConversationID: conv.ID, Prompt: prompt, PromptID: promptMsg.ID}
	res, runErr := ag.Run(ctx, req, p.Emit)
	if runErr != nil && created && ctx.Err() == nil && res.Answer == "" && len(res.ToolCalls) == 0 &&
		!errors.Is(runErr, memory.ErrNotFound) && !errors.Is(runErr, agent.ErrStreamStalled) {
		// Ollama refused the request before a word (a 500: out of memory
		// loading the model, say): as when it is down, the conversation
		// this ask began goes, so that a script's failed runs leave none.
		// (A model too slow to load keeps the prompt, and says so.) The
		// turn lock is still held.
		del := s.store.DeleteConversation
		if ix != nil { // the index may hold the prompt's turn: it forgets it too
			del = ix.DeleteConversation
		}
		if err := del(context.WithoutCancel(ctx), s.cfg.User, conv.ID); err == nil {
			unlock()
			p.Finish()
			return failed(fmt.Errorf("%w; nothing was stored", runErr), "")
		}
	}
	unlock() // the turn is stored: the next in this conversation may go
	p.Finish()
	p.Sources(res)
	// No title call here: ask exits once the answer is stored. The
	// conversation keeps the title derived from its first prompt until the
	// chat gives it the model's (see titlePending).
	if ix != nil {
		a.indexTurn(ctx, s, ix, memory.ConversationRef{UserID: s.cfg.User, ConversationID: conv.ID})
	}
	// Learning from the turn comes after the answer is printed and
	// stored, within learnBudget; Ctrl+C still ends it at once.
	learned := []learn.Learnt{}
	if ix != nil && s.cfg.LearnOn() && learnable(res, runErr) && ctx.Err() == nil {
		learned = append(learned, a.learnAfterAsk(ctx, s, ix, st.Model, req, res)...)
	}
	if ix != nil && ctx.Err() == nil {
		s.applyRetention(ctx, ix)
	}
	s.syncAfterChange(ctx, ix)
	if *asJSON && !p.Closed() {
		out := askResult{Result: res, Learned: learned, Incognito: *incognito}
		if runErr != nil {
			out.Error = sanitize.Line(runErr.Error())
			// An answer that broke off is stored interrupted, as after Ctrl+C.
			out.Interrupted = out.Interrupted || res.Answer != ""
		}
		if err := writeJSON(a.stdout, out); err != nil {
			p.Fail(err)
		}
	}
	if errors.Is(runErr, memory.ErrNotFound) || errors.Is(runErr, agent.ErrDeletedMidAnswer) {
		return exitError{code: 1, msg: "the conversation was deleted in another mneme while this answer was written; it was not kept"}
	}
	if runErr != nil {
		return runErr
	}
	if res.Interrupted {
		if res.Answer == "" {
			return exitError{code: ExitInterrupted, msg: "interrupted before the answer began; your prompt was kept"}
		}
		return exitError{code: ExitInterrupted, msg: "interrupted; the partial answer was kept"}
	}
	if res.StepLimitReached {
		return exitError{code: 1, msg: fmt.Sprintf(
			"no final answer: the step limit (%d model calls) was reached while the model kept calling tools; "+
				"what it said is stored. Raise max_steps (MNEME_MAX_STEPS) or ask again", ag.MaxSteps())}
	}
	if res.NoAnswer() {
		return exitError{code: 1, msg: "the model gave no answer (its reply was empty); ask again or try another model"}
	}
	if p.Closed() && !errors.Is(p.Err(), syscall.EPIPE) {
		if *incognito {
			return fmt.Errorf("could not print the answer (%w); incognito: nothing was kept", p.Err())
		}
		return fmt.Errorf("could not print the answer (%w); the whole answer is stored (mneme export --conversation %s)", p.Err(), conv.ID)
	}
	if p.Closed() {
		s.log.Info("stdout closed during ask; the answer is stored", "conversation", conv.ID, "err", p.Err())
		return exitError{code: ExitOutputClosed, msg: fmt.Sprintf(
			"stdout was closed before the answer was printed in full; the whole answer is stored (mneme export --conversation %s)", conv.ID)}
	}
	if ctx.Err() != nil { // after the answer: still the signal's exit code, so that a shell loop stops
		return exitError{code: ExitInterrupted, msg: "stopped after the answer, which is stored whole; learning from this turn was skipped"}
	}
	return nil
}

// askResult is what `ask --json` prints: the run and what was learnt from it.
type askResult struct {
	agent.Result
	Learned []learn.Learnt `json:"learned"`
	// Incognito: nothing of this run was kept (its conversation_id names
	// nothing afterwards).
	Incognito bool `json:"incognito,omitempty"`
	// Error is why the answer failed (the exit code is not 0 then).
	Error string `json:"error,omitempty"`
}

// turnWait bounds how long ask waits for another mneme's turn in its
// conversation: an answer rarely takes longer, and a chat's question to its
// user (model_changes = "confirm") could otherwise hold a script for ever.
const turnWait = 10 * time.Minute

// storePrompt finds or creates the conversation, takes its turn lock
// (waiting while another mneme answers in it) and stores the prompt in it;
// unlock ends the turn. The writes are not cancelled by ctx: once started
// they finish, so that an interruption never leaves a conversation without
// its prompt. A conversation created here is deleted again if the prompt
// could not be stored, so no empty conversation is left behind (created
// says this call made it).
func (a *App) storePrompt(ctx context.Context, s *session, cont bool, id, prompt string) (conv memory.Conversation, msg memory.Message, created bool, unlock func(), err error) {
	wctx := context.WithoutCancel(ctx)
	conv, created, err = a.askConversation(wctx, s, cont, id)
	if err != nil {
		return conv, msg, false, nil, err
	}
	wait, stop := context.WithTimeout(ctx, turnWait)
	defer stop()
	unlock, err = turnlock.New(s.cfg.DataDir).Lock(wait, conv.ID, func() {
		fmt.Fprintln(a.stderr, "mneme: another mneme is answering in this conversation; waiting for it to finish…")
	})
	if err == nil {
		msg, err = s.store.AppendMessage(wctx, s.cfg.User, memory.Message{ConversationID: conv.ID, Role: memory.RoleUser, Content: prompt})
		if errors.Is(err, memory.ErrNotFound) {
			unlock()
			err = exitError{code: 1, msg: "the conversation was deleted in another mneme; your prompt was not stored"}
		} else if err != nil {
			unlock()
			err = fmt.Errorf("store prompt: %w", err)
		}
	} else if ctx.Err() != nil {
		err = exitError{code: ExitInterrupted, msg: "interrupted while another mneme was answering in the conversation; your prompt was not stored"}
	} else if errors.Is(err, context.DeadlineExceeded) {
		err = exitError{code: 1, msg: fmt.Sprintf("gave up after %s waiting for another mneme's answer in this conversation "+
			"(a chat may be asking you to confirm a change); your prompt was not stored", turnWait)}
	}
	if err != nil && created {
		if derr := s.store.DeleteConversation(wctx, s.cfg.User, conv.ID); derr != nil {
			s.log.Warn("delete the empty conversation", "conversation", conv.ID, "err", derr)
		}
	}
	return conv, msg, created, unlock, err
}

// indexTurn makes the finished turn searchable before ask exits: keyword
// search at once, its embedding within a short budget (a later run catches
// up on the rest; after an interruption, all of it: the user wants out).
// Failures are logged, never fatal: the turn is stored.
func (a *App) indexTurn(ctx context.Context, s *session, ix *index.Index, ref memory.ConversationRef) {
	interrupted := ctx.Err() != nil
	ctx = context.WithoutCancel(ctx)
	ix.Notify(ref)
	if err := ix.Sync(ctx); err != nil {
		s.log.Warn("index after ask", "err", err)
		return
	}
	if interrupted || ix.BehindBulk() { // another mneme's import embeds what it stored
		return
	}
	ectx, cancel := context.WithTimeout(ctx, searchEmbedBudget)
	defer cancel()
	if err := ix.Drain(ectx); err != nil {
		s.log.Warn("embed after ask", "err", err)
	}
}

// askConversation finds the conversation to continue, or creates one
// (created is then true).
func (a *App) askConversation(ctx context.Context, s *session, cont bool, id string) (c memory.Conversation, created bool, err error) {
	switch {
	case id != "":
		c, err := s.store.Conversation(ctx, s.cfg.User, id)
		if err != nil {
			return c, false, fmt.Errorf("--conversation %s: %w", id, err)
		}
		return c, false, nil
	case cont:
		c, err := s.store.LatestConversation(ctx, s.cfg.User)
		if err == nil {
			return c, false, nil
		}
		if !errors.Is(err, memory.ErrNotFound) {
			return c, false, err
		}
		fmt.Fprintln(a.stderr, "mneme: no conversation to continue yet; starting a new one")
	}
	c, err = s.store.CreateConversation(ctx, s.cfg.User, "")
	return c, err == nil, err
}

// readPrompt joins the arguments and, with useStdin, what is piped on it:
// the prompt, a blank line, then the piped text as it came (`cat notes.md
// | mneme ask "summarise this"`), or either alone. Reading stops at ctx's
// end.
func (a *App) readPrompt(ctx context.Context, args []string, useStdin bool) (string, error) {
	prompt := strings.TrimSpace(strings.Join(args, " "))
	if useStdin && a.stdinPiped() {
		piped, err := a.readStdin(ctx, prompt != "")
		if err != nil {
			return "", err
		}
		switch {
		case strings.TrimSpace(piped) == "":
		case prompt == "":
			prompt = piped
		default:
			prompt += "\n\n" + piped
		}
	}
	// What is stored and sent is what the user sees: a log's colours, a
	// web page's tag characters (words the model reads and no one sees)
	// go, and a prompt of nothing visible is none.
	prompt = sanitize.Text(prompt)
	if strings.TrimSpace(prompt) == "" {
		return "", exitError{code: 2, msg: "ask: nothing to ask: give a prompt or pipe text on stdin"}
	}
	return prompt, nil
}

// readStdin reads what is piped, at most maxPromptBytes, as valid UTF-8.
// Beside a prompt (withPrompt), a pipe still open and silent after a
// while is named on stderr, with the ways out.
func (a *App) readStdin(ctx context.Context, withPrompt bool) (string, error) {
	note := func() {}
	if withPrompt {
		note = func() {
			fmt.Fprintln(a.stderr, "mneme: waiting for the text piped on stdin, to add to the prompt (--no-stdin or </dev/null: none)")
		}
	}
	text, err := stdin.Read(ctx, a.stdin, maxPromptBytes, note)
	if errors.Is(err, stdin.ErrTooLarge) {
		return "", exitError{code: 2, msg: fmt.Sprintf("stdin is larger than %d MiB; pass a smaller input", maxPromptBytes>>20)}
	}
	return text, err
}

func (a *App) stdinPiped() bool { return stdin.Piped(a.stdin) }
