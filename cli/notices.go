package cli

import "github.com/mneme-dev/mneme/internal/told"

// firstNotice returns a function reporting whether notice kind is shown for
// model for the first time in this data dir, and recording that it was
// (internal/told).
func (s *session) firstNotice(kind string) func(model string) bool {
	return func(model string) bool {
		first, err := told.First(s.cfg.DataDir, kind, model)
		if err != nil {
			s.log.Warn("notice record", "kind", kind, "err", err)
		}
		return first
	}
}
