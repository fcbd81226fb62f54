package cli

import "github.com/mneme-dev/mneme/tools"

// changeGate is the gate for the session's agents (model_changes): nil
// (the model's changes run freely) unless "confirm". Then the chat asks the
// user (askChange, chat_wiring.go); a command that cannot ask (ask) refuses.
func (s *session) changeGate() tools.Gate {
	switch {
	case !s.cfg.ConfirmChanges():
		return nil
	case s.askChange != nil:
		return s.askChange
	}
	return tools.RefuseChanges(`model_changes = "confirm"`)
}
