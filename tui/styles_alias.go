package tui

import "github.com/mneme-dev/mneme/tui/styles"

// Styles is the one Styles value (tui/styles) the root's components draw
// with; the root builds it and hands it down.
type Styles = styles.Styles
