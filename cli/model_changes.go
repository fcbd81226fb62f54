package cli

import (
	"context"
	"fmt"

	"github.com/mneme-dev/mneme/tools"
)

// The model_changes policy: with "confirm", the model's memory_update and
// memory_delete (tools.Changing) go through a gate. The chat asks the user
// (session.askChange, set by the chat command); a command that cannot ask
// (ask) refuses them with a result that tells the model why.

// changeGate is the gate for the session's agents: nil (the tools run
// freely) unless model_changes = "confirm".
func (s *session) changeGate() tools.Gate {
	if !s.cfg.confirmChanges() {
		return nil
	}
	if s.askChange != nil {
		return s.askChange
	}
	return refuseChange
}

// refuseChange refuses a change where no one can be asked.
func refuseChange(_ context.Context, _ tools.Session, c tools.Call) error {
	id, _ := tools.ChangeArgs(c)
	return fmt.Errorf("%w (model_changes = %q) and cannot be asked here, so %s was not run and note %s is unchanged; "+
		"tell the user what you wanted to change so that they can do it (mneme memory edit or mneme memory delete)",
		tools.ErrNeedsConfirm, changesConfirm, c.Name, id)
}
