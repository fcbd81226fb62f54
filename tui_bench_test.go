package main

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mneme-dev/mneme/memory"
)

// BenchmarkChat100k times the chat as a person sees it, through the binary
// in a real terminal (tmux, 100×30, xterm-256color), on the corpus of
// BenchmarkCommands100k: 100k turns in 1k conversations, Ollama unreachable.
//
//	MNEME_BENCH_DIR=/tmp/mneme-bench go test -run '^$' -bench Chat100k -benchtime 11x -timeout 30m .
//
// first-paint is from the Enter that runs `mneme` in an idle shell of the
// pane to the first screen where a person can type: the input, the status
// line and the help line (the last row) all drawn. The shell's fork and
// exec are counted, tmux's start is not.
//
// switch opens another conversation the way a person does: ctrl+l shows
// the list of conversations (list_p50_ms: from ctrl+l to the list drawn
// with its cursor on the open conversation), ↓ moves to the next one, and
// the time is from Enter to the screen showing that conversation: its title
// in the status line and the end of its last message in the transcript.
// Each switch opens a conversation not opened before, so none comes from
// the cache of recently left ones. The list is then hidden again.
// key_p50_ms is the time from typing a letter in the input to seeing it:
// what any key costs at least (Bubble Tea draws at most maxFPS frames a
// second, so a change waits for the next frame).
//
// The screen is read with `tmux capture-pane` in a loop without pauses; a
// time includes up to one capture (capture_p50_ms, a few ms). With
// MNEME_BENCH_BINS=old:new the binaries take turns, as in
// BenchmarkCommands100k.
func BenchmarkChat100k(b *testing.B) {
	needTmux(b) // before building the corpus
	home, bins, env, _ := benchSetup(b, 100_000)
	b.Run("first-paint", func(b *testing.B) {
		sh := openTerminal(b, 100, 30, terminalCommand(append(env, "PS1=$ "), "sh")...)
		sh.interval = 0
		sh.waitFor("the shell's prompt", func(s string) bool { return lastLine(s) == "$" })
		times := make([][]time.Duration, len(bins))
		for _, bin := range bins { // warm the page cache
			firstPaint(sh, bin)
		}
		for b.Loop() {
			for i, bin := range bins {
				times[i] = append(times[i], firstPaint(sh, bin))
			}
		}
		reportPercentiles(b, "", times)
		reportCapture(b, sh)
	})
	b.Run("switch", func(b *testing.B) {
		convs := lastMessages(b, home)
		terms := make([]*terminal, len(bins))
		open := make([]int, len(bins)) // the conversation each one shows, -1: a new one
		for i, bin := range bins {
			terms[i] = openTerminal(b, 100, 30, terminalCommand(env, bin)...)
			terms[i].interval = 0
			terms[i].waitFor("the chat", chatDrawn)
			open[i] = -1
		}
		keys := make([][]time.Duration, len(bins))
		list := make([][]time.Duration, len(bins))
		times := make([][]time.Duration, len(bins))
		for i, term := range terms { // the first opening of the list and of a conversation
			_, _, open[i] = switchNext(term, convs, open[i])
		}
		for b.Loop() {
			for i, term := range terms {
				keys[i] = append(keys[i], typeKey(term))
				var l, d time.Duration
				l, d, open[i] = switchNext(term, convs, open[i])
				list[i], times[i] = append(list[i], l), append(times[i], d)
			}
		}
		reportPercentiles(b, "", times)
		reportPercentiles(b, "list_", list)
		reportPercentiles(b, "key_", keys)
		reportCapture(b, terms[0])
	})
}

// typeKey returns the time from typing a letter in the input to seeing
// it, the least any key costs; the letter is then erased.
func typeKey(term *terminal) time.Duration {
	// Bubble Tea draws at its next frame, so the time depends on where in
	// the frame the key lands; typed right after the last screen change,
	// it would land at the same place every time. A random wait of up to a
	// frame samples every place alike (a sample, not synchronisation).
	time.Sleep(rand.N(time.Second / 30))
	start := time.Now()
	term.typeText("x")
	term.waitFor("x typed", func(s string) bool { return strings.Contains(s, "› x") })
	d := time.Since(start)
	term.keys("BSpace")
	term.waitFor("x erased", func(s string) bool { return strings.Contains(s, "Ask anything") })
	return d
}

