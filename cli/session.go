package cli

import (
	"context"
	"fmt"
	"io"
	"log"
	"log/slog"
	"os"
	"path/filepath"

	"github.com/ollama/ollama/api"

	"github.com/mneme-dev/mneme/config"
	"github.com/mneme-dev/mneme/internal/ollama"
	"github.com/mneme-dev/mneme/internal/private"
	"github.com/mneme-dev/mneme/internal/progress"
	"github.com/mneme-dev/mneme/internal/sanitize"
	"github.com/mneme-dev/mneme/memory"
	"github.com/mneme-dev/mneme/memory/index"
	"github.com/mneme-dev/mneme/memory/syncer"
	"github.com/mneme-dev/mneme/tools"
)

// session is what a command needs once configuration is resolved.
type session struct {
	cfg     config.Config
	store   *memory.Store
	log     *slog.Logger
	logFile *os.File
	prevLog io.Writer // the standard logger's output before the session took it
	client  *api.Client
	host    string
	// syncerVal is made by syncer() (cmd_sync.go) when sync is set up.
	syncerVal  *syncer.Syncer
	syncerMade bool
	// onMerge is given to the Syncer (SyncConfig.OnMerge): `mneme sync`
	// says a merge is under way.
	onMerge func(attempt, attempts int)
	// progress reports long catch-ups of the search index on stderr; nil
	// in the chat, which owns the screen.
	progress *progress.Index
	// askChange asks the user whether the model may change or delete a
	// note (model_changes = "confirm"); set by the chat, nil elsewhere.
	askChange tools.Gate
}

// open resolves configuration, opens the log file and the store, and makes
// an Ollama client. It does not talk to Ollama.
func (a *App) open(ctx context.Context, flags config.Flags) (*session, error) {
	return a.openStore(ctx, flags)
}

// openForReading is open for the commands that only read (doctor, export):
// a database written by a newer mneme opens read-only instead of failing,
// and s.store.ReadOnlyReason says why.
func (a *App) openForReading(ctx context.Context, flags config.Flags) (*session, error) {
	return a.openStore(ctx, flags, memory.ReadOnlyIfNewer())
}

func (a *App) openStore(ctx context.Context, flags config.Flags, extra ...memory.Option) (*session, error) {
	cfg, err := config.Load(flags, a.getenv)
	if err != nil {
		return nil, err
	}
	return a.openConfig(ctx, cfg, extra...)
}

