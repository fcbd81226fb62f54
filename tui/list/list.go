// Package list is the selectable list the chat's panels share: a cursor,
// moving by rows and by pages, a scrolling window, and the drawing of the
// rows with the selected one marked. It holds no items: its owner keeps
// them and passes their number, and how many rows show, to each call, so
// that the list never disagrees with them.
package list

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// Model is the cursor and the scrolling window of a list of n items, of
// which visible show at once.
type Model struct {
	keys     KeyMap
	sel, top int
}

// New returns a list moved by keys.
func New(keys KeyMap) Model { return Model{keys: keys} }

// KeyMap returns the list's bindings.
func (m Model) KeyMap() KeyMap { return m.keys }

// SetKeyMap replaces the list's bindings.
func (m *Model) SetKeyMap(k KeyMap) { m.keys = k }

// Index is the selected item.
func (m Model) Index() int { return m.sel }

// Top is the first item shown.
func (m Model) Top() int { return m.top }

// Select puts the cursor on item i as it is; Scroll or Clamp then bring
// it into view.
func (m *Model) Select(i int) { m.sel = i }

// Reset goes back to the first item, at the top.
func (m *Model) Reset() { m.sel, m.top = 0, 0 }

// Scroll moves the window as little as possible so that the selected item
// shows among visible items.
func (m *Model) Scroll(visible int) { m.top = ScrollTo(m.top, m.sel, visible) }

// Clamp keeps the cursor on one of n items (on 0 when there are none) and
// scrolls it into view, with no empty rows below the last item while
// items above are hidden (a window grown taller shows them).
func (m *Model) Clamp(n, visible int) {
	m.sel = max(0, min(m.sel, n-1))
	m.Scroll(visible)
	m.top = max(0, min(m.top, n-visible))
}

// Move moves the cursor by delta items, staying on one of the n items, and
// scrolls it into view. An empty list does not move.
func (m *Model) Move(delta, n, visible int) {
	if n == 0 {
		return
	}
	m.sel = max(0, min(n-1, m.sel+delta))
	m.Scroll(visible)
}

// Update moves the cursor on the list's keys: a row up or down, or a page
// of visible items; handled is false for any other key.
func (m *Model) Update(msg tea.KeyPressMsg, n, visible int) (handled bool) {
	page := max(1, visible)
	switch {
	case key.Matches(msg, m.keys.Up):
		m.Move(-1, n, visible)
	case key.Matches(msg, m.keys.Down):
		m.Move(1, n, visible)
	case key.Matches(msg, m.keys.PageUp):
		m.Move(-page, n, visible)
	case key.Matches(msg, m.keys.PageDown):
		m.Move(page, n, visible)
	default:
		return false
	}
	return true
}

// Rows draws at most count of the n items from the top of the window, each
// with row, which is told whether its item is the selected one. The
// selected item is among them even when count is fewer rows than the
// window was last scrolled for (a panel's part below the list grew).
func (m Model) Rows(n, count int, row func(i int, selected bool) string) []string {
	var out []string
	for i := ScrollTo(m.top, m.sel, count); i < n && len(out) < count; i++ {
		out = append(out, row(i, i == m.sel))
	}
	return out
}

// ScrollTo returns the first visible item so that sel shows among visible
// items, moving top as little as possible.
func ScrollTo(top, sel, visible int) int {
	if visible <= 0 {
		return sel
	}
	if sel < top {
		return sel
	}
	if sel >= top+visible {
		return sel - visible + 1
	}
	return top
}