// firstPaint runs bin in the shell of term and returns the time from the
// Enter that starts it to its first screen; it then quits with ctrl+c and
// waits for the shell to be back.
func firstPaint(sh *terminal, bin string) time.Duration {
	sh.typeText(bin)
	sh.waitFor("the command typed", func(s string) bool { return lastLine(s) == "$ "+bin })
	start := time.Now()
	sh.keys("Enter")
	sh.waitFor("the chat", chatDrawn)
	d := time.Since(start)
	sh.keys("C-c")
	sh.waitFor("mneme to exit", func(string) bool {
		return strings.TrimSpace(sh.tmux("display-message", "-p", "-t", "mneme", "#{pane_current_command}")) == "sh"
	})
	return d
}

// chatDrawn is the first screen of a new chat: the input, the status line
// and the help line, the last row of the frame.
func chatDrawn(s string) bool {
	return strings.Contains(s, "Ask anything") && strings.Contains(s, "new conversation") &&
		strings.Contains(s, "ctrl+c quit")
}

// benchConv is a conversation as the list shows it and the last words of
// its last message.
type benchConv struct{ title, tail string }

// lastMessages returns the conversations of the bench user, most recent
// first (the list's order), with the last words of their last message.
func lastMessages(b *testing.B, home string) []benchConv {
	ctx := context.Background()
	store, err := memory.Open(ctx, filepath.Join(home, "data", memory.DBFileName))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	list, err := store.ListConversations(ctx, "bench", memory.ListOptions{Limit: 200})
	if err != nil {
		b.Fatal(err)
	}
	convs := make([]benchConv, len(list))
	for i, c := range list {
		msgs, err := store.Messages(ctx, "bench", c.ID)
		if err != nil || len(msgs) == 0 {
			b.Fatalf("messages of %s: %d, %v", c.ID, len(msgs), err)
		}
		words := strings.Fields(msgs[len(msgs)-1].Content)
		convs[i] = benchConv{title: c.Title, tail: strings.Join(words[max(0, len(words)-4):], " ")}
	}
	return convs
}

// switchNext opens the list of conversations, moves from conversation
// open (-1: a new one, the list's first is opened) to the next one and
// opens it, then hides the list. It returns the time the list took to
// show, the time the conversation took, and the conversation now open.
func switchNext(term *terminal, convs []benchConv, open int) (list, d time.Duration, now int) {
	cursor := func(i int) func(string) bool {
		return func(s string) bool { return strings.Contains(s, "› "+convs[i].title+" ") }
	}
	start := time.Now()
	term.keys("C-l")
	term.waitFor("the list at the open conversation", cursor(max(open, 0)))
	list = time.Since(start)
	now = open + 1
	if now >= len(convs) {
		term.t.Fatalf("only %d conversations to switch to", len(convs))
	}
	if open >= 0 {
		term.keys("Down")
		term.waitFor("the cursor on the next conversation", cursor(now))
	}
	start = time.Now()
	term.keys("Enter")
	term.waitFor(convs[now].title+" on screen", func(s string) bool {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		if len(lines) < 2 || !strings.HasSuffix(strings.TrimSpace(lines[len(lines)-2]), "· "+convs[now].title) {
			return false // the status line names the open conversation
		}
		var text []string
		for _, l := range lines {
			if _, right, ok := strings.Cut(l, "│"); ok {
				text = append(text, strings.ReplaceAll(right, "┃", " "))
			}
		}
		return strings.Contains(strings.Join(strings.Fields(strings.Join(text, " ")), " "), convs[now].tail)
	})
	d = time.Since(start)
	term.keys("C-l", "C-l") // give the list the keys, then hide it
	term.waitFor("the list hidden", func(s string) bool { return !strings.HasPrefix(s, "Conversations") })
	return list, d, now
}

// lastLine is the screen's last line that is not blank, trimmed.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, " \n"), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// reportCapture reports how long reading the screen takes (the resolution
// of the times above).
func reportCapture(b *testing.B, term *terminal) {
	times := make([]time.Duration, 21)
	for i := range times {
		start := time.Now()
		term.screen()
		times[i] = time.Since(start)
	}
	reportPercentiles(b, "capture_", [][]time.Duration{times})
}
