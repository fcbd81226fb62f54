package tui

import (
	"strings"

	"github.com/mneme-dev/mneme/tui/transcript"
)

// recallPrompt puts an earlier prompt of the conversation in the input, as
// a shell's history does (a queued prompt comes back first): ↑ in an empty
// input takes the last one, and again the one before; ↓ goes back towards
// the newest, then to an empty input. It reports whether the key was taken (a draft, or a recalled
// prompt since edited, keeps ↑/↓ for moving in the text).
func (m *Model) recallPrompt(older bool) bool {
	text := m.input.Value()
	if q := m.queued; older && text == "" && q != "" { // a queued prompt first: back to edit
		m.queued, m.hint = "", "Taken back from the queue."
		m.input.Paste(q)
		return true
	}
	if text != "" && text != m.recalled {
		return false
	}
	var prompts []string
	for _, e := range m.transcript.Entries {
		if e.Kind == transcript.KindUser {
			prompts = append(prompts, e.Text)
		}
	}
	i := m.recallAt
	if text == "" || i >= len(prompts) { // fresh, or the conversation changed meanwhile
		i = len(prompts)
	}
	switch {
	case older && i > 0:
		i--
	case !older && i < len(prompts)-1:
		i++
	case !older && text != "":
		m.input.Reset()
		m.recalled = ""
		return true
	default:
		return text != "" // at the oldest, ↑ stays; in an empty input ↓ does nothing
	}
	m.input.Reset()
	p := prompts[i]
	if strings.HasPrefix(p, "/") {
		p = "/" + p // sent as "//…": a message, not a command
	}
	m.input.Paste(p)
	m.recalled, m.recallAt = m.input.Value(), i
	return true
}
