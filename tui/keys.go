package tui

import "github.com/mneme-dev/mneme/tui/keymap"

// KeyMap is every key binding of the chat screen and its panels
// (tui/keymap).
type KeyMap = keymap.KeyMap

// DefaultKeyMap returns the default bindings.
func DefaultKeyMap() KeyMap { return keymap.Default() }
