package sidebar

import (
	"github.com/mneme-dev/mneme/tui/internal/paneltest"
)

// The shared panel test harness (tui/internal/paneltest) under short names.
var (
	plain         = paneltest.Plain
	requireSize   = paneltest.RequireSize
	requireShows  = paneltest.RequireShows
	requireGolden = paneltest.RequireGolden
	runCmd        = paneltest.RunCmd
	keyRune       = paneltest.KeyRune
	keyEnter      = paneltest.KeyEnter
	keyEsc        = paneltest.KeyEsc
	keyDown       = paneltest.KeyDown
)

const (
	testUser   = paneltest.TestUser
	maxSteps   = paneltest.MaxSteps
	cmdTimeout = paneltest.CmdTimeout
	goldenDir  = paneltest.GoldenDir
)
