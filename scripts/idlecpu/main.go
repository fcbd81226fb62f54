// Command idlecpu is the floor of scripts/idle-cpu.sh: a Bubble Tea
// program that draws one screen and then does nothing, at the frame rate
// the chat uses. What it costs idle is the framework's frame ticker, which
// mneme cannot stop; what the chat costs beyond it is mneme's.
package main

import (
	"fmt"
	"os"

	tea "charm.land/bubbletea/v2"
)

// fps is tui.maxFPS.
const fps = 30

type blank struct{}

func (blank) Init() tea.Cmd { return nil }

func (b blank) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if k, ok := msg.(tea.KeyPressMsg); ok && (k.String() == "q" || k.String() == "ctrl+c") {
		return b, tea.Quit
	}
	return b, nil
}

func (blank) View() tea.View {
	v := tea.NewView("a blank Bubble Tea program, idle (q quits)")
	v.AltScreen = true
	return v
}

func main() {
	if _, err := tea.NewProgram(blank{}, tea.WithFPS(fps)).Run(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
