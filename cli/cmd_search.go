package cli

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/lineread"
	"github.com/mneme-dev/mneme/internal/printer"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/internal/stdin"
	"github.com/mneme-dev/mneme/memory/index"
)

// searchEmbedBudget bounds how long a search waits to embed turns that are
// still pending before it searches; the rest are embedded later.
const searchEmbedBudget = 3 * time.Second

func searchCommand() command {
	return command{names: []string{"search"}, run: (*App).runSearch,
		help: "  mneme search [--json] QUERY...     search past turns by meaning and by words\n" +
			"  mneme search --batch FILE          answer JSON-lines queries (evaluation, scripts)\n"}
}

func (a *App) runSearch(ctx context.Context, args []string) error {
	var common config.Flags
	fs := a.newFlagSet("search", "mneme search [--limit N] [--json] [--archived] [--conversation ID] [--since DATE] [--until DATE] QUERY...\n       mneme search --batch FILE [--all-users]", &common)
	limit := fs.Int("limit", index.DefaultSearchLimit, fmt.Sprintf("results to show (1-%d)", index.MaxSearchLimit))
	asJSON := fs.Bool("json", false, "print JSON")
	archived := fs.Bool("archived", false, "include archived conversations")
	conv := fs.String("conversation", "", "only the conversation with this `ID` (a prefix is enough)")
	since := fs.String("since", "", "only turns from this `DATE` on (YYYY-MM-DD, RFC 3339, today, yesterday, \"3 days ago\", \"last week\")")
	until := fs.String("until", "", "only turns before this `DATE` (as --since)")
	batch := fs.String("batch", "", "read JSON lines {\"id\",\"query\",\"user\"?,\"limit\"?} from `FILE` (\"-\" for stdin) and write {\"id\",\"results\"} lines")
	allUsers := fs.Bool("all-users", false, `with --batch: let lines with "user" search other users' turns (an evaluation set)`)
	rest, err := a.parseArgs(fs, args)
	if err != nil {
		return err
	}
	query := strings.TrimSpace(strings.Join(rest, " "))
	if *allUsers && *batch == "" {
		return exitError{code: 2, msg: "search: --all-users only goes with --batch"}
	}
	if *batch != "" && query != "" {
		return exitError{code: 2, msg: fmt.Sprintf("search: --batch reads its queries from %s: give no query words (%q)", *batch, query)}
	}
	if *batch == "" && query == "" {
		return exitError{code: 2, msg: "search: nothing to search for: give a query or --batch FILE"}
	}
	if *limit < 1 || *limit > index.MaxSearchLimit {
		return exitError{code: 2, msg: fmt.Sprintf("search: --limit must be 1-%d", index.MaxSearchLimit)}
	}
	q := index.SearchQuery{Text: query, Limit: *limit, IncludeArchived: *archived}
	if q.Since, err = index.ParseSearchDate(*since, time.Now()); err != nil {
		return exitError{code: 2, msg: "search: --since: " + err.Error()}
	}
	if strings.EqualFold(strings.TrimSpace(*until), "today") {
		*until = "now" // until today means up to now, today included
	}
	if q.Until, err = index.ParseSearchDate(*until, time.Now()); err != nil {
		return exitError{code: 2, msg: "search: --until: " + err.Error()}
	}
	if !q.Since.IsZero() && !q.Until.IsZero() && !q.Since.Before(q.Until) {
		return exitError{code: 2, msg: fmt.Sprintf("search: --since %s is not before --until %s: no turn can be in between (--until is the first moment left out: for one day, give the next)", *since, *until)}
	}

	s, err := a.open(ctx, common)
	if err != nil {
		return err
	}
	defer s.Close()
	q.UserID, q.MinSimilarity = s.cfg.User, s.cfg.RecallQuery().MinSimilarity
	if *conv != "" {
		c, err := s.store.Conversation(ctx, s.cfg.User, *conv)
		if err != nil {
			return fmt.Errorf("--conversation %s: %w", *conv, err)
		}
		q.ConversationID = c.ID
	}
	ix, err := a.readyIndex(ctx, s)
	if err != nil {
		return err
	}
	defer ix.Close()
	if *batch != "" {
		if *allUsers {
			fmt.Fprintln(a.stderr, `mneme: search --batch: warning: --all-users: lines naming another "user" search that user's turns`)
		}
		return a.searchBatch(ctx, ix, *batch, q, *allUsers)
	}
	results, err := ix.Search(ctx, q)
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(a.stdout, results)
	}
	printer.SearchResults(a.stdout, results, query)
	return nil
}

