package search

import (
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/mneme-dev/mneme/tui/internal/paneltest"
)

// The shared panel test harness (tui/internal/paneltest) under short names.
type (
	component[T any] = paneltest.Component[T]
	testClock        = paneltest.Clock
)

func newComponent[T any](t *testing.T, m T, update func(T, tea.Msg) (T, tea.Cmd), owns func(T, tea.Msg) bool) *component[T] {
	return paneltest.NewComponent(t, m, update, owns)
}

func sent[M any, T any](c *component[T]) []M { return paneltest.Sent[M](c) }

func must[T any](t *testing.T) func(T, error) T { return paneltest.Must[T](t) }

var (
	newTestClock  = paneltest.NewClock
	plain         = paneltest.Plain
	requireSize   = paneltest.RequireSize
	requireShows  = paneltest.RequireShows
	requireGolden = paneltest.RequireGolden
	runCmd        = paneltest.RunCmd
	openStore     = paneltest.OpenStore
	keyEnter      = paneltest.KeyEnter
	keyEsc        = paneltest.KeyEsc
	keyDown       = paneltest.KeyDown
	keyUp         = paneltest.KeyUp
)

const (
	testUser   = paneltest.TestUser
	maxSteps   = paneltest.MaxSteps
	cmdTimeout = paneltest.CmdTimeout
	goldenDir  = paneltest.GoldenDir
)