// openConfig opens the session for a resolved configuration.
func (a *App) openConfig(ctx context.Context, cfg config.Config, extra ...memory.Option) (*session, error) {
	u, err := config.OllamaURL(cfg.Ollama)
	if err != nil {
		return nil, err
	}
	if err := private.Dir(cfg.DataDir); err != nil {
		return nil, err
	}
	s := &session{cfg: cfg, host: u.String(), progress: progress.New(a.stderr)}
	s.logFile, err = os.OpenFile(filepath.Join(cfg.DataDir, "mneme.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("log file: %w", err)
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(cfg.LogLevel)); err != nil {
		level = slog.LevelInfo
	}
	s.log = slog.New(slog.NewTextHandler(s.logFile, &slog.HandlerOptions{Level: level}))
	// Libraries that log through the standard logger (Bleve's scorch does)
	// write to the log file, never over the chat screen or a command's output.
	s.prevLog = log.Writer()
	log.SetOutput(s.logFile)
	waiting := memory.WithLockWait(func() {
		fmt.Fprintln(a.stderr, "mneme: waiting for another mneme that is merging this database with the sync server…")
	})
	s.store, err = memory.Open(ctx, filepath.Join(cfg.DataDir, memory.DBFileName), append(storeOptions(cfg), append(extra, waiting)...)...)
	if err != nil {
		log.SetOutput(s.prevLog)
		s.logFile.Close()
		return nil, err
	}
	s.client = ollamaClient(u, cfg)
	s.log.Debug("session opened", "data_dir", cfg.DataDir, "user", cfg.User, "ollama", s.host)
	return s, nil
}

func (s *session) Close() {
	if s.progress != nil {
		s.progress.End()
	}
	s.store.Close()
	log.SetOutput(s.prevLog) // never into a closed file
	s.logFile.Close()
}

// openIndex opens the search index with the embedding model the probe
// found; without one, search is keyword-only.
func (s *session) openIndex(ctx context.Context, st ollamaState) (*index.Index, error) {
	return s.openIndexReporting(ctx, st, s.progress)
}

// openIndexReporting is openIndex with long catch-ups reported to prog
// (none when nil).
func (s *session) openIndexReporting(ctx context.Context, st ollamaState, prog *progress.Index) (*index.Index, error) {
	opts := index.IndexOptions{
		Log:    s.log,
		Fusion: index.Fusion{K: s.cfg.RRFK, KeywordWeight: s.cfg.KeywordWeight, VectorWeight: s.cfg.VectorWeight},
		// recall_threshold also bounds document passages found by meaning.
		DocSimilarity: s.cfg.RecallQuery().MinSimilarity,
		QueriesOnly:   s.cfg.EmbedModelOneOff,
	}
	if auto, _ := ollama.ChooseEmbed(st.Models, ""); opts.QueriesOnly && s.cfg.EmbedModelKept == "" && ollama.SameModel(auto.Name, s.cfg.EmbedModel) {
		opts.QueriesOnly = false // --embed-model names the model every command picks anyway
	}
	if opts.DocSimilarity == 0 {
		opts.DocSimilarity = -1 // recall_threshold = 0: any
	}
	if prog != nil {
		opts.Progress = prog.Report
	}
	if st.Embed.Name != "" {
		opts.Embed = s.client
		opts.Model = index.EmbedModel{Name: st.Embed.Name, ContextLength: st.Embed.ContextLength}
	}
	return index.OpenIndex(ctx, s.store, s.cfg.DataDir, opts)
}

// readyIndex opens the index, brings keyword search up to date, and embeds
// pending turns for a short while so that fresh turns are found by meaning.
// Ollama is asked for its embedding model meanwhile.
func (a *App) readyIndex(ctx context.Context, s *session) (*index.Index, error) {
	probed := make(chan ollamaState, 1)
	go func() { probed <- probeEmbedding(ctx, s.client, s.host, s.cfg) }()
	ix, err := s.openIndex(ctx, ollamaState{})
	if err == nil {
		err = ix.Sync(ctx)
	}
	switch {
	case err == nil && ix.BehindBulk() && ix.Rebuilding():
		fmt.Fprintln(a.stderr, "mneme: another mneme is rebuilding the search index (reindex); turns written since it began are found once it is done")
	case err == nil && ix.BehindBulk():
		fmt.Fprintln(a.stderr, "mneme: another mneme is importing; what it has not indexed yet is not found yet")
	}
	st := <-probed
	if err != nil {
		if ix != nil {
			ix.Close()
		}
		return nil, err
	}
	if st.Err != nil && ctx.Err() == nil { // not a choice of the user's: said, not left to guess
		fmt.Fprintln(a.stderr, "mneme: search by meaning is unavailable, results are by keyword only:", sanitize.Line(st.Err.Error()))
	}
	if st.Embed.Name != "" {
		ix.SetEmbedding(s.client, index.EmbedModel{Name: st.Embed.Name, ContextLength: st.Embed.ContextLength})
		if ix.BehindBulk() { // the import embeds its turns: a search does not wait for them
			return ix, nil
		}
		ectx, cancel := context.WithTimeout(ctx, searchEmbedBudget)
		err := ix.Drain(ectx)
		cancel()
		if err != nil {
			ix.Close()
			return nil, err
		}
	}
	return ix, nil
}

// noteIndex opens the search index for a note command. With embed, Ollama
// is probed for an embedding model so that the note is embedded at once;
// when Ollama is down the note is embedded by a later run.
func (a *App) noteIndex(ctx context.Context, s *session, embed bool) (*index.Index, error) {
	var st ollamaState
	if embed {
		st = a.probeEmbedding(ctx, s)
	}
	return s.openIndex(ctx, st)
}

// probeEmbedding asks Ollama for the embedding model; one that does not
// answer is said, not left to guess (as search says it).
func (a *App) probeEmbedding(ctx context.Context, s *session) ollamaState {
	st := probeEmbedding(ctx, s.client, s.host, s.cfg)
	if st.Err != nil && ctx.Err() == nil {
		fmt.Fprintln(a.stderr, "mneme: search by meaning is unavailable for now:", sanitize.Line(st.Err.Error()))
	}
	return st
}

// storeOptions are the store's options from the configuration.
func storeOptions(cfg config.Config) []memory.Option {
	if cfg.EncryptionKey == "" {
		return nil
	}
	return []memory.Option{memory.WithEncryptionKey(cfg.EncryptionKey)}
}

// withIndex is the preamble of the commands that search: it opens the
// session and a search index brought up to date (readyIndex), runs fn, and
// closes both.
func (a *App) withIndex(ctx context.Context, flags config.Flags, fn func(*session, *index.Index) error) error {
	return a.withIndexFrom(ctx, flags, a.readyIndex, fn)
}

// withNoteIndex is withIndex for the commands that change memory or read it
// without searching: the index as it is (noteIndex), probed for an
// embedding model only with embed.
func (a *App) withNoteIndex(ctx context.Context, flags config.Flags, embed bool, fn func(*session, *index.Index) error) error {
	return a.withIndexFrom(ctx, flags, func(ctx context.Context, s *session) (*index.Index, error) {
		return a.noteIndex(ctx, s, embed)
	}, fn)
}

func (a *App) withIndexFrom(ctx context.Context, flags config.Flags, open func(context.Context, *session) (*index.Index, error),
	fn func(*session, *index.Index) error) error {
	s, err := a.open(ctx, flags)
	if err != nil {
		return err
	}
	defer s.Close()
	ix, err := open(ctx, s)
	if err != nil {
		return err
	}
	defer ix.Close()
	return fn(s, ix)
}