type batchLine struct {
	ID    json.RawMessage `json:"id"`
	Query string          `json:"query"`
	User  string          `json:"user,omitempty"`
	Limit int             `json:"limit,omitempty"`
}

type batchAnswer struct {
	ID      json.RawMessage      `json:"id"`
	Results []index.SearchResult `json:"results"`
	Error   string               `json:"error,omitempty"`
}

// maxBatchLine bounds one --batch line.
const maxBatchLine = 4 << 20

// searchBatch answers one JSON line per query line; a bad line gets an
// answer with an error and its line number, and does not stop the batch;
// Ctrl+C does, with no answer for the line it stopped. A line naming
// another user is such an error unless allUsers is set.
func (a *App) searchBatch(ctx context.Context, ix *index.Index, path string, base index.SearchQuery, allUsers bool) error {
	in := a.stdin
	if path != "-" {
		// Opening a named pipe waits for its writer: Ctrl+C ends that too.
		type open struct {
			f   *os.File
			err error
		}
		opened := make(chan open, 1)
		go func() {
			f, err := os.Open(path)
			opened <- open{f, err}
		}()
		var o open
		select {
		case o = <-opened:
		case <-ctx.Done():
			return ctx.Err()
		}
		if o.err != nil {
			return fmt.Errorf("search --batch: %w", o.err)
		}
		defer o.f.Close()
		in = o.f
	}
	// Ctrl+C ends a wait for the next line at once (stdin, a named pipe).
	br := bufio.NewReaderSize(stdin.Cancelable(ctx, in), 64<<10)
	bw := bufio.NewWriter(a.stdout)
	defer bw.Flush()
	for n := 1; ; n++ {
		raw, tooLong, err := lineread.Read(br, maxBatchLine)
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("search --batch: line %d: %w", n, err)
		}
		if errors.Is(err, io.EOF) && len(raw) == 0 && !tooLong {
			return nil
		}
		if !tooLong && strings.TrimSpace(string(raw)) == "" {
			continue
		}
		ans := a.batchAnswer(ctx, ix, n, raw, tooLong, base, allUsers)
		if err := ctx.Err(); err != nil { // stopped: no more answers, and none made of the stop
			return err
		}
		if ans.Error != "" {
			fmt.Fprintln(a.stderr, "mneme: search --batch:", sanitize.Line(ans.Error))
		}
		if err := writeJSONLine(bw, ans); err != nil {
			return err
		}
		if br.Buffered() == 0 { // no line waiting: a reader of the answers gets this one now
			if err := bw.Flush(); err != nil {
				return err
			}
		}
	}
}

// batchAnswer answers line n. A line that does not parse answers with the
// id it can still read, else null.
func (a *App) batchAnswer(ctx context.Context, ix *index.Index, n int, raw []byte, tooLong bool, base index.SearchQuery, allUsers bool) batchAnswer {
	ans := batchAnswer{ID: json.RawMessage("null"), Results: []index.SearchResult{}}
	if tooLong {
		ans.Error = fmt.Sprintf("line %d: longer than %d MiB", n, maxBatchLine>>20)
		return ans
	}
	var bl batchLine
	if err := json.Unmarshal(raw, &bl); err != nil {
		var idOnly struct {
			ID json.RawMessage `json:"id"`
		}
		if json.Unmarshal(raw, &idOnly) == nil && idOnly.ID != nil {
			ans.ID = idOnly.ID
		}
		ans.Error = fmt.Sprintf("line %d: not a JSON object of the batch format: %v", n, err)
		return ans
	}
	if bl.ID != nil {
		ans.ID = bl.ID
	}
	user := strings.TrimSpace(bl.User)
	if user != "" && user != base.UserID && !allUsers {
		ans.Error = fmt.Sprintf(`line %d: "user" %q is not you (%q): search other users' turns only with --all-users`, n, user, base.UserID)
		return ans
	}
	q := base
	q.Text, q.UserID = bl.Query, cmp.Or(user, base.UserID)
	if bl.Limit != 0 {
		q.Limit = bl.Limit
	}
	res, err := ix.Search(ctx, q)
	if err != nil {
		ans.Error = fmt.Sprintf("line %d: %v", n, err)
		return ans
	}
	ans.Results = res
	return ans
}
