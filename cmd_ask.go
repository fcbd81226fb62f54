package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/mneme-dev/mneme/agent"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/tools"
	"github.com/mneme-dev/mneme/tui"
)

// maxPromptBytes bounds a prompt read from stdin.
const maxPromptBytes = 4 << 20

// exitInterrupted is the conventional exit code after Ctrl+C.
const exitInterrupted = 130

func (a *App) runAsk(ctx context.Context, args []string) error {
	var common commonFlags
	fs := a.newFlagSet("ask", "mneme ask [--continue | --conversation ID] [--json] PROMPT...", &common)
	common.stream.register(fs)
	var cont bool
	fs.BoolVar(&cont, "continue", false, "continue the latest conversation")
	fs.BoolVar(&cont, "c", false, "shorthand for --continue")
	convID := fs.String("conversation", "", "continue the conversation with this id (a prefix is enough)")
	asJSON := fs.Bool("json", false, "print {conversation_id, answer, tool_calls, memories_used, model} as JSON at the end instead of streaming text")
	rest, err := parseArgs(fs, args)
	if err != nil {
		return err
	}
	if cont && *convID != "" {
		return exitError{code: 2, msg: "ask: use --continue or --conversation, not both"}
	}
	prompt, err := a.readPrompt(rest)
	if err != nil {
		return err
	}
	s, err := a.open(ctx, common)
	if err != nil {
		return err
	}
	defer s.Close()

	st := probeOllama(ctx, s.client, s.host, s.cfg)
	if st.Err != nil {
		return st.Err
	}
	conv, err := a.askConversation(ctx, s, cont, *convID)
	if err != nil {
		return err
	}
	// The index serves the memory tools and recall during the run, then
	// makes the new turn searchable.
	ix, err := s.openIndex(ctx, st)
	if err != nil {
		s.log.Warn("no memory for this answer: index unavailable", "err", err)
		fmt.Fprintf(a.stderr, "mneme: memory is unavailable for this answer: %v\n", err)
		ix = nil
	} else {
		defer ix.Close()
	}
	p := &askPrinter{out: a.stdout, errw: a.stderr, quiet: *asJSON}
	ag := s.newAgent(st.Model, ix, st.toolsSupported())
	res, runErr := ag.Run(ctx, agent.Request{UserID: s.cfg.User, ConversationID: conv.ID, Prompt: prompt}, p.emit)
	p.finish()
	if runErr == nil && !res.Interrupted {
		s.retitle(ctx, ag, conv.ID)
	}
	if ix != nil {
		a.indexTurn(ctx, s, ix, memory.ConversationRef{UserID: s.cfg.User, ConversationID: conv.ID})
	}
	s.syncAfterChange(ctx, ix)
	if *asJSON {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			return err
		}
	}
	if runErr != nil {
		return runErr
	}
	if res.Interrupted {
		return exitError{code: exitInterrupted, msg: "interrupted; the partial answer was kept"}
	}
	return nil
}

// indexTurn makes the finished turn searchable before ask exits: keyword
// search at once, its embedding within a short budget (a later run catches
// up on the rest). Failures are logged, never fatal: the turn is stored.
func (a *App) indexTurn(ctx context.Context, s *session, ix *memory.Index, ref memory.ConversationRef) {
	ctx = context.WithoutCancel(ctx)
	ix.Notify(ref)
	if err := ix.Sync(ctx); err != nil {
		s.log.Warn("index after ask", "err", err)
		return
	}
	ectx, cancel := context.WithTimeout(ctx, searchEmbedBudget)
	defer cancel()
	if err := ix.Drain(ectx); err != nil {
		s.log.Warn("embed after ask", "err", err)
	}
}

func (a *App) askConversation(ctx context.Context, s *session, cont bool, id string) (memory.Conversation, error) {
	switch {
	case id != "":
		c, err := s.store.Conversation(ctx, s.cfg.User, id)
		if err != nil {
			return c, fmt.Errorf("--conversation %s: %w", id, err)
		}
		return c, nil
	case cont:
		c, err := s.store.LatestConversation(ctx, s.cfg.User)
		if err == nil {
			return c, nil
		}
		if !errors.Is(err, memory.ErrNotFound) {
			return c, err
		}
	}
	return s.store.CreateConversation(ctx, s.cfg.User, "")
}

// readPrompt joins the arguments, or reads stdin when it is piped and no
// prompt was given.
func (a *App) readPrompt(args []string) (string, error) {
	prompt := strings.Join(args, " ")
	if strings.TrimSpace(prompt) == "" && a.stdinPiped() {
		data, err := io.ReadAll(io.LimitReader(a.stdin, maxPromptBytes+1))
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		if len(data) > maxPromptBytes {
			return "", exitError{code: 2, msg: fmt.Sprintf("stdin is larger than %d MiB; pass a smaller input", maxPromptBytes>>20)}
		}
		if !utf8.Valid(data) {
			data = []byte(strings.ToValidUTF8(string(data), "\uFFFD"))
		}
		prompt = string(data)
	}
	if strings.TrimSpace(prompt) == "" {
		return "", exitError{code: 2, msg: "ask: nothing to ask: give a prompt or pipe text on stdin"}
	}
	return prompt, nil
}

func (a *App) stdinPiped() bool {
	f, ok := a.stdin.(*os.File)
	if !ok {
		return a.stdin != nil
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice == 0
}

// askPrinter streams answer text to stdout and tool activity to stderr.
type askPrinter struct {
	out, errw io.Writer
	quiet     bool // --json: no streamed text
	lastByte  byte
	wrote     bool
}

func (p *askPrinter) emit(ev agent.Event) {
	switch ev := ev.(type) {
	case agent.ContentDelta:
		if p.quiet {
			return
		}
		text := tui.Sanitize(ev.Text)
		if text == "" {
			return
		}
		io.WriteString(p.out, text)
		p.wrote, p.lastByte = true, text[len(text)-1]
	case agent.ToolResultEvent:
		// One line per call, worded as in the chat screen.
		act := tools.Activity{Name: ev.Call.Name, Args: ev.Call.Args, Result: ev.Call.Result, Error: ev.Call.Error, Done: true}
		fmt.Fprintf(p.errw, "⚙ %s\n", truncate(tui.Sanitize(act.Summary()), 200))
	case agent.RecallEvent:
		fmt.Fprintf(p.errw, "↺ %s\n", truncate(tui.Sanitize(ev.Summary()), 200))
	case agent.NoticeEvent:
		fmt.Fprintf(p.errw, "mneme: %s\n", ev.Text)
	case agent.CompactedEvent:
		fmt.Fprintf(p.errw, "⋯ compacted: messages %d–%d are now a summary for the model (all stay saved)\n", ev.FirstSeq, ev.LastSeq)
	}
}

// finish ends streamed text with a newline.
func (p *askPrinter) finish() {
	if p.wrote && p.lastByte != '\n' {
		io.WriteString(p.out, "\n")
	}
}

func truncate(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}
